// SPDX-License-Identifier: MIT
// What every phase 5 lesson shares: the problem from --size, inputs on the device, sampled rows checked
// against the CPU reference in double, timing, and the cuBLAS path (5.02's computation) timed in the
// same run as the yardstick of the result line ("1.20x of 5.02"). 5.05's BF16 kernel gets the same
// random floats rounded to BF16; its reference rows and the cuBLAS path (FP32) run on them widened.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/lesson.h"
#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/attention_kernel.h"

namespace p5 {

// --size SEQ, SEQxD or HEADSxSEQxD (default 16x4096x64, 16x4096x128 for 5.05: `default_d`):
// seq_q = seq_k = SEQ, d 64 or 128; or HEADSxSEQQxSEQKxD, cross attention (SEQQ != SEQK only when not
// causal: a causal lesson refuses it, exit 2).
AttentionShape parse_attention_size(const std::string& text, bool causal, int default_d = 64);
// 5.06: --size SEQK or HEADSxSEQQxSEQKxD (default 32x1x32768x128), causal: the seq_q newest tokens of a
// KV cache of seq_k (seq_q <= seq_k).
AttentionShape parse_decoding_size(const std::string& text);

class AttentionBench {
 public:
  // Refuses (exit 2) a shape whose buffers do not fit, then makes the inputs and the reference rows.
  // `workspace_elements`: the largest workspace of a kernel to be run besides the scores of the unfused
  // paths (5.06's partials). `memory_bound`: time with the L2 flushed between repeats and report GB/s
  // against the copy (K and V read once, Q read, O and L written) instead of TFLOP/s. `precision` BF16
  // (5.05): the inputs are rounded to BF16 and held as BF16 too, for the BF16 verify and time below; the
  // checks use the BF16 bound and the result line the BF16 tensor peak.
  AttentionBench(wb::Lesson& lesson, AttentionShape shape, std::size_t workspace_elements = 0,
                 bool memory_bound = false, AttentionPrecision precision = AttentionPrecision::FP32);
  ~AttentionBench();
  AttentionBench(const AttentionBench&) = delete;
  AttentionBench& operator=(const AttentionBench&) = delete;

  const AttentionShape& shape() const { return shape_; }
  // Poisons O and L, runs the kernel once and compares the sampled rows with the double reference
  // (the derived bound); prints what is wrong to stderr. True when right and no guard was touched.
  bool verify(const std::string& what, const AttentionKernel& kernel);
  wb::TimingStats time(const AttentionKernel& kernel);
  // The same for a BF16 launcher (a bench made with AttentionPrecision::BF16): O (BF16) poisoned with
  // BF16's poison and guarded, L (FP32) poisoned; the rows against the BF16 bound.
  bool verify(const std::string& what, Bf16AttentionLauncher launch);
  wb::TimingStats time(Bf16AttentionLauncher launch);
  // The cuBLAS path on the same inputs, timed once per bench (the first call measures it).
  const wb::TimingStats& yardstick();
  // Prints "5.03  attention_flash_fp32  16x4096x64  ... TFLOP/s  % FP32 peak  1.20x of 5.02  PASS" (% BF16
  // peak for a BF16 bench), or
  // for a memory-bound bench "5.06  attention_flash_decoding  32x1x32768x128 causal ... GB/s  % HBM peak
  // % of memcpy  PASS".
  void report(const std::string& launcher, const wb::TimingStats& time, bool pass);
  // A memory-bound bench's line for the cuBLAS path itself (checked like the kernels, then timed once per
  // bench); returns its median time.
  double report_yardstick();
  // The minimum traffic of the memory-bound line: K and V read once, Q read, O and L written.
  double bytes_moved() const;

 private:
  struct Buffers;
  // Compares the sampled rows of O and L with the references and reads the guards; prints what is wrong.
  bool check_rows(const std::string& what, const std::vector<float>& o, const std::vector<float>& l,
                  const std::vector<std::pair<std::string, wb::GuardReport>>& guards);
  wb::Lesson& lesson_;
  AttentionShape shape_;
  std::unique_ptr<Buffers> buffers_;
  bool memory_bound_ = false;
  AttentionPrecision precision_ = AttentionPrecision::FP32;
  bool yardstick_done_ = false;
  wb::TimingStats yardstick_;
};

// The whole lesson of an exercise: verify, time, verify again, time the yardstick, print the line.
int run_attention_lesson(wb::Lesson& lesson, const char* launcher, const AttentionKernel& kernel, bool causal);
// 5.05's: the same for a BF16 launcher, --size default 16x4096x128 (the shape of its aim), BF16 inputs
// made from the same random floats; the line reads TFLOP/s, % of the BF16 tensor peak, and x of 5.02
// (the cuBLAS path in FP32 on the BF16 inputs widened, timed in the same run).
int run_bf16_attention_lesson(wb::Lesson& lesson, const char* launcher, Bf16AttentionLauncher launch,
                              bool causal = false);

}  // namespace p5
