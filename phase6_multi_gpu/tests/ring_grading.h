// SPDX-License-Identifier: MIT
// The grader of 6.06 ring_attention: every output row of every rank and head against phase 5's CPU
// reference in double (p5::attention_reference_row on the whole sequence) within phase 5's FP32 bound
// (p5::attention_row_tolerance: an online softmax over the row's keys, whatever the tiling). Outputs
// poisoned, the unused tail of each rank's shard buffer checked, guards checked; the ring's receive
// buffers and state filled with NaN before each run and every copy held 2 ms, so a block used before it
// arrived reads NaN every time; one rank's inputs arrive late and another rank is held after the
// barrier. Logits near 1e4 (p5's HugeLogits) for the merge's overflow. When a row is wrong, its L says
// whether keys were lost (L too small) or counted twice (L too large).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "phase5_attention/harness/reference.h"
#include "phase6_multi_gpu/harness/ring_support.h"
#include "phase6_multi_gpu/tests/grading.h"

namespace p6 {
namespace test {

using RingAttentionLauncher = void (*)(const float* const* Q, const float* const* K, const float* const* V,
                                       float* const* O, float* const* L, const RingAttentionShape& shape,
                                       RankGroup& group, RingKV& kv);

struct RingCase {
  GroupSpec group;
  RingAttentionShape shape;
  p5::AttentionData data = p5::AttentionData::Uniform;
  std::string describe() const;
};

// For each group of group_specs(true) (virtual groups up to 4 ranks under WB_SANITIZE): seq 1, n - 1 (ranks without
// tokens), 33 n + 5 (uneven shards), 64 n and 257; heads 1 and 3; d 64 and 128; causal and not; logits near 1e4 at seq
// 65 n + 3; and (not under WB_SANITIZE) seq 1000, d 64, causal and not.
std::vector<RingCase> ring_attention_cases();

// Runs the launcher once on the case and judges every row: "" when right, else the report and its
// diagnosis.
std::string grade_ring_attention(const char* name, RingAttentionLauncher launch, RankGroup& group,
                                 const RingAttentionShape& shape, p5::AttentionData data, std::uint64_t seed);
void check_ring_attention(const char* name, RingAttentionLauncher launch, const RingCase& c);

}  // namespace test
}  // namespace p6
