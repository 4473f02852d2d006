// SPDX-License-Identifier: MIT
// Graded tests for 6.06 ring_attention (tests/ring_grading.h): virtual groups of 2 to 8 ranks on one GPU,
// then real groups of 2 up to every visible GPU; sequences of 1 token, fewer tokens than ranks, shards of
// unequal length (33 n + 5), 64 n and 257; 1 and 3 heads; d 64 and 128; causal and not; logits near 1e4;
// every row of every rank against phase 5's CPU reference in double within phase 5's FP32 bound. The
// receive buffers start as NaN and every copy is held, so a block used before it arrived shows every
// time; one rank's inputs arrive late and another rank is held after the barrier. What this cannot
// see: a copy that overwrites a buffer its rank still computes with (no hold delays a compute step),
// and any race inside one GPU's kernel that no sanitizer sees across GPUs.
#include <stdexcept>

#include "common/testing.h"
#include "phase6_multi_gpu/multi_gpu.cuh"
#include "phase6_multi_gpu/tests/ring_grading.h"

TEST_CASE("ring_attention equals attention on one GPU, for any sequence and 2 to 8 ranks", "[p6][6.06][gpu]") {
  const p6::test::RingCase c = GENERATE(Catch::Generators::from_range(p6::test::ring_attention_cases()));
  p6::test::check_ring_attention("ring_attention", ring_attention, c);
}

TEST_CASE("ring_attention on a single rank is attention on one GPU", "[p6][6.06][gpu]") {
  p6::RankGroup group = p6::RankGroup::virtual_ranks(1, 0);
  for (bool causal : {false, true}) {
    const std::string verdict = p6::test::grade_ring_attention("ring_attention", ring_attention, group,
                                                               p6::RingAttentionShape{2, 100, 64, causal},
                                                               p5::AttentionData::Uniform, wb::test::seed());
    if (!verdict.empty()) FAIL(verdict);
  }
}

TEST_CASE("ring_attention refuses a head dimension other than 64 or 128", "[p6][6.06][gpu]") {
  p6::RankGroup group = p6::RankGroup::virtual_ranks(2, 0);
  CHECK_THROWS_AS(p6::RingKV(group, p6::RingAttentionShape{1, 16, 96, false}), std::invalid_argument);
  p6::RingKV kv(group, p6::RingAttentionShape{1, 16, 64, false});
  CHECK_THROWS_AS(
      ring_attention(nullptr, nullptr, nullptr, nullptr, nullptr, p6::RingAttentionShape{1, 16, 96, false}, group, kv),
      std::invalid_argument);
}
