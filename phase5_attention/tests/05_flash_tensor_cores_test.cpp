// SPDX-License-Identifier: MIT
// Graded tests for 5.05 flash_tensor_cores: the shared phase 5 grader (tests/grading.h) in BF16: the same
// random floats as the FP32 exercises, rounded to BF16 and uploaded as BF16 between NaN canaries; O in
// BF16 (poisoned, guarded) and L in FP32 (poisoned, guarded); seq 1 to 1000 around the tiles, d 64 and
// 128, 1 and 3 heads, causal and not (causal rows with a single visible key), cross shapes when not causal
// (seq_q != seq_k: 17x65 to 1000x63, 4096x1024 and 1024x4096), logits near +-1e4, seq 4096 and the
// lesson's 16x4096x128 against the cuBLAS path. The bound is BF16's (harness/reference.cpp): 2^-8 of
// sum p|v| for P rounded to BF16 before P V, 2^-8 of |O| for O's rounding, and the FP32 terms with
// truncating tensor-core sums; L, from the FP32 row sum, to FP32's bound.
#include "common/testing.h"
#include "phase5_attention/tests/grading.h"

TEST_CASE("attention_flash_tensor_cores matches the double reference for every shape", "[p5][5.05][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(attention_cases(false)));
  check_attention_bf16("attention_flash_tensor_cores", attention_flash_tensor_cores, c);
}

TEST_CASE("attention_flash_tensor_cores does not overflow when the logits reach 1e4", "[p5][5.05][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(huge_logit_cases(false)));
  check_attention_bf16("attention_flash_tensor_cores", attention_flash_tensor_cores, c);
}

TEST_CASE("attention_flash_tensor_cores applies the causal mask, down to rows with a single visible key",
          "[p5][5.05][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(attention_cases(true)));
  check_attention_bf16("attention_flash_tensor_cores", attention_flash_tensor_cores, c);
}

TEST_CASE("attention_flash_tensor_cores does not overflow with logits of 1e4 under the causal mask",
          "[p5][5.05][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(huge_logit_cases(true)));
  check_attention_bf16("attention_flash_tensor_cores", attention_flash_tensor_cores, c);
}

TEST_CASE("attention_flash_tensor_cores agrees with the cuBLAS path at seq 4096 and at 16x4096x128",
          "[p5][5.05][gpu]") {
  for (const bool causal : {false, true})
    for (const AttentionCase& c : bf16_large_cases(causal))
      check_attention_bf16("attention_flash_tensor_cores", attention_flash_tensor_cores, c);
}
