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

constexpr float kLog2e = 1.4426950408889634f;

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

// ---- the warp's products ------------------------------------------------------------------------
// Accumulators in the mma.sync layout (5.05): for an n8 tile t, [t][0..1] are row lane / 4, columns
// 8 t + 2 (lane % 4) and + 1; [t][2..3] the same columns of row lane / 4 + 8.

// acc = A B^T for A = rows a_row0..a_row0 + 15 of a [AROWS][D] tile and B = all N rows of a [N][D] tile:
// both K-major as stored (S^T = K Q^T and dP^T = V dO^T: the warp's 16 keys against the query tile).
template <int D, int N, int AROWS>
__device__ void product_abt(float (&acc)[N / 8][4], const __nv_bfloat16* a_tile, int a_row0,
                            const __nv_bfloat16* b_tile, int lane) {
#pragma unroll
  for (int t = 0; t < N / 8; ++t) acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.0f;
#pragma unroll
  for (int kd = 0; kd < D / 16; ++kd) {
    std::uint32_t a[4];
    ldmatrix_x4(a, a_tile + tile_offset<AROWS>(a_row0 + lane % 16, kd * 16 + (lane / 16) * 8));
#pragma unroll
    for (int t = 0; t < N / 8; t += 2) {
      std::uint32_t r[4];
      ldmatrix_x4(r, b_tile + tile_offset<N>(t * 8 + lane % 8 + (lane / 16) * 8, kd * 16 + ((lane / 8) % 2) * 8));
      mma_bf16_16816(acc[t], a, r[0], r[1]);
      mma_bf16_16816(acc[t + 1], a, r[2], r[3]);
    }
  }
}

// acc += X B for X (16 x N) in accumulator registers, rounded to BF16 pairs as the A fragment (5.05's
// P V), and B a [N][D] tile whose rows are this product's k (dV += P^T dO, dK += dS^T Q).
template <int D, int N>
__device__ void product_xb(float (&acc)[D / 8][4], const float (&x)[N / 8][4], const __nv_bfloat16* b_tile, int lane) {
#pragma unroll
  for (int kb = 0; kb < N / 16; ++kb) {
    const std::uint32_t a[4] = {pack_bf16x2(x[2 * kb][0], x[2 * kb][1]), pack_bf16x2(x[2 * kb][2], x[2 * kb][3]),
                                pack_bf16x2(x[2 * kb + 1][0], x[2 * kb + 1][1]),
                                pack_bf16x2(x[2 * kb + 1][2], x[2 * kb + 1][3])};
#pragma unroll
    for (int t = 0; t < D / 8; t += 2) {
      std::uint32_t r[4];
      ldmatrix_x4_trans(r, b_tile + tile_offset<N>(kb * 16 + lane % 8 + ((lane / 8) % 2) * 8, t * 8 + (lane / 16) * 8));
      mma_bf16_16816(acc[t], a, r[0], r[1]);
      mma_bf16_16816(acc[t + 1], a, r[2], r[3]);
    }
  }
}

// acc = dS K for 16 query rows (q_row0..) and COLS columns of d (col0..): dS^T is stored [BC keys][BR
// queries], so ldmatrix .trans turns it into the A fragment (rows = queries, k = keys); K is [BC][D],
// its rows the k of this product: .trans again for the B fragment.
template <int BC, int BR, int COLS>
__device__ void product_ds_k(float (&acc)[COLS / 8][4], const __nv_bfloat16* ds_tile, int q_row0,
                             const __nv_bfloat16* k_tile, int col0, int lane) {
#pragma unroll
  for (int t = 0; t < COLS / 8; ++t) acc[t][0] = acc[t][1] = acc[t][2] = acc[t][3] = 0.0f;
#pragma unroll
  for (int kb = 0; kb < BC / 16; ++kb) {
    std::uint32_t a[4];
    ldmatrix_x4_trans(a,
                      ds_tile + tile_offset<BC>(kb * 16 + lane % 8 + (lane / 16) * 8, q_row0 + ((lane / 8) % 2) * 8));
#pragma unroll
    for (int t = 0; t < COLS / 8; t += 2) {
      std::uint32_t r[4];
      ldmatrix_x4_trans(
          r, k_tile + tile_offset<BC>(kb * 16 + lane % 8 + ((lane / 8) % 2) * 8, col0 + t * 8 + (lane / 16) * 8));
      mma_bf16_16816(acc[t], a, r[0], r[1]);
      mma_bf16_16816(acc[t + 1], a, r[2], r[3]);
    }
  }
}

// ---- kernels ------------------------------------------------------------------------------------

// One warp per query row: D_i = sum_c dO_ic O_ic in FP32, and row i of dQ's FP32 accumulator zeroed
// (when there is one: dq_acc null for the two-pass dQ).
template <int D>
__global__ void backward_prologue_kernel(const __nv_bfloat16* __restrict__ O, const __nv_bfloat16* __restrict__ dO,
                                         float* __restrict__ dq_acc, float* __restrict__ Dsum, std::size_t rows) {
  const std::size_t row = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float sum = 0.0f;
#pragma unroll
  for (int c = lane * 2; c < D; c += 64) {
    const float2 o = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(O + row * D + c));
    const float2 g = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(dO + row * D + c));
    sum += o.x * g.x + o.y * g.y;
    if (dq_acc != nullptr) *reinterpret_cast<float2*>(dq_acc + row * D + c) = make_float2(0.0f, 0.0f);
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0) Dsum[row] = sum;
}

// dQ = scale * the FP32 accumulator, rounded to BF16: two elements per thread.
__global__ void backward_epilogue_kernel(const float* __restrict__ dq_acc, __nv_bfloat16* __restrict__ dQ,
                                         std::size_t pairs, float scale) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= pairs) return;
  const float2 v = reinterpret_cast<const float2*>(dq_acc)[i];
  reinterpret_cast<__nv_bfloat162*>(dQ)[i] = __floats2bfloat162_rn(v.x * scale, v.y * scale);
}

// Block (x, head): BC = 16 WARPS keys (each warp owns 16 of them: its rows of dK and dV stay in its
// registers) against the head's query tiles of BR rows, Q and dO double-buffered with cp.async. Per
// query tile: S^T and dP^T for the warp's keys (product_abt), P^T, dS^T, dV += P^T dO and dK += dS^T Q
// from registers (product_xb); dS^T to shared memory; then every warp takes a 16-row x COLS part of the
// tile's dQ = dS K and adds it into the FP32 accumulator with atomics (other key blocks add theirs).
// Without ATOMIC_DQ the dQ part is left to flash_backward_dq_kernel (a second pass).
template <int D, int WARPS, int BR, bool CAUSAL, bool ATOMIC_DQ>
__global__ void __launch_bounds__(WARPS * 32)
    flash_backward_kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
                          const __nv_bfloat16* __restrict__ V, const __nv_bfloat16* __restrict__ dO,
                          const float* __restrict__ L, const float* __restrict__ Dsum, float* __restrict__ dq_acc,
                          __nv_bfloat16* __restrict__ dK, __nv_bfloat16* __restrict__ dV, int seq_q, int seq_k,
                          float scale, float scale_log2) {
  constexpr int kThreads = WARPS * 32, BC = WARPS * 16;
  constexpr int kRowSlices = BR / 16, kWarpsPerSlice = WARPS / kRowSlices, kCols = D / kWarpsPerSlice;
  constexpr int kChunk = kCols < 64 ? kCols : 64;  // dQ columns per pass (accumulator registers)
  static_assert(BR == 32 || BR == 64, "a dS^T row is one 64-column swizzled block (half used at BR = 32)");
  static_assert(WARPS % kRowSlices == 0 && kCols % 16 == 0, "the dQ tile must split evenly over the warps");
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __nv_bfloat16* Ks = reinterpret_cast<__nv_bfloat16*>(smem_raw);  // [BC][D]
  __nv_bfloat16* Vs = Ks + BC * D;                                 // [BC][D]
  __nv_bfloat16* Qs = Vs + BC * D;                                 // [2][BR][D]
  __nv_bfloat16* dOs = Qs + 2 * BR * D;                            // [2][BR][D]
  __nv_bfloat16* dSs = dOs + 2 * BR * D;                           // [BC][64]: dS^T
  float* Ls = reinterpret_cast<float*>(dSs + BC * 64);             // [BR]: L log2 e
  float* Ds = Ls + BR;                                             // [BR]

  const int head = blockIdx.y, k0 = blockIdx.x * BC;
  const std::size_t q_base = static_cast<std::size_t>(head) * seq_q, k_base = static_cast<std::size_t>(head) * seq_k;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int q_tiles = wb::ceil_div(seq_q, BR);
  // Causal: query tiles that end before the block's first key see none of its keys.
  const int first_tile = CAUSAL ? k0 / BR : 0;

  load_rows<BC, D, kThreads>(Ks, K + k_base * D, seq_k, k0);
  load_rows<BC, D, kThreads>(Vs, V + k_base * D, seq_k, k0);
  load_rows<BR, D, kThreads>(Qs, Q + q_base * D, seq_q, first_tile * BR);
  load_rows<BR, D, kThreads>(dOs, dO + q_base * D, seq_q, first_tile * BR);
  cp_async_commit();

  float dk[D / 8][4] = {}, dv[D / 8][4] = {};
  const int key_row0 = warp * 16;  // the warp's keys in the block

  for (int it = first_tile; it < q_tiles; ++it) {
    const int buf = (it - first_tile) & 1, q0 = it * BR;
    if (threadIdx.x < BR) {
      const int q = q0 + static_cast<int>(threadIdx.x);
      Ls[threadIdx.x] = q < seq_q ? L[q_base + q] * kLog2e : 0.0f;
      Ds[threadIdx.x] = q < seq_q ? Dsum[q_base + q] : 0.0f;
    }
    cp_async_wait<0>();
    __syncthreads();  // this tile has landed for everyone, and everyone is done with the last one
    if (it + 1 < q_tiles) {
      load_rows<BR, D, kThreads>(Qs + (buf ^ 1) * BR * D, Q + q_base * D, seq_q, q0 + BR);
      load_rows<BR, D, kThreads>(dOs + (buf ^ 1) * BR * D, dO + q_base * D, seq_q, q0 + BR);
    }
    cp_async_commit();
    const __nv_bfloat16* q_tile = Qs + buf * BR * D;
    const __nv_bfloat16* do_tile = dOs + buf * BR * D;

    float s[BR / 8][4], dp[BR / 8][4];
    product_abt<D, BR, BC>(s, Ks, key_row0, q_tile, lane);
    product_abt<D, BR, BC>(dp, Vs, key_row0, do_tile, lane);
    // P^T = exp2(S^T scale log2 e - L log2 e), 0 for queries past seq_q, keys past seq_k and (causal)
    // keys after the query; then dS^T = P^T (dP^T - D) in place of dP^T.
    const bool masked = q0 + BR > seq_q || k0 + BC > seq_k || (CAUSAL && q0 < k0 + BC - 1);
#pragma unroll
    for (int t = 0; t < BR / 8; ++t)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int qc = t * 8 + (lane % 4) * 2 + (e & 1), key = k0 + key_row0 + lane / 4 + (e / 2) * 8;
        const int q = q0 + qc;
        const bool off = masked && (q >= seq_q || key >= seq_k || (CAUSAL && key > q));
        s[t][e] = off ? 0.0f : exp2f(fmaf(s[t][e], scale_log2, -Ls[qc]));
        dp[t][e] = s[t][e] * (dp[t][e] - Ds[qc]);
      }
    product_xb<D, BR>(dv, s, do_tile, lane);
    product_xb<D, BR>(dk, dp, q_tile, lane);
    // Without ATOMIC_DQ the second pass computes dQ. With it: dS^T in BF16 for every warp's dQ product.
    if constexpr (ATOMIC_DQ) {
#pragma unroll
      for (int t = 0; t < BR / 8; ++t)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          *reinterpret_cast<std::uint32_t*>(dSs +
                                            tile_offset<BC>(key_row0 + lane / 4 + h * 8, t * 8 + (lane % 4) * 2)) =
              pack_bf16x2(dp[t][2 * h], dp[t][2 * h + 1]);
      __syncthreads();  // dS^T complete

      const int q_row0 = (warp % kRowSlices) * 16, col_base = (warp / kRowSlices) * kCols;
#pragma unroll
      for (int chunk = 0; chunk < kCols; chunk += kChunk) {
        float acc[kChunk / 8][4];
        product_ds_k<BC, BR, kChunk>(acc, dSs, q_row0, Ks, col_base + chunk, lane);
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int q = q0 + q_row0 + lane / 4 + h * 8;
          if (q >= seq_q) continue;
          float* row = dq_acc + (q_base + q) * D + col_base + chunk + (lane % 4) * 2;
#pragma unroll
          for (int t = 0; t < kChunk / 8; ++t) {
#if __CUDA_ARCH__ >= 900
            atomicAdd(reinterpret_cast<float2*>(row + t * 8), make_float2(acc[t][2 * h], acc[t][2 * h + 1]));
#else
            atomicAdd(row + t * 8, acc[t][2 * h]);
            atomicAdd(row + t * 8 + 1, acc[t][2 * h + 1]);
#endif
          }
        }
      }
    }
  }
  cp_async_wait<0>();

  // dK = scale dS^T Q and dV, the warp's 16 rows, in BF16 (column pairs: 4-byte stores).
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int key = k0 + key_row0 + lane / 4 + h * 8;
    if (key >= seq_k) continue;
    __nv_bfloat16* dk_row = dK + (k_base + key) * D + (lane % 4) * 2;
    __nv_bfloat16* dv_row = dV + (k_base + key) * D + (lane % 4) * 2;
#pragma unroll
    for (int t = 0; t < D / 8; ++t) {
      *reinterpret_cast<__nv_bfloat162*>(dk_row + t * 8) =
          __floats2bfloat162_rn(dk[t][2 * h] * scale, dk[t][2 * h + 1] * scale);
      *reinterpret_cast<__nv_bfloat162*>(dv_row + t * 8) = __floats2bfloat162_rn(dv[t][2 * h], dv[t][2 * h + 1]);
    }
  }
}

// The second pass of the two-pass dQ: block (x, head) owns BQ = 16 WARPS query rows (each warp 16 of
// them, 5.05's split) and walks the head's key tiles of BC keys (K and V double-buffered), recomputing
// S = Q K^T and dP = dO V^T (two products more than the atomic kernel does), P, dS = P (dP - D), and
// dQ += dS K in registers (product_xb: dS is the A operand straight from the accumulators). No atomics,
// no FP32 buffer: dQ = scale dq, in BF16, written once.
template <int D, int WARPS, int BC, bool CAUSAL>
__global__ void __launch_bounds__(WARPS * 32)
    flash_backward_dq_kernel(const __nv_bfloat16* __restrict__ Q, const __nv_bfloat16* __restrict__ K,
                             const __nv_bfloat16* __restrict__ V, const __nv_bfloat16* __restrict__ dO,
                             const float* __restrict__ L, const float* __restrict__ Dsum,
                             __nv_bfloat16* __restrict__ dQ, int seq_q, int seq_k, float scale, float scale_log2) {
  constexpr int kThreads = WARPS * 32, BQ = WARPS * 16;
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __nv_bfloat16* Qs = reinterpret_cast<__nv_bfloat16*>(smem_raw);  // [BQ][D]
  __nv_bfloat16* dOs = Qs + BQ * D;                                // [BQ][D]
  __nv_bfloat16* Ks = dOs + BQ * D;                                // [2][BC][D]
  __nv_bfloat16* Vs = Ks + 2 * BC * D;                             // [2][BC][D]

  const int head = blockIdx.y;
  const int q0 = (CAUSAL ? gridDim.x - 1 - blockIdx.x : blockIdx.x) * BQ;  // causal: longest first
  const std::size_t q_base = static_cast<std::size_t>(head) * seq_q, k_base = static_cast<std::size_t>(head) * seq_k;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int warp_row0 = q0 + warp * 16;
  const int all_tiles = wb::ceil_div(seq_k, BC);
  const int key_tiles = CAUSAL ? min(all_tiles, wb::ceil_div(q0 + BQ, BC)) : all_tiles;

  load_rows<BQ, D, kThreads>(Qs, Q + q_base * D, seq_q, q0);
  load_rows<BQ, D, kThreads>(dOs, dO + q_base * D, seq_q, q0);
  load_rows<BC, D, kThreads>(Ks, K + k_base * D, seq_k, 0);
  load_rows<BC, D, kThreads>(Vs, V + k_base * D, seq_k, 0);
  cp_async_commit();

  // The lane's two rows: L in log2 units and D.
  float l_log2[2], d_row[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = warp_row0 + lane / 4 + h * 8;
    l_log2[h] = row < seq_q ? L[q_base + row] * kLog2e : 0.0f;
    d_row[h] = row < seq_q ? Dsum[q_base + row] : 0.0f;
  }
  float dq[D / 8][4] = {};
  for (int j = 0; j < key_tiles; ++j) {
    const int buf = j & 1;
    if (j + 1 < key_tiles) {
      load_rows<BC, D, kThreads>(Ks + (buf ^ 1) * BC * D, K + k_base * D, seq_k, (j + 1) * BC);
      load_rows<BC, D, kThreads>(Vs + (buf ^ 1) * BC * D, V + k_base * D, seq_k, (j + 1) * BC);
    }
    cp_async_commit();
    cp_async_wait<1>();
    __syncthreads();
    float s[BC / 8][4], dp[BC / 8][4];
    product_abt<D, BC, BQ>(s, Qs, warp * 16, Ks + buf * BC * D, lane);
    product_abt<D, BC, BQ>(dp, dOs, warp * 16, Vs + buf * BC * D, lane);
    const int key0 = j * BC;
    const bool masked = key0 + BC > seq_k || warp_row0 + 16 > seq_q || (CAUSAL && key0 + BC - 1 > warp_row0);
#pragma unroll
    for (int t = 0; t < BC / 8; ++t)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int key = key0 + t * 8 + (lane % 4) * 2 + (e & 1), row = warp_row0 + lane / 4 + (e / 2) * 8;
        const bool off = masked && (key >= seq_k || row >= seq_q || (CAUSAL && key > row));
        const float p = off ? 0.0f : exp2f(fmaf(s[t][e], scale_log2, -l_log2[e / 2]));
        dp[t][e] = p * (dp[t][e] - d_row[e / 2]);
      }
    product_xb<D, BC>(dq, dp, Ks + buf * BC * D, lane);
    __syncthreads();  // every warp is done with buffer `buf` before the next iteration refills it
  }
  cp_async_wait<0>();
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int row = warp_row0 + lane / 4 + h * 8;
    if (row >= seq_q) continue;
    __nv_bfloat16* out = dQ + (q_base + row) * D + (lane % 4) * 2;
#pragma unroll
    for (int t = 0; t < D / 8; ++t)
      *reinterpret_cast<__nv_bfloat162*>(out + t * 8) =
          __floats2bfloat162_rn(dq[t][2 * h] * scale, dq[t][2 * h + 1] * scale);
  }
}

template <int D, int WARPS, int BR, bool CAUSAL, bool ATOMIC_DQ>
void launch_key_blocks(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const __nv_bfloat16* dO,
                       const float* L, const float* Dsum, float* dq_acc, __nv_bfloat16* dK, __nv_bfloat16* dV,
                       const AttentionShape& shape, cudaStream_t stream) {
  constexpr int BC = WARPS * 16;
  constexpr int kSmemBytes =
      (2 * BC * D + 4 * BR * D + BC * 64) * int(sizeof(__nv_bfloat16)) + 2 * BR * int(sizeof(float));
  const auto kernel = flash_backward_kernel<D, WARPS, BR, CAUSAL, ATOMIC_DQ>;
  if constexpr (kSmemBytes > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  const dim3 grid(static_cast<unsigned>(wb::ceil_div(shape.seq_k, BC)), static_cast<unsigned>(shape.heads));
  const float scale = attention_scale(shape.d);
  kernel<<<grid, WARPS * 32, kSmemBytes, stream>>>(Q, K, V, dO, L, Dsum, dq_acc, dK, dV, shape.seq_q, shape.seq_k,
                                                   scale, scale * kLog2e);
  CUDA_CHECK_KERNEL();
}

template <int D, int WARPS, int BC, bool CAUSAL>
void launch_dq_pass(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const __nv_bfloat16* dO,
                    const float* L, const float* Dsum, __nv_bfloat16* dQ, const AttentionShape& shape,
                    cudaStream_t stream) {
  constexpr int BQ = WARPS * 16;
  constexpr int kSmemBytes = (2 * BQ + 4 * BC) * D * int(sizeof(__nv_bfloat16));
  const auto kernel = flash_backward_dq_kernel<D, WARPS, BC, CAUSAL>;
  if constexpr (kSmemBytes > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  const dim3 grid(static_cast<unsigned>(wb::ceil_div(shape.seq_q, BQ)), static_cast<unsigned>(shape.heads));
  const float scale = attention_scale(shape.d);
  kernel<<<grid, WARPS * 32, kSmemBytes, stream>>>(Q, K, V, dO, L, Dsum, dQ, shape.seq_q, shape.seq_k, scale,
                                                   scale * kLog2e);
  CUDA_CHECK_KERNEL();
}

// dQ by atomics (kDqByAtomics) or by the second pass. Measured on an H100 (the lesson, one run): 205
// against 193 TFLOP/s at 16x4096x128, 203 against 164 at 16x4096x64. The second pass recomputes S and
// dP (7 products instead of 5); the atomics, seq_k / 64 float2 adds per pair of dQ elements resolved
// in L2, cost less than that.
constexpr bool kDqByAtomics = true;

template <int D, int WARPS, int BR, int DQ_WARPS, bool CAUSAL>
void launch_backward(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const __nv_bfloat16* O,
                     const __nv_bfloat16* dO, const float* L, __nv_bfloat16* dQ, __nv_bfloat16* dK, __nv_bfloat16* dV,
                     const AttentionShape& shape, float* workspace, cudaStream_t stream) {
  const std::size_t rows = shape.l_elements();
  float* dq_acc = workspace;
  float* Dsum = workspace + shape.q_elements();
  constexpr int kPrologueThreads = 256;
  const unsigned prologue_blocks = static_cast<unsigned>(wb::ceil_div(rows, std::size_t(kPrologueThreads / 32)));
  backward_prologue_kernel<D>
      <<<prologue_blocks, kPrologueThreads, 0, stream>>>(O, dO, kDqByAtomics ? dq_acc : nullptr, Dsum, rows);
  CUDA_CHECK_KERNEL();
  launch_key_blocks<D, WARPS, BR, CAUSAL, kDqByAtomics>(Q, K, V, dO, L, Dsum, dq_acc, dK, dV, shape, stream);
  if constexpr (kDqByAtomics) {
    const std::size_t pairs = shape.q_elements() / 2;
    backward_epilogue_kernel<<<static_cast<unsigned>(wb::ceil_div(pairs, std::size_t(256))), 256, 0, stream>>>(
        dq_acc, dQ, pairs, attention_scale(shape.d));
    CUDA_CHECK_KERNEL();
  } else {
    launch_dq_pass<D, DQ_WARPS, 64, CAUSAL>(Q, K, V, dO, L, Dsum, dQ, shape, stream);
  }
}

template <int D, int WARPS, int BR, int DQ_WARPS>
void launch_backward(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const __nv_bfloat16* O,
                     const __nv_bfloat16* dO, const float* L, __nv_bfloat16* dQ, __nv_bfloat16* dK, __nv_bfloat16* dV,
                     const AttentionShape& shape, float* workspace, cudaStream_t stream) {
  if (shape.causal)
    launch_backward<D, WARPS, BR, DQ_WARPS, true>(Q, K, V, O, dO, L, dQ, dK, dV, shape, workspace, stream);
  else
    launch_backward<D, WARPS, BR, DQ_WARPS, false>(Q, K, V, O, dO, L, dQ, dK, dV, shape, workspace, stream);
}

}  // namespace

// Three launches: the prologue (D, and dQ's accumulator zeroed), the key blocks (dK, dV; dQ added with
// FP32 atomics), the epilogue (dQ scaled and rounded to BF16). Key blocks of 64 keys (4 warps of 16
// keys: about 230 registers a thread, 2 blocks per SM) against query tiles of 64 rows at d = 64 and
// of 32 at d = 128, where 64 would need more than 255 registers (dK and dV alone hold 128 per thread).
// Measured on an H100 (the lesson): 208 TFLOP/s at 16x4096x128 and 205 at 16x4096x64, against 205 and
// 197 with FlashAttention-2's 128-key blocks (8 warps, 1 block per SM) in the same run; another run
// gave 205 and 203, with PyTorch's FlashAttention-2 backward at 244 and 189 in the same call.
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
  if (shape.d == 64)
    launch_backward<64, 4, 64, 8>(Q, K, V, O, dO, L, dQ, dK, dV, shape, workspace, stream);
  else
    launch_backward<128, 4, 32, 4>(Q, K, V, O, dO, L, dQ, dK, dV, shape, workspace, stream);
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: the five products are 2.5 times the forward's 4 seq^2 d FLOP per head: 344 GFLOP at
// 16x4096x128, 0.35 ms at the H100's 989 TFLOP/s BF16 peak; mma.sync reaches a little over half of
// it (1.10). The cuBLAS backward (FP32) writes and reads P and dS, 1 GiB each per 16 heads at seq 4096.
// dQ's atomics: seq_k / 64 float2 adds per pair of dQ elements, 268M at 16x4096x128.
int flash_backward_lesson(wb::Lesson& lesson) {
  return p5::run_backward_lesson(lesson, "attention_flash_backward", attention_flash_backward);
}

}  // namespace

WB_LESSON(flash_backward_lesson,
          "FlashAttention-2's backward on BF16 tensor cores: P recomputed, dQ across key blocks");
