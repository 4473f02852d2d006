// SPDX-License-Identifier: MIT
// 5.05 flash_tensor_cores: FlashAttention-2's forward pass on BF16 tensor cores (mma.sync).
//
// You learn: the 5.03 algorithm with both products on tensor cores, which is how FlashAttention-2 runs
// on Ampere and Hopper. Q, K, V are BF16; S = Q K^T and O += P V are mma.sync m16n8k16 with FP32
// accumulators (1.10's instruction and its toolkit, phase1_matmul/mma_sm80.cuh). The work split is
// FlashAttention-2's: each warp owns 16 query rows, so a row's scores all sit in one warp, in the 4
// lanes of a quad (the accumulator layout), and its max and sum need two shuffles, never shared memory
// or a barrier. The probabilities never leave registers either: the FP32 score accumulators of two
// neighbouring 8-key tiles, rounded to BF16 pairs, are exactly the A fragment of the next mma (P V).
// V is stored [key][d], with the keys (the k of P V) along its rows, so ldmatrix .trans turns it into
// the K-major B fragment. K and V tiles are double-buffered with cp.async; exp2 with log2(e) folded into
// the scale saves a multiply per score.
// Task: write the four device functions: a tile's scores, the online softmax update (with the rescale
// of O), the P V product from the score registers, and the epilogue. Loads, masks and the loop are given.
// You decide: how a row's max and sum are combined across the lanes that hold it; how a fully masked
//             row avoids NaN; which score registers form each A fragment of P V.
// Source: Dao, "FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning" (2023): the
// online softmax on tensor cores; PTX ISA, "Warp Level Matrix Multiply-Accumulate Instructions".
// Run:   ./workbook run 5.05 [-- --size 16x4096x128]
// Check: ./workbook check 5.05
// Aim:   >= 2x 5.02 at 16x4096x128 (the reference: 7x), and >= 70% of PyTorch's FlashAttention-2
//        backend on the same shape (the reference: about 78%, measured beside it).
// Previous: 5.04 flash_causal. Next: 5.06 flash_decoding.

#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>

#include "common/workbook.h"
#include "phase1_matmul/mma_sm80.cuh"
#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/lesson_support.h"

namespace {

using namespace wb::mma;

constexpr float kLog2e = 1.4426950408889634f;

// ---- shared-memory tiles ------------------------------------------------------------------------

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

// ---- the warp's pieces ---------------------------------------------------------------------------
// Every array below is per lane, in the mma.sync accumulator layout: for an n8 tile t, [t][0] and
// [t][1] are row lane / 4, columns 8 t + 2 (lane % 4) and + 1; [t][2] and [t][3] the same columns of
// row lane / 4 + 8. So each lane holds parts of two rows, and a row lives in the 4 lanes of a quad.

// s = Q K^T for the warp's 16 query rows and the tile's BC keys: D / 16 k-steps of BC / 8 mma each.
// q holds the warp's Q rows as A fragments (one per 16 columns of d); the K tile is [BC][D], one key
// per row, which is the K-major B operand as it stands.
template <int D, int BC>
__device__ void tile_scores(float (&s)[BC / 8][4], const std::uint32_t (&q)[D / 16][4], const __nv_bfloat16* k_tile,
                            int lane) {
#pragma unroll
  for (int t = 0; t < BC / 8; ++t) s[t][0] = s[t][1] = s[t][2] = s[t][3] = 0.0f;
#pragma unroll
  for (int kd = 0; kd < D / 16; ++kd) {
#pragma unroll
    for (int t = 0; t < BC / 8; t += 2) {
      // Two 8-key tiles per ldmatrix_x4: (keys 0-7, d lo), (keys 0-7, d hi), (keys 8-15, d lo), (keys 8-15, d hi).
      std::uint32_t r[4];
      ldmatrix_x4(r, k_tile + tile_offset<BC>(t * 8 + lane % 8 + (lane / 16) * 8, kd * 16 + ((lane / 8) % 2) * 8));
      mma_bf16_16816(s[t], q[kd], r[0], r[1]);
      mma_bf16_16816(s[t + 1], q[kd], r[2], r[3]);
    }
  }
}

// The online softmax of one tile (scores already scaled into log2 units and masked to -inf): 5.03's
// update in base 2, for each of the lane's two rows, with s replaced by the tile's unnormalized
// probabilities (accumulate_pv reads them there). row_max must be the same in the 4 lanes of a row;
// row_sum may stay this lane's share until the epilogue.
template <int D, int BC>
__device__ void online_softmax(float (&s)[BC / 8][4], float (&row_max)[2], float (&row_sum)[2], float (&o)[D / 8][4]) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float m = row_max[h];
#pragma unroll
    for (int t = 0; t < BC / 8; ++t) m = fmaxf(m, fmaxf(s[t][2 * h], s[t][2 * h + 1]));
    // The row's other keys are in the other 3 lanes of the quad (lanes differing in bits 0 and 1).
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
    // A row whose keys so far are all masked keeps m = -inf; subtracting 0 then keeps exp2 at 0
    // instead of exp2(-inf + inf) = NaN.
    const float m_safe = m == -INFINITY ? 0.0f : m;
    const float correction = exp2f(row_max[h] - m_safe);
    row_max[h] = m;
    float sum = 0.0f;
#pragma unroll
    for (int t = 0; t < BC / 8; ++t) {
      s[t][2 * h] = exp2f(s[t][2 * h] - m_safe);
      s[t][2 * h + 1] = exp2f(s[t][2 * h + 1] - m_safe);
      sum += s[t][2 * h] + s[t][2 * h + 1];
    }
    row_sum[h] = row_sum[h] * correction + sum;
#pragma unroll
    for (int t = 0; t < D / 8; ++t) {
      o[t][2 * h] *= correction;
      o[t][2 * h + 1] *= correction;
    }
  }
}

// o += P V over the tile's BC keys, P straight from the score registers (no shared memory): the A
// operand of a 16-key step is built from the accumulators of the score tiles that cover those keys.
// V is [key][d], so its rows are this product's k.
template <int D, int BC>
__device__ void accumulate_pv(float (&o)[D / 8][4], const float (&p)[BC / 8][4], const __nv_bfloat16* v_tile,
                              int lane) {
#pragma unroll
  for (int kb = 0; kb < BC / 16; ++kb) {
    // Keys 16 kb..16 kb + 15 are score tiles 2 kb and 2 kb + 1, rounded to BF16 pairs: a0 = row lo of
    // tile 2 kb, a1 = row hi of tile 2 kb, a2 and a3 the same of tile 2 kb + 1 (the A fragment order).
    const std::uint32_t a[4] = {pack_bf16x2(p[2 * kb][0], p[2 * kb][1]), pack_bf16x2(p[2 * kb][2], p[2 * kb][3]),
                                pack_bf16x2(p[2 * kb + 1][0], p[2 * kb + 1][1]),
                                pack_bf16x2(p[2 * kb + 1][2], p[2 * kb + 1][3])};
#pragma unroll
    for (int t = 0; t < D / 8; t += 2) {
      // ldmatrix .trans makes each 8 x 8 block of V K-major: two d tiles per call.
      std::uint32_t r[4];
      ldmatrix_x4_trans(r,
                        v_tile + tile_offset<BC>(kb * 16 + lane % 8 + ((lane / 8) % 2) * 8, t * 8 + (lane / 16) * 8));
      mma_bf16_16816(o[t], a, r[0], r[1]);
      mma_bf16_16816(o[t + 1], a, r[2], r[3]);
    }
  }
}

// The epilogue for the lane's two rows (row0 and row0 + 8 of the head, if they exist): O rounded to
// BF16 once (a lane's column pairs: 4-byte stores) and L in natural log (attention.cuh), once per row;
// row_max is in log2 units, and row_sum holds this lane's share only.
template <int D>
__device__ void store_rows(const float (&o)[D / 8][4], const float (&row_max)[2], float (&row_sum)[2],
                           __nv_bfloat16* o_head, float* l_head, int row0, int seq_q, int lane) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 1);
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 2);
    const int row = row0 + h * 8;
    if (row >= seq_q) continue;
    const float inv = 1.0f / row_sum[h];
    __nv_bfloat16* out = o_head + static_cast<std::size_t>(row) * D + (lane % 4) * 2;
#pragma unroll
    for (int t = 0; t < D / 8; ++t)
      *reinterpret_cast<__nv_bfloat162*>(out + t * 8) = __floats2bfloat162_rn(o[t][2 * h] * inv, o[t][2 * h + 1] * inv);
    if (lane % 4 == 0) l_head[row] = (row_max[h] + log2f(row_sum[h])) / kLog2e;
  }
}

// ---- kernel ---------------------------------------------------------------------------------------

// Block (x, head): BR query rows (BR / 16 warps) against the head's keys, BC keys per tile. Shared
// memory: the Q tile, then two K and two V tiles (the one being read, the one being filled).
template <int D, int BR, int BC, bool CAUSAL>
__global__ void __launch_bounds__(BR / 16 * 32)
    flash_tensor_cores_kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
                              const __nv_bfloat16* __restrict__ V, __nv_bfloat16* __restrict__ O, float* __restrict__ L,
                              int seq_q, int seq_k, float scale_log2) {
  constexpr int kThreads = BR / 16 * 32;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __nv_bfloat16* Qs = reinterpret_cast<__nv_bfloat16*>(smem_raw);  // [BR][D]
  __nv_bfloat16* Ks = Qs + BR * D;                                 // [2][BC][D]
  __nv_bfloat16* Vs = Ks + 2 * BC * D;                             // [2][BC][D]

  const int head = blockIdx.y;
  // Causal: within each head the query tiles with the most key tiles start first (longest first, as
  // in 5.04, though 5.04 starts every head's longest tile before any head's second).
  const int q0 = (CAUSAL ? gridDim.x - 1 - blockIdx.x : blockIdx.x) * BR;
  const std::size_t q_base = static_cast<std::size_t>(head) * seq_q, k_base = static_cast<std::size_t>(head) * seq_k;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_row0 = q0 + warp * 16;  // the warp's first query row
  const int all_tiles = wb::ceil_div(seq_k, BC);
  // Causal: key tiles past the block's last query row are all masked: skip them.
  const int key_tiles = CAUSAL ? min(all_tiles, wb::ceil_div(q0 + BR, BC)) : all_tiles;

  load_rows<BR, D, kThreads>(Qs, Q + q_base * D, seq_q, q0);
  load_rows<BC, D, kThreads>(Ks, K + k_base * D, seq_k, 0);
  load_rows<BC, D, kThreads>(Vs, V + k_base * D, seq_k, 0);
  cp_async_commit();

  float o[D / 8][4] = {};
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
  std::uint32_t q[D / 16][4];

  for (int j = 0; j < key_tiles; ++j) {
    const int buf = j & 1;
    if (j + 1 < key_tiles) {  // the next K and V into the other buffers, free since the last barrier
      load_rows<BC, D, kThreads>(Ks + (buf ^ 1) * BC * D, K + k_base * D, seq_k, (j + 1) * BC);
      load_rows<BC, D, kThreads>(Vs + (buf ^ 1) * BC * D, V + k_base * D, seq_k, (j + 1) * BC);
    }
    cp_async_commit();
    cp_async_wait<1>();  // everything but that prefetch has landed (for this thread; the barrier: for all)
    __syncthreads();
    if (j == 0) {  // the warp's 16 query rows as A fragments, once: they stay in registers
#pragma unroll
      for (int kd = 0; kd < D / 16; ++kd)
        ldmatrix_x4(q[kd], Qs + tile_offset<BR>(warp * 16 + lane % 16, kd * 16 + (lane / 16) * 8));
    }

    float s[BC / 8][4];
    tile_scores<D, BC>(s, q, Ks + buf * BC * D, lane);
    // Scale into log2 units; mask keys past seq_k and (causal) keys after the row's query.
    const int key0 = j * BC;
    const bool masked = key0 + BC > seq_k || (CAUSAL && key0 + BC - 1 > warp_row0);
#pragma unroll
    for (int t = 0; t < BC / 8; ++t)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int key = key0 + t * 8 + (lane % 4) * 2 + (e & 1), row = warp_row0 + lane / 4 + (e / 2) * 8;
        s[t][e] = masked && (key >= seq_k || (CAUSAL && key > row)) ? -INFINITY : s[t][e] * scale_log2;
      }
    online_softmax<D, BC>(s, row_max, row_sum, o);
    accumulate_pv<D, BC>(o, s, Vs + buf * BC * D, lane);
    __syncthreads();  // every warp is done with buffer `buf` before the next iteration refills it
  }
  cp_async_wait<0>();
  store_rows<D>(o, row_max, row_sum, O + q_base * D, L + q_base, warp_row0 + lane / 4, seq_q, lane);
}

template <int D, int BR, int BC, bool CAUSAL>
void launch_flash(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O, float* L,
                  const AttentionShape& shape, cudaStream_t stream) {
  constexpr int kSmemBytes = (BR + 4 * BC) * D * int(sizeof(__nv_bfloat16));
  const auto kernel = flash_tensor_cores_kernel<D, BR, BC, CAUSAL>;
  if constexpr (kSmemBytes > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  const dim3 grid(static_cast<unsigned>(wb::ceil_div(shape.seq_q, BR)), static_cast<unsigned>(shape.heads));
  kernel<<<grid, BR / 16 * 32, kSmemBytes, stream>>>(Q, K, V, O, L, shape.seq_q, shape.seq_k,
                                                     attention_scale(shape.d) * kLog2e);
  CUDA_CHECK_KERNEL();
}

}  // namespace

// d = 128: 64 query rows (4 warps) x 64 keys, 80 KB of shared memory, 2 blocks per SM; d = 64: 128
// rows (8 warps) x 64 keys, 48 KB. Measured on an H100 (one sweep): at 16x4096x128, 257 TFLOP/s with
// 64-row blocks against 205 with 128 rows and 233 with 32-key tiles; at 16x4096x64, 225 with 128 rows
// against 205 with 64.
void attention_flash_tensor_cores(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                  __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream) {
  validate_attention_shape(shape);
  if (shape.heads == 0 || shape.seq_q == 0) return;
  if (shape.d == 64) {
    if (shape.causal)
      launch_flash<64, 128, 64, true>(Q, K, V, O, L, shape, stream);
    else
      launch_flash<64, 128, 64, false>(Q, K, V, O, L, shape, stream);
  } else {
    if (shape.causal)
      launch_flash<128, 64, 64, true>(Q, K, V, O, L, shape, stream);
    else
      launch_flash<128, 64, 64, false>(Q, K, V, O, L, shape, stream);
  }
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 4 seq^2 d FLOP per head (halved for causal): 137 GFLOP at 16x4096x128, 0.14 ms at the
// H100's 989 TFLOP/s BF16 peak, against about 4 ms for the cuBLAS path of 5.02 (FP32, and the scores
// written to and read back from memory). mma.sync reaches a little over half of the BF16 peak on an
// H100 (1.10); the softmax adds an exp2 and a few FP32 operations per score on top.
int flash_tensor_cores_lesson(wb::Lesson& lesson) {
  return p5::run_bf16_attention_lesson(lesson, "attention_flash_tensor_cores", attention_flash_tensor_cores);
}

}  // namespace

WB_LESSON(flash_tensor_cores_lesson, "FlashAttention-2 on BF16 tensor cores: mma.sync, ldmatrix, cp.async");
