// SPDX-License-Identifier: MIT
// What every rung of the ladder shares: random A and B on the device, a reference from cuBLAS
// (pedantic FP32) with per-element error bounds, verification, timing of a launcher and of the
// library on the same data in the same run. run_matmul_lesson is the whole lesson of a rung;
// the ladder benchmark uses MatmulBench directly.
#pragma once

#include <memory>
#include <string>

#include "common/lesson.h"
#include "phase1_matmul/harness/reference.h"
#include "phase1_matmul/matmul.cuh"
#include "phase1_matmul/matmul_bf16.cuh"

namespace p1 {

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

// The result line every matmul lesson ends with: GFLOP/s of `time`, % of `peak_gflops` (0: unknown), the
// peak of `precision` (FP32, TF32 or BF16, also the row's dtype), % of the library's time measured in the
// same run; returns the lesson's exit status.
int report_matmul_result(wb::Lesson& lesson, const char* launcher_name, const MatmulShape& shape,
                         const wb::TimingStats& time, MatmulPrecision precision, double peak_gflops, double library_ms,
                         const char* library_label, bool pass);

// --size as a GEMM shape: "N" (a cube) or "MxNxK", each from 1 to 65536; UsageError otherwise.
MatmulShape parse_matmul_shape(const std::string& text);

// The peak a rung is measured against: FP32 (SMs x lanes x 2 x clock) or the TF32 tensor peak
// (common/device.h, wb::tf32_peak_gflops); 0 when unknown.
double matmul_peak_gflops(const wb::DeviceInfo& device, MatmulPrecision precision);

// ---- the BF16 rungs 1.10-1.14 (bf16_lesson.cpp) ----------------------------------------------------

// The library yardstick of a BF16 rung: cuBLAS's two ways to the same GEMM (BF16 A and B, FP32 C and
// accumulation), timed on the same data in the same run; the faster one is the line to beat.
struct Bf16LibraryTiming {
  wb::TimingStats gemm_ex;  // cublasGemmEx, default algorithm
  wb::TimingStats lt;       // cublasLtMatmul, its top heuristic algorithm with a 32 MiB workspace
  bool lt_found = false;    // false: cuBLASLt offered no algorithm (then GemmEx alone is the yardstick)
  bool lt_wins() const { return lt_found && lt.median_ms < gemm_ex.median_ms; }
  double best_ms() const { return lt_wins() ? lt.median_ms : gemm_ex.median_ms; }
  const char* best_name() const { return lt_wins() ? "cublasLtMatmul" : "cublasGemmEx"; }
};

class Bf16MatmulBench {
 public:
  // Random A and B in [-1, 1] from `seed`, rounded to BF16 on the host and stored as BF16 on the
  // device; the reference is cuBLAS pedantic FP32 on the same BF16 values widened to float (products of
  // BF16 numbers are exact in FP32), with the magnitudes |A| |B|^T for the per-element bound.
  Bf16MatmulBench(MatmulShape shape, std::uint64_t seed);
  ~Bf16MatmulBench();
  Bf16MatmulBench(const Bf16MatmulBench&) = delete;
  Bf16MatmulBench& operator=(const Bf16MatmulBench&) = delete;

  const MatmulShape& shape() const { return shape_; }
  // C = A B^T (alpha 1, beta 0) with `launch`; true when within the BF16 bound (reference.h) and the
  // guards are intact, else prints the report to stderr.
  bool verify(const std::string& what, Bf16MatmulLauncher launch);
  wb::TimingStats time(Bf16MatmulLauncher launch, const wb::BenchOptions& options);
  // cublasGemmEx and cublasLtMatmul, each verified once (a wrong call would be a meaningless yardstick),
  // then timed.
  Bf16LibraryTiming time_library(const wb::BenchOptions& options);

 private:
  struct Buffers;
  MatmulShape shape_;
  std::unique_ptr<Buffers> buffers_;
};

// The lesson of a BF16 rung: --size N (a cube) or MxNxK, default 4096^3; verify, time the rung,
// verify again, time the cuBLAS yardstick, print the result line (GFLOP/s, % of the BF16 tensor peak,
// % of "cuBLAS BF16 best") after a line naming cuBLAS's two times.
int run_bf16_matmul_lesson(wb::Lesson& lesson, const char* launcher_name, Bf16MatmulLauncher launch);

// For the rungs whose bugs hang rather than fail (mbarrier waits: 1.12, 1.13), called by their lessons
// before the first launch: one line saying what usually hangs and that Ctrl-C stops the lesson (on
// stderr with --csv, so stdout keeps only the rows). The sentence is hang_notice.h's, as in the tests.
void warn_mbarrier_hangs(const wb::Lesson& lesson);

}  // namespace p1
