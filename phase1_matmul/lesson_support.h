// SPDX-License-Identifier: MIT
// What every rung of the ladder shares: random A and B on the device, a reference from cuBLAS
// (pedantic FP32) with per-element error bounds, verification, timing of a launcher and of the
// library on the same data in the same run. run_matmul_lesson is the whole lesson of a rung;
// the ladder benchmark uses MatmulBench directly.
#pragma once

#include <memory>
#include <string>

#include "common/lesson.h"
#include "phase1_matmul/matmul.cuh"
#include "phase1_matmul/reference.h"

struct MatmulShape {
  int M, N, K;
  double flop() const { return 2.0 * M * double(N) * K; }  // a multiply and an add per term
  std::string text() const;                                // "M=N=K=4096" or "MxNxK"
};

class MatmulBench {
 public:
  // Allocates and fills A, B (random in [-1, 1] from `seed`) and computes the reference.
  MatmulBench(MatmulShape shape, std::uint64_t seed);
  ~MatmulBench();
  MatmulBench(const MatmulBench&) = delete;
  MatmulBench& operator=(const MatmulBench&) = delete;

  const MatmulShape& shape() const { return shape_; }
  // C = A B (alpha 1, beta 0) with `launch`; true when within the derived tolerance and guards are
  // intact, else prints the report to stderr.
  bool verify(const std::string& what, MatmulLauncher launch, MatmulPrecision precision);
  wb::TimingStats time(MatmulLauncher launch, const wb::BenchOptions& options);
  // The library at the same input precision: cublasSgemm (default math, FP32) or cublasGemmEx TF32.
  wb::TimingStats time_library(MatmulPrecision precision, const wb::BenchOptions& options);

 private:
  struct Buffers;
  MatmulShape shape_;
  std::unique_ptr<Buffers> buffers_;
};

// The lesson of a rung: --size N (a cube) or MxNxK, default 4096^3; verify, time the rung and the
// library, verify again, print the result line (GFLOP/s, % of the FP32 or TF32 peak, % of cuBLAS).
int run_matmul_lesson(wb::Lesson& lesson, const char* launcher_name, MatmulLauncher launch,
                      MatmulPrecision precision = MatmulPrecision::FP32);

// --size as a GEMM shape: "N" (a cube) or "MxNxK", each from 1 to 65536; UsageError otherwise.
MatmulShape parse_matmul_shape(const std::string& text);

// Dense TF32 tensor-core FLOP per clock per SM (0 where there are no TF32 tensor cores): 2048 on
// Hopper, 1024 on the A100, 512 on other Ampere and Ada GPUs (NVIDIA architecture whitepapers).
int tf32_flop_per_clock_per_sm(int cc_major, int cc_minor);
// The peak a rung is measured against: FP32 (SMs x lanes x 2 x clock) or the TF32 tensor peak.
double matmul_peak_gflops(const wb::DeviceInfo& device, MatmulPrecision precision);
