// SPDX-License-Identifier: MIT
// Deliberately wrong attention launchers (and one right one) that prove the phase 5 grader fails each
// planted bug with the right diagnosis. Never used by lessons.
#pragma once

#include "phase5_attention/attention.cuh"

void planted_correct(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape,
                     cudaStream_t stream);
void planted_missing_rescale(const float* Q, const float* K, const float* V, float* O, float* L,
                             const AttentionShape& shape, cudaStream_t stream);
void planted_scale_twice(const float* Q, const float* K, const float* V, float* O, float* L,
                         const AttentionShape& shape, cudaStream_t stream);
void planted_causal_off_by_one(const float* Q, const float* K, const float* V, float* O, float* L,
                               const AttentionShape& shape, cudaStream_t stream);
void planted_no_mask(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape,
                     cudaStream_t stream);
void planted_drops_last_tile(const float* Q, const float* K, const float* V, float* O, float* L,
                             const AttentionShape& shape, cudaStream_t stream);
void planted_counts_tail_keys(const float* Q, const float* K, const float* V, float* O, float* L,
                              const AttentionShape& shape, cudaStream_t stream);
void planted_lse_without_max(const float* Q, const float* K, const float* V, float* O, float* L,
                             const AttentionShape& shape, cudaStream_t stream);
// Cross shapes: seq_q where seq_k belongs, in the K/V head offset, or as the key loop's bound. Right on
// every square shape; with seq_q < seq_k every read stays inside K and V (the self-test grades them
// there only: with seq_q > seq_k they would read past the end).
void planted_kv_head_offset_seq_q(const float* Q, const float* K, const float* V, float* O, float* L,
                                  const AttentionShape& shape, cudaStream_t stream);
void planted_key_bound_seq_q(const float* Q, const float* K, const float* V, float* O, float* L,
                             const AttentionShape& shape, cudaStream_t stream);

// What only compute-sanitizer sees: a one-warp block staging 32-key tiles of K and V in shared memory
// (not causal), right, with no barriers (racecheck), or clamping its key index to one past the end of K
// and zeroing that value (exact-input memcheck). All three give right answers.
void planted_tiled_correct(const float* Q, const float* K, const float* V, float* O, float* L,
                           const AttentionShape& shape, cudaStream_t stream);
void planted_tiled_no_barrier(const float* Q, const float* K, const float* V, float* O, float* L,
                              const AttentionShape& shape, cudaStream_t stream);
void planted_tiled_reads_past_end_masked(const float* Q, const float* K, const float* V, float* O, float* L,
                                         const AttentionShape& shape, cudaStream_t stream);

// 5.06: split-and-merge decoding (one warp per (row, split), one per row to merge), right or with one bug.
void planted_decoding_correct(const float* Q, const float* K, const float* V, float* O, float* L,
                              const AttentionShape& shape, int splits, float* workspace, cudaStream_t stream);
void planted_decoding_merge_no_rescale(const float* Q, const float* K, const float* V, float* O, float* L,
                                       const AttentionShape& shape, int splits, float* workspace, cudaStream_t stream);
void planted_decoding_drops_split_tail(const float* Q, const float* K, const float* V, float* O, float* L,
                                       const AttentionShape& shape, int splits, float* workspace, cudaStream_t stream);
void planted_decoding_lse_merged_wrong(const float* Q, const float* K, const float* V, float* O, float* L,
                                       const AttentionShape& shape, int splits, float* workspace, cudaStream_t stream);
void planted_decoding_square_mask(const float* Q, const float* K, const float* V, float* O, float* L,
                                  const AttentionShape& shape, int splits, float* workspace, cudaStream_t stream);

// 5.05: the same one-warp-per-row kernel on BF16 Q, K, V and O, FP32 arithmetic, P rounded to BF16 before
// P V (its row sum l from the unrounded p, as FlashAttention-2 keeps it) and O rounded once: right, or
// with one bug.
void planted_bf16_correct(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                          float* L, const AttentionShape& shape, cudaStream_t stream);
void planted_bf16_missing_rescale(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                  __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream);
void planted_bf16_scale_twice(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                              float* L, const AttentionShape& shape, cudaStream_t stream);
void planted_bf16_causal_off_by_one(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                    __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream);
void planted_bf16_drops_last_tile(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                  __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream);
void planted_bf16_kv_head_offset_seq_q(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                       __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream);
void planted_bf16_key_bound_seq_q(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                  __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream);

// 5.08: the solution's Hopper kernel, right or with one bug (tests/wrong_kernels_hopper.cu, compiled for
// sm_90a only: call them on a Hopper GPU only). The correct one takes d 64 and 128, causal or not; each
// planted one the head dimension and causality named in its comment only (std::invalid_argument else).
void planted_hopper_correct(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                            float* L, const AttentionShape& shape, cudaStream_t stream);
// d 128: the consumers' full-barrier waits on the other parity (stale tiles, or a trap after 2 s).
void planted_hopper_wrong_parity(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                 __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream);
// d 64: O not rescaled when the max moves (l is).
void planted_hopper_output_not_rescaled(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream);
// d 64, causal: the diagonal key tile skipped.
void planted_hopper_skips_diagonal_tile(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream);
// d 64: the last key tile's keys past seq_k not masked.
void planted_hopper_tail_unmasked(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                  __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream);
// d 64, causal: L in exp2's units.
void planted_hopper_lse_base2(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                              float* L, const AttentionShape& shape, cudaStream_t stream);
// d 128: what the source check catches: a stage released before the wgmma_wait_group that retires its
// P V; no proxy fence before the TMA store of O.
void planted_hopper_early_release(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                  __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream);
void planted_hopper_no_store_fence(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                   __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream);
