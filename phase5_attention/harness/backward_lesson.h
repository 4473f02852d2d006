// SPDX-License-Identifier: MIT
// What 5.07's lesson and p5_bench share for the backward pass: the inputs on the device (BF16 Q, K, V,
// dO; O and L from the cuBLAS forward), sampled rows of dQ, dK and dV checked against the CPU reference
// in double under the derived bound (reference_backward.cpp), timing, and the unfused cuBLAS backward
// (reference_backward_gpu.h) on the same inputs widened, the yardstick timed in the same run.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/lesson.h"
#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/attention_kernel.h"

namespace p5 {

class BackwardProblem {
 public:
  // The device and host bytes of a problem (with the cuBLAS path's FP32 copies and P, dS workspace when
  // `with_cublas`), for a lesson's require_memory or a benchmark's fit check.
  static double device_bytes(const AttentionShape& shape, bool with_cublas);
  static double host_bytes(const AttentionShape& shape);
  BackwardProblem(const AttentionShape& shape, std::uint64_t seed, bool with_cublas);
  ~BackwardProblem();
  BackwardProblem(const BackwardProblem&) = delete;
  BackwardProblem& operator=(const BackwardProblem&) = delete;

  const AttentionShape& shape() const { return shape_; }
  // Poisons dQ, dK, dV, runs once, compares the sampled rows (query rows of dQ, key rows of dK and dV, in
  // the first and the last head) and the guards; prints what is wrong to stderr.
  bool verify(const std::string& what, Bf16AttentionBackwardLauncher launch);
  wb::TimingStats time(Bf16AttentionBackwardLauncher launch, const wb::BenchOptions& options);
  // The same for the cuBLAS backward (FP32 on the inputs widened, under the FP32 bound); false from
  // both when the problem was made without it.
  bool verify_cublas(const std::string& what);
  wb::TimingStats time_cublas(const wb::BenchOptions& options);

 private:
  struct Buffers;
  bool check(const std::string& what, const std::vector<float>& dq, const std::vector<float>& dk,
             const std::vector<float>& dv, AttentionPrecision precision);
  AttentionShape shape_;
  std::unique_ptr<Buffers> b_;
};

// 5.07's lesson: --size SEQ, SEQxD or HEADSxSEQxD (default 16x4096x128), not causal; verify, time,
// verify again, time the cuBLAS backward; the line reads TFLOP/s (2.5x the forward's FLOP), % of the
// BF16 tensor peak, and x of the cuBLAS backward.
int run_backward_lesson(wb::Lesson& lesson, const char* launcher, Bf16AttentionBackwardLauncher launch);

}  // namespace p5
