// SPDX-License-Identifier: MIT
// 6.06's planted ring attentions for the grader's self-test: a right one and one bug each. Never used
// by lessons.
#pragma once

#include "phase6_multi_gpu/harness/ring_support.h"

#define WB_DECLARE_PLANTED_RING(fn)                                                                              \
  void fn(const float* const* Q, const float* const* K, const float* const* V, float* const* O, float* const* L, \
          const p6::RingAttentionShape& shape, p6::RankGroup& group, p6::RingKV& kv)
WB_DECLARE_PLANTED_RING(planted_ring_attention_correct);
// The merge without the running max: exp(s) straight (overflows at logits of 1e4).
WB_DECLARE_PLANTED_RING(planted_ring_attention_no_max);
// The last step skipped: one K/V block never reaches each rank.
WB_DECLARE_PLANTED_RING(planted_ring_attention_skips_block);
// The rank's own block computed with again at the end: used twice.
WB_DECLARE_PLANTED_RING(planted_ring_attention_own_block_twice);
// No wait for the upstream copy before computing with the received block.
WB_DECLARE_PLANTED_RING(planted_ring_attention_no_arrival_wait);
// Every block's keys placed at the computing rank's offset instead of its origin rank's.
WB_DECLARE_PLANTED_RING(planted_ring_attention_own_offset);
