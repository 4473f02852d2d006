// SPDX-License-Identifier: MIT
// Graded tests for 5.08 flash_hopper: 5.05's BF16 grader (tests/grading.h) on the Hopper kernel: the same
// random floats rounded to BF16, uploaded between NaN canaries; O in BF16 (poisoned, guarded) and L in FP32
// (poisoned, guarded); seq 1 to 1000 around 5.05's 64-row tiles, plus the edges of this kernel's 128-row
// query and 128-key tiles (127, 128, 129, 255, 256, 383; cross shapes such as 129x127 and 127x385), d 64
// and 128, 1 to 3 heads (a TMA box that crossed into the next head's rows shows from head 1 on), causal
// and not, logits near +-1e4, seq 4096 and the lesson's 16x4096x128 against the cuBLAS path. The bound is
// BF16's, derived in harness/reference.cpp (5.05's test says how). Needs a Hopper GPU (sm_90a): elsewhere the test
// skips with one line (exit 77). An mbarrier wait that cannot complete stops the kernel after 2 s with a
// message instead of hanging; the test then fails on the launch.
#include <stdexcept>

#include "common/testing.h"
#include "phase5_attention/tests/grading.h"

TEST_CASE("attention_flash_hopper matches the double reference for every shape", "[p5][5.08][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(attention_cases(false)));
  check_attention_bf16("attention_flash_hopper", attention_flash_hopper, c);
}

TEST_CASE("attention_flash_hopper handles the edges of its 128-row and 128-key tiles", "[p5][5.08][gpu]") {
  for (const bool causal : {false, true})
    for (const AttentionCase& c : tile_edge_cases(causal, 128))
      check_attention_bf16("attention_flash_hopper", attention_flash_hopper, c);
}

TEST_CASE("attention_flash_hopper does not overflow when the logits reach 1e4", "[p5][5.08][gpu]") {
  for (const bool causal : {false, true})
    for (const AttentionCase& c : huge_logit_cases(causal))
      check_attention_bf16("attention_flash_hopper", attention_flash_hopper, c);
}

TEST_CASE("attention_flash_hopper applies the causal mask, down to rows with a single visible key", "[p5][5.08][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(attention_cases(true)));
  check_attention_bf16("attention_flash_hopper", attention_flash_hopper, c);
}

TEST_CASE("attention_flash_hopper agrees with the cuBLAS path at seq 4096 and at 16x4096x128", "[p5][5.08][gpu]") {
  for (const bool causal : {false, true})
    for (const AttentionCase& c : bf16_large_cases(causal))
      check_attention_bf16("attention_flash_hopper", attention_flash_hopper, c);
}

TEST_CASE("attention_flash_hopper refuses a head dimension other than 64 or 128", "[p5][5.08][gpu]") {
  for (const int d : {32, 96, 256}) {
    AttentionShape shape;
    shape.heads = 1;
    shape.seq_q = shape.seq_k = 64;
    shape.d = d;
    INFO("d = " << d);
    CHECK_THROWS_AS(attention_flash_hopper(nullptr, nullptr, nullptr, nullptr, nullptr, shape, nullptr),
                    std::invalid_argument);
  }
}
