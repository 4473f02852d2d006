// SPDX-License-Identifier: MIT
// 6.06's part of the phase 6 grader's self-test: each planted ring attention must fail the grader with
// the sentence that names its bug, on virtual ranks (any GPU) and on real GPUs where there are two or
// more; the right one must pass. The cases run in order (small logits causal, then logits near 1e4);
// a plant's verdict is its first failing case's.
#include <string>
#include <vector>

#include "common/testing.h"
#include "phase6_multi_gpu/tests/ring_grading.h"
#include "phase6_multi_gpu/tests/ring_wrong.h"

TEST_CASE("the phase 6 grader accepts a right ring attention and names every planted bug", "[gpu][grader][p6]") {
  const struct {
    const char* what;
    p6::test::RingAttentionLauncher launch;
    const char* diagnosis;  // "" = the grader must accept it
  } plants[] = {
      {"a right ring", planted_ring_attention_correct, ""},
      {"a merge without the running max", planted_ring_attention_no_max, "overflow"},
      {"a K/V block skipped", planted_ring_attention_skips_block, "block skipped"},
      {"the own block used twice", planted_ring_attention_own_block_twice, "block used twice"},
      {"no wait before using the received block", planted_ring_attention_no_arrival_wait, "used before it arrived"},
      {"every block's keys at the computing rank's offset", planted_ring_attention_own_offset, "origin rank"},
  };
  for (const p6::test::GroupSpec& spec : p6::test::group_specs(true, 5)) {
    p6::RankGroup group = p6::test::make_group(spec);
    const int n = spec.ranks;
    const struct {
      p6::RingAttentionShape shape;
      p5::AttentionData data;
    } cases[] = {
        {{2, 70 * n + 3, 64, true}, p5::AttentionData::Uniform},
        {{1, 65 * n + 3, 128, false}, p5::AttentionData::HugeLogits},
    };
    for (const auto& p : plants) {
      std::string verdict;
      for (const auto& c : cases) {
        verdict = p6::test::grade_ring_attention("planted", p.launch, group, c.shape, c.data, 1);
        if (!verdict.empty()) break;
      }
      INFO("planted: " << p.what << " on " << spec.describe());
      INFO("grader said: " << verdict);
      if (std::string(p.diagnosis).empty()) {
        CHECK(verdict.empty());
      } else {
        CHECK(verdict.find(p.diagnosis) != std::string::npos);
      }
    }
  }
}
