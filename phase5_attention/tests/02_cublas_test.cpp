// SPDX-License-Identifier: MIT
// Graded tests for 5.02 cublas: the shared phase 5 grader (tests/grading.h): seq 1 to 1000 around the 64-row
// tiles, d 64 and 128, 1 and 3 heads, cross shapes (seq_q != seq_k, more queries than keys and fewer: 17x65
// to 1000x63, 4096x1024 and 1024x4096), logits near +-1e4, large shapes against the cuBLAS path;
// O and L both checked, inputs and outputs in guarded buffers, outputs poisoned.
#include "common/testing.h"
#include "phase5_attention/tests/grading.h"

namespace {
const p5::AttentionKernel kKernel = {nullptr, attention_cublas};
}  // namespace

TEST_CASE("attention_cublas matches the double reference for every shape", "[p5][5.02][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(attention_cases(false)));
  check_attention("attention_cublas", kKernel, c);
}

TEST_CASE("attention_cublas does not overflow when the logits reach 1e4", "[p5][5.02][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(huge_logit_cases(false)));
  check_attention("attention_cublas", kKernel, c);
}

TEST_CASE("attention_cublas applies the causal mask, down to rows with a single visible key", "[p5][5.02][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(attention_cases(true)));
  check_attention("attention_cublas", kKernel, c);
}

TEST_CASE("attention_cublas does not overflow with logits of 1e4 under the causal mask", "[p5][5.02][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(huge_logit_cases(true)));
  check_attention("attention_cublas", kKernel, c);
}

TEST_CASE("attention_cublas agrees with the cuBLAS path at seq 4096, 4096x1024 and 1024x4096", "[p5][5.02][gpu]") {
  for (const AttentionCase& c : large_cases(false)) check_attention("attention_cublas", kKernel, c);
}
