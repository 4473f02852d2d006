// SPDX-License-Identifier: MIT
// Graded tests for 5.03 flash_fp32: the shared phase 5 grader (tests/grading.h): seq 1 to 1000 around the 64-row
// tiles, d 64 and 128, 1 and 3 heads, cross shapes (seq_q != seq_k, more queries than keys and fewer: 17x65
// to 1000x63, 4096x1024 and 1024x4096), logits near +-1e4, large shapes against the cuBLAS path;
// O and L both checked, inputs and outputs in guarded buffers, outputs poisoned.
// Not causal: 5.04 adds the mask.
#include "common/testing.h"
#include "phase5_attention/tests/grading.h"

namespace {
const p5::AttentionKernel kKernel = {attention_flash_fp32, nullptr};
}  // namespace

TEST_CASE("attention_flash_fp32 matches the double reference for every shape", "[p5][5.03][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(attention_cases(false)));
  check_attention("attention_flash_fp32", kKernel, c);
}

TEST_CASE("attention_flash_fp32 does not overflow when the logits reach 1e4", "[p5][5.03][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(huge_logit_cases(false)));
  check_attention("attention_flash_fp32", kKernel, c);
}

TEST_CASE("attention_flash_fp32 agrees with the cuBLAS path at seq 4096, 4096x1024 and 1024x4096", "[p5][5.03][gpu]") {
  for (const AttentionCase& c : large_cases(false)) check_attention("attention_flash_fp32", kKernel, c);
}
