// SPDX-License-Identifier: MIT
// What every phase 5 lesson shares: the problem from --size, inputs on the device, sampled rows checked
// against the CPU reference in double, timing, and the cuBLAS path (5.02's computation) timed in the
// same run as the yardstick of the result line ("1.20x of 5.02").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/lesson.h"
#include "phase5_attention/attention.cuh"
#include "phase5_attention/reference.h"

namespace p5 {

// --size SEQ, SEQxD or HEADSxSEQxD (default 16x4096x64): seq_q = seq_k = SEQ, d 64 or 128.
AttentionShape parse_attention_size(const std::string& text, bool causal);

class AttentionBench {
 public:
  // Refuses (exit 2) a shape whose buffers do not fit, then makes the inputs and the reference rows.
  AttentionBench(wb::Lesson& lesson, AttentionShape shape);
  ~AttentionBench();
  AttentionBench(const AttentionBench&) = delete;
  AttentionBench& operator=(const AttentionBench&) = delete;

  const AttentionShape& shape() const { return shape_; }
  // Poisons O and L, runs the kernel once and compares the sampled rows with the double reference
  // (the derived bound); prints what is wrong to stderr. True when right and no guard was touched.
  bool verify(const std::string& what, const AttentionKernel& kernel);
  wb::TimingStats time(const AttentionKernel& kernel);
  // The cuBLAS path on the same inputs, timed once per bench (the first call measures it).
  const wb::TimingStats& yardstick();
  // Prints "5.03  attention_flash_fp32  16x4096x64  ... TFLOP/s  % FP32 peak  1.20x of 5.02  PASS".
  void report(const std::string& launcher, const wb::TimingStats& time, bool pass);

 private:
  struct Buffers;
  wb::Lesson& lesson_;
  AttentionShape shape_;
  std::unique_ptr<Buffers> buffers_;
  bool yardstick_done_ = false;
  wb::TimingStats yardstick_;
};

// The whole lesson of an exercise: verify, time, verify again, time the yardstick, print the line.
int run_attention_lesson(wb::Lesson& lesson, const char* launcher, const AttentionKernel& kernel, bool causal);

}  // namespace p5
