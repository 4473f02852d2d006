// SPDX-License-Identifier: MIT
// Backward passes (5.07) that prove its grader: a plain one (one warp per 32 keys, one lane per key,
// FP32 arithmetic on BF16 inputs, dQ added with atomics) that is right, and the same with one planted
// bug each. Never used by lessons.
#pragma once

#include "phase5_attention/attention.cuh"

#define P5_PLANTED_BACKWARD(name)                                                                             \
  void name(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const __nv_bfloat16* O,   \
            const __nv_bfloat16* dO, const float* L, __nv_bfloat16* dQ, __nv_bfloat16* dK, __nv_bfloat16* dV, \
            const AttentionShape& shape, float* workspace, cudaStream_t stream)

P5_PLANTED_BACKWARD(planted_backward_correct);
P5_PLANTED_BACKWARD(planted_backward_d_from_o);          // D_i = sum_c O_ic
P5_PLANTED_BACKWARD(planted_backward_no_p_factor);       // dS = dP - D
P5_PLANTED_BACKWARD(planted_backward_dq_plain_store);    // dQ's accumulator written, not added to
P5_PLANTED_BACKWARD(planted_backward_no_mask);           // the causal mask dropped
P5_PLANTED_BACKWARD(planted_backward_dk_without_scale);  // dK = dS^T Q
P5_PLANTED_BACKWARD(planted_backward_drops_query_tail);  // only the first seq_q / 32 * 32 queries
// Right answers, but dS goes through shared memory to the other lanes without __syncwarp: only
// racecheck sees it (gpu.p5.sanitizer-race).
P5_PLANTED_BACKWARD(planted_backward_no_syncwarp);

#undef P5_PLANTED_BACKWARD
