// SPDX-License-Identifier: MIT
// One grader for every phase 5 kernel: the CPU reference in double (O and L of every row) on shapes
// around the 64-row tiles, one large shape against the cuBLAS path (itself checked against the CPU in
// gpu.p5.grader), logits of 1e4, causal rows with a single visible key; inputs and outputs in guarded
// buffers, outputs poisoned; and, when something is wrong, a sentence naming the likely bug. The FP32
// kernels and 5.05's BF16 one go through the same core: BF16 inputs are the same random floats rounded
// to BF16 (the references use the rounded values), in BF16 buffers ringed with BF16 NaNs; O in BF16
// poisoned with BF16's poison; L in FP32; the bound is BF16's (harness/reference.cpp derives both).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/reference.h"

struct AttentionCase {
  AttentionShape shape;
  p5::AttentionData data = p5::AttentionData::Uniform;
  int splits = 0;  // 5.06: the split count the launcher is called with (0: not a decoding case)
};

// seq 1, 17, 63, 64, 65, 257, 1000 (1 and 3 heads), d 64 and 128, causal or not; seq 1000 is dropped
// under WB_SANITIZE. Not causal: cross_cases too.
std::vector<AttentionCase> attention_cases(bool causal);
// Cross attention, not causal, seq_q != seq_k on both sides: 17x65, 63x129, 64x257, 1x257, 63x1000 and
// 65x17, 129x63, 257x64, 257x1, 1000x63 (seq_q x seq_k), d 64 and 128, 2 or 3 heads, so that a K/V
// offset or a key bound taken with seq_q instead of seq_k shows. Under WB_SANITIZE: 17x65 and 65x17.
std::vector<AttentionCase> cross_cases();
// The edges of a kernel's `tile`-row query and key tiles (5.08: 128): seq tile - 1, tile, tile + 1,
// 2 tile - 1, 2 tile, 3 tile - 1 (d 64 and 128, 2 heads), and, not causal, cross shapes one row or one key
// across an edge on either side (tile + 1 x tile - 1, tile - 1 x 3 tile + 1, 1 x 2 tile, 2 tile + 1 x 1).
// None under WB_SANITIZE (attention_cases' small shapes cover the sanitizer runs).
std::vector<AttentionCase> tile_edge_cases(bool causal, int tile);
// Logits near +-1e4 at seq 65 and 257: overflow (or 0 / 0) without the max.
std::vector<AttentionCase> huge_logit_cases(bool causal);
// seq 4096 (2 heads), d 64 and 128, graded against the cuBLAS path; not causal also 4096x1024 and
// 1024x4096 (seq_q x seq_k); none under WB_SANITIZE.
std::vector<AttentionCase> large_cases(bool causal);
// 5.05: large_cases (the cross shapes too when not causal) and the lesson's 16x4096x128, graded
// against the cuBLAS path on the BF16 inputs widened; none under WB_SANITIZE.
std::vector<AttentionCase> bf16_large_cases(bool causal);

// 5.06's split heuristic (attention_decoding_splits), passed in: the grader links no exercise.
using DecodingSplitChooser = int (*)(const AttentionShape& shape, int sm_count);
// Decoding: seq_q 1, 2, 5 and 8 against seq_k 1, 17, 63, 64, 65, 257, 1000, 4096 and 32768; d 64 and 128;
// 3 heads up to seq_k 257, 1 beyond; causal (the last seq_q rows of a causal square: seq_q <= seq_k) or
// not. Each shape runs with the split count `choose` picks on this GPU and with 7 splits (uneven tails,
// and empty splits where seq_k < 7). Under WB_SANITIZE: seq_k 1, 17 and 65, seq_q 1 and 5, 2 heads.
std::vector<AttentionCase> decoding_cases(bool causal, DecodingSplitChooser choose);
// Query groups: seq_q 3, 9 and 17 against seq_k 17, 65, 257 and 1000, as decoding_cases otherwise
// (causal only where seq_q <= seq_k): 3 rows leave a padding row in a 4-row group, 9 and 17 rows take
// 2 and 3 groups of 8 whose last holds one row, so a group's first row q0 > 0 enters every index and
// the causal end. Under WB_SANITIZE: seq_k 65, seq_q 3 and 17, 2 heads.
std::vector<AttentionCase> decoding_group_cases(bool causal, DecodingSplitChooser choose);
// Logits near +-1e4 at seq_k 65, 257 and 1000 (seq_q 1 and 5): different splits reach different maxima
// a few units apart, so a merge without the max overflows.
std::vector<AttentionCase> decoding_huge_logit_cases(bool causal, DecodingSplitChooser choose);
// The lesson's shape (32 heads, 1 query, seq_k 32768, d 128) and 8 heads x 4 queries x 32768 x 64, causal,
// with the chosen split count: many splits per row. None under WB_SANITIZE.
std::vector<AttentionCase> decoding_large_cases(DecodingSplitChooser choose);

// Runs the kernel once on one case; "" when O and L are right and nothing outside them was written,
// else the report and its diagnosis. check_attention FAILs with it.
std::string grade_attention(const char* name, const p5::AttentionKernel& kernel, const AttentionCase& c,
                            std::uint64_t seed);
void check_attention(const char* name, const p5::AttentionKernel& kernel, const AttentionCase& c);

// 5.05: the same for a BF16 launcher (attention_cases, huge_logit_cases and bf16_large_cases).
std::string grade_attention_bf16(const char* name, Bf16AttentionLauncher launch, const AttentionCase& c,
                                 std::uint64_t seed);
void check_attention_bf16(const char* name, Bf16AttentionLauncher launch, const AttentionCase& c);

// The judging half of the grader, host code: `o` (BF16 results widened to float, BF16's poison turned
// into float's) and `l` are what a kernel wrote for the case's inputs `in`; "" when they are right, else
// the report and its diagnosis. Shapes small enough for the CPU reference need no GPU (the host tests
// judge models of right and wrong kernels with it); larger ones run the cuBLAS path.
std::string judge_attention(const char* name, const AttentionCase& c, const p5::AttentionInputs& in,
                            const std::vector<float>& o, const std::vector<float>& l, p5::AttentionPrecision precision);
