// SPDX-License-Identifier: MIT
// 5.07 flash_backward: FlashAttention-2's backward pass on BF16 tensor cores (mma.sync).
//
// You learn: how training gets the gradients of attention without the seq_q x seq_k matrix: P is
// recomputed tile by tile from Q, K and the L that 5.05 saved; the five products (S, dP, dV, dK, dQ)
// run on 5.05's tensor-core toolkit; and the gradient that does not fit the work split: dK and dV are
// sums over queries, dQ a sum over keys, so however the blocks cut the work, some gradient's sum
// crosses blocks.
// Task: attention_flash_backward (attention.cuh): dQ, dK, dV in BF16 from BF16 Q, K, V, O, dO and FP32
// L, for causal (seq_q == seq_k) and non-causal shapes (any seq_q, seq_k), d 64 or 128, any length.
// The formulas are the paper's, in the README's 5.07 section. The workspace (FP32, its size fixed by
// attention_backward_workspace_elements) is yours.
// You decide: how the work is split over blocks (and so which gradients sum in a block's registers)
//             and how a sum that crosses blocks is completed; which warp owns which part of a block's
//             tiles; what stays in registers and what goes through shared memory; the tile sizes for
//             d 64 and 128.
// Source: Dao, "FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning" (2023),
// Algorithm 2 and section 3.1.2; PTX ISA, "Warp Level Matrix Multiply-Accumulate Instructions".
// Run:   ./workbook run 5.07 [-- --size 16x4096x128]
// Check: ./workbook check 5.07
// Aim:   >= 3x the cuBLAS backward at 16x4096x128, and >= 70% of PyTorch's FlashAttention-2 backward on the
//        same shape (tools/peer_pytorch.py).
// Previous: 5.06 flash_decoding. Next: 5.08 flash_hopper.

#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>

#include "common/workbook.h"
#include "phase1_matmul/mma_sm80.cuh"
#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/backward_lesson.h"

namespace {

using namespace wb::mma;

// ---- shared-memory tiles (5.05's) ---------------------------------------------------------------

// A tile of ROWS rows of a [rows][D] BF16 matrix is stored as D / 64 column blocks, each a swizzled
// [ROWS][64] tile (mma_sm80.cuh: 128-byte rows, chunk c of row r at c ^ (r % 8)), so every ldmatrix
// reads 8 rows from 8 different bank groups.
template <int ROWS>
__device__ inline int tile_offset(int row, int col) {
  return (col / 64) * ROWS * 64 + swizzle_offset<64>(row, col % 64);
}
// Rows row0.. of the matrix into such a tile with cp.async (rows past `rows` arrive as zeros).
template <int ROWS, int D, int THREADS>
__device__ inline void load_rows(__nv_bfloat16* tile, const __nv_bfloat16* src, int rows, int row0) {
#pragma unroll
  for (int block = 0; block < D / 64; ++block)
    load_tile_swizzled<ROWS, 64, THREADS>(tile + block * ROWS * 64, src, rows, D, row0, block * 64);
}

// TODO(5.07): write the kernels attention_flash_backward launches, and their helpers: dQ, dK and dV by
//             the README's formulas, P recomputed from S and L (nothing of size seq_q x seq_k stored),
//             every gradient element complete in BF16 whatever order the blocks run in. The products
//             on mma.sync m16n8k16; available: 5.05's toolkit (ldmatrix_x4, ldmatrix_x4_trans,
//             pack_bf16x2, mma_bf16_16816) and the tile helpers above. Mask queries past seq_q, keys
//             past seq_k and (causal) keys after the query.
}  // namespace

void attention_flash_backward(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                              const __nv_bfloat16* O, const __nv_bfloat16* dO, const float* L, __nv_bfloat16* dQ,
                              __nv_bfloat16* dK, __nv_bfloat16* dV, const AttentionShape& shape, float* workspace,
                              cudaStream_t stream) {
  validate_attention_shape(shape);
  if (shape.heads == 0) return;
  if (shape.seq_q == 0) {  // no query: no gradient reaches K or V
    CUDA_CHECK(cudaMemsetAsync(dK, 0, shape.k_elements() * sizeof(__nv_bfloat16), stream));
    CUDA_CHECK(cudaMemsetAsync(dV, 0, shape.k_elements() * sizeof(__nv_bfloat16), stream));
    return;
  }
  // TODO(5.07): launch your kernels on `stream` (the workspace holds
  //             attention_backward_workspace_elements(shape) floats, whatever they held before), each
  //             checked with CUDA_CHECK_KERNEL(); d 64 and 128 may want different tiles. Then delete the
  //             (void) line below: it only silences unused-parameter warnings.
  (void)Q, (void)K, (void)V, (void)O, (void)dO, (void)L, (void)dQ, (void)workspace, (void)stream;  // TODO(5.07)
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: the five products are 2.5 times the forward's 4 seq^2 d FLOP per head: 344 GFLOP at
// 16x4096x128, 0.35 ms at the H100's 989 TFLOP/s BF16 peak; mma.sync reaches a little over half of
// it (1.10). The cuBLAS backward (FP32) writes and reads P and dS, 1 GiB each per 16 heads at seq 4096.
int flash_backward_lesson(wb::Lesson& lesson) {
  return p5::run_backward_lesson(lesson, "attention_flash_backward", attention_flash_backward);
}

}  // namespace

WB_LESSON(flash_backward_lesson,
          "FlashAttention-2's backward on BF16 tensor cores: P recomputed, dQ across key blocks");
