// SPDX-License-Identifier: MIT
// Graded tests for 5.07 flash_backward (tests/backward_grading.h): BF16 Q, K, V, dO (the same random floats
// as 5.05, rounded), O and L from the forward, all between NaN canaries; dQ, dK, dV (BF16) poisoned and
// guarded, the workspace guarded. Every element of each gradient against the CPU reference in double
// within its own bound (harness/reference_backward.cpp: about 2^-7 of its magnitude for the BF16 roundings of
// P, dS and the output): seq 1 to 257 around the tiles, 1 to 3 heads, d 64 and 128, causal and not,
// seq_q != seq_k both ways, logits near +-1e4; seq 4096 against the unfused cuBLAS backward.
#include "common/testing.h"
#include "phase5_attention/tests/backward_grading.h"

TEST_CASE("attention_flash_backward matches the double reference for every shape", "[p5][5.07][gpu]") {
  const BackwardCase c = GENERATE(Catch::Generators::from_range(backward_cases(false)));
  check_backward("attention_flash_backward", attention_flash_backward, c);
}

TEST_CASE("attention_flash_backward takes seq_q != seq_k both ways", "[p5][5.07][gpu]") {
  const BackwardCase c = GENERATE(Catch::Generators::from_range(backward_cross_cases()));
  check_backward("attention_flash_backward", attention_flash_backward, c);
}

TEST_CASE("attention_flash_backward applies the causal mask, down to rows with a single visible key",
          "[p5][5.07][gpu]") {
  const BackwardCase c = GENERATE(Catch::Generators::from_range(backward_cases(true)));
  check_backward("attention_flash_backward", attention_flash_backward, c);
}

TEST_CASE("attention_flash_backward recomputes P without overflow when the logits reach 1e4", "[p5][5.07][gpu]") {
  for (const bool causal : {false, true})
    for (const BackwardCase& c : backward_huge_logit_cases(causal))
      check_backward("attention_flash_backward", attention_flash_backward, c);
}

TEST_CASE("attention_flash_backward agrees with the cuBLAS backward at seq 4096", "[p5][5.07][gpu]") {
  for (const bool causal : {false, true})
    for (const BackwardCase& c : backward_large_cases(causal))
      check_backward("attention_flash_backward", attention_flash_backward, c);
}

TEST_CASE("attention_flash_backward refuses what it does not support", "[p5][5.07][gpu]") {
  AttentionShape bad_d{1, 64, 64, 96, false};
  CHECK_THROWS_AS(attention_flash_backward(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                           nullptr, bad_d, nullptr, nullptr),
                  std::invalid_argument);
  AttentionShape causal_cross{1, 17, 65, 64, true};
  CHECK_THROWS_AS(attention_flash_backward(nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                           nullptr, causal_cross, nullptr, nullptr),
                  std::invalid_argument);
}
