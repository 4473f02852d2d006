// SPDX-License-Identifier: MIT
// Graded tests for 5.06 flash_decoding: the shared phase 5 grader (tests/grading.h) on decoding shapes: seq_q
// 1, 2, 5 and 8 against seq_k 1 to 32768, and seq_q 3, 9 and 17 (several query groups) against seq_k 17 to
// 1000, d 64 and 128, 1 and 3 heads, causal (query i sees keys j <= seq_k - seq_q + i) and not, each with the
// split count attention_decoding_splits picks and with 7 splits (uneven tails, empty splits); logits near
// +-1e4; the lesson's shape with its many splits. O and L both checked, inputs and outputs in guarded
// buffers, outputs poisoned. And the split count itself: it must give the GPU enough warps on a long cache.
#include <string>

#include "common/device.h"
#include "common/testing.h"
#include "phase5_attention/tests/grading.h"

namespace {
const p5::AttentionKernel kKernel = {attention_flash_decoding, 1};  // each case sets its split count
}  // namespace

TEST_CASE("attention_flash_decoding matches the double reference for every split count", "[p5][5.06][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(decoding_cases(false, attention_decoding_splits)));
  check_attention("attention_flash_decoding", kKernel, c);
}

TEST_CASE("attention_flash_decoding lets query i see keys up to seq_k - seq_q + i under the causal mask",
          "[p5][5.06][gpu]") {
  const AttentionCase c = GENERATE(Catch::Generators::from_range(decoding_cases(true, attention_decoding_splits)));
  check_attention("attention_flash_decoding", kKernel, c);
}

TEST_CASE("attention_flash_decoding gives every query group its own rows, slots and causal end", "[p5][5.06][gpu]") {
  // A warp takes up to 8 query rows (4 for seq_q 3 and 4, 2 for 2). seq_q 3 runs the 4-row warps with a
  // padding row, which nothing may store; 9 and 17 split the rows into groups of 8, so the group's first
  // row q0 is 8 or 16: a partial stored at row r instead of q0 + r, padding rows picked by r < seq_q,
  // a head taken as warp / splits without dividing by the groups, or a causal end from r alone, are all
  // right while seq_q <= 8 and wrong here.
  for (bool causal : {false, true}) {
    for (const AttentionCase& c : decoding_group_cases(causal, attention_decoding_splits))
      check_attention("attention_flash_decoding", kKernel, c);
  }
}

TEST_CASE("attention_flash_decoding merges splits without overflow when the logits reach 1e4", "[p5][5.06][gpu]") {
  for (bool causal : {false, true}) {
    for (const AttentionCase& c : decoding_huge_logit_cases(causal, attention_decoding_splits))
      check_attention("attention_flash_decoding", kKernel, c);
  }
}

TEST_CASE("attention_flash_decoding handles the lesson's shapes with their many splits", "[p5][5.06][gpu]") {
  for (const AttentionCase& c : decoding_large_cases(attention_decoding_splits))
    check_attention("attention_flash_decoding", kKernel, c);
}

TEST_CASE("attention_decoding_splits gives the GPU enough warps on a long KV cache", "[p5][5.06][gpu]") {
  // One query row per head leaves one warp per head with one split: 32 warps for 132 SMs. The count must
  // give the GPU at least as many warps as SMs (a floor: aim for several per SM), and always be
  // at least 1.
  const int sms = wb::current_sm_count();
  for (const AttentionShape shape : {AttentionShape{32, 1, 32768, 128, true}, AttentionShape{1, 1, 32768, 64, true},
                                     AttentionShape{8, 4, 16384, 128, true}}) {
    const int splits = attention_decoding_splits(shape, sms);
    const long long warps = static_cast<long long>(shape.heads) * splits;  // seq_q <= 8: one query group
    INFO(shape.heads << " heads x " << shape.seq_q << " queries x " << shape.seq_k << " keys, d " << shape.d
                     << ": attention_decoding_splits returned " << splits << " (" << warps << " warps for " << sms
                     << " SMs)");
    if (splits < 1) FAIL("attention_decoding_splits must return at least 1: the launcher refuses 0 splits.");
    if (warps < sms)
      FAIL("only " + std::to_string(warps) + " warps for " + std::to_string(sms) +
           " SMs: split each head's keys until heads x splits passes the SM count a few times over (the "
           "number of SMs is the function's second argument).");
  }
  // A tiny cache needs no splitting at all: it must still get at least one split, and never more splits
  // than could hold a key each.
  for (int seq_k : {1, 17}) {
    const int splits = attention_decoding_splits(AttentionShape{1, 1, seq_k, 64, false}, sms);
    INFO("1 head x 1 query x " << seq_k << " keys: attention_decoding_splits returned " << splits);
    CHECK(splits >= 1);
    CHECK(splits <= seq_k);
  }
}
