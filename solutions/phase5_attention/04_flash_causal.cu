// SPDX-License-Identifier: MIT
// 5.04 flash_causal: the causal mask in the tiled kernel, and the work it leaves unbalanced.
//
// You learn: where a causal mask goes in a tiled kernel (key tiles entirely above the diagonal are
// skipped, not computed and masked; only the diagonal tile needs the per-element mask, where row 0 sees
// key 0 alone); why skipping makes query tiles unequal (the last tile of a head reads every key tile,
// the first one tile) and a grid in natural order ends on its longest blocks; and how starting the
// longest tiles first lets the short ones fill the gaps at the end.
// Task: write key_visible's causal half, key_end (the tiles a query tile needs) and the longest-first
// block order. The rest is 5.03's kernel, given: it holds 5.03's answer, so solve 5.03 first.
// You decide: the causal test (mind the diagonal); where a query tile's loop over key tiles may stop;
//             how a one-dimensional block index maps to (tile, head) so the longest tiles start first.
// Source: Dao, "FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning" (2023): 5.03's
// online softmax over tiles with the causal mask of decoder attention, key tiles above the diagonal skipped.
// Holds 5.03's answer: solve 5.03 first (the rest of 5.03's kernel is given here).
// Run:   ./workbook run 5.04 [-- --size 16x4096x64]
// Check: ./workbook check 5.04
// Aim:   ~2x of 5.02 at 16x4096x64 causal, longest-first ~1.2x faster than natural order.
// Previous: 5.03 flash_fp32. Next: 5.05 flash_tensor_cores.

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/workbook.h"
#include "phase5_attention/attention.cuh"
#include "phase5_attention/fp32_tiles.cuh"
#include "phase5_attention/harness/lesson_support.h"

namespace {

// A block computes a kBr x kBc tile of scores at a time with 16 x 16 threads: thread (tx, ty) owns
// query rows kRows ty + r (r < 4, contiguous) and keys tx + 16 c (c < 4) of the tile, and output columns
// 64 g + 4 tx + t (g < d / 64, t < 4: acc[r][4 g + t]). A row's 16 threads are one half-warp, so its max
// and sum combine with shuffles inside it; contiguous rows, keys read along d and 4 neighbouring columns
// make every shared-memory read a float4, and 4 floats of padding keep them conflict-free (below).
constexpr int kBr = 64;  // query rows per block
constexpr int kBc = 64;  // keys per tile
constexpr int kThreads = 256;
constexpr int kRows = kBr / 16;  // rows per thread
constexpr int kKeys = kBc / 16;  // keys per thread per tile
static_assert(kBr % 16 == 0 && kBc % 16 == 0, "16 x 16 threads share the tile");

// Every row of the three shared tiles is padded by kPad floats: a row of the Q or K tile holds
// D + kPad floats, a row of p_tile kBc + kPad. Four floats: rows stay 16-byte aligned, so every read
// below is a float4. 16 neighbouring K rows then start 4 banks apart (D + 4 = 4 mod 32 banks) and a
// half-warp's 256 bytes take the minimum 2 wavefronts; two P rows 4 apart start 16 banks apart, so a
// warp's two rows never collide.
constexpr int kPad = 4;

// Shared memory: the query tile, one key-or-value tile and the probabilities.
template <int D>
constexpr std::size_t smem_bytes() {
  return sizeof(float) *
         (std::size_t(kBr) * (D + kPad) + std::size_t(kBc) * (D + kPad) + std::size_t(kBr) * (kBc + kPad));
}

// ---- kernels ----------------------------------------------------------------------------------------

// Rows [first, first + kRowsInTile) of a [rows][D] array into tile[kRowsInTile][D + kPad], rows past
// the end zero (phase5_attention/fp32_tiles.cuh).
template <int D, int kRowsInTile>
__device__ void load_tile(float* tile, const float* src, int first, int rows) {
  p5::load_padded_rows<D, kRowsInTile, kThreads, kPad>(tile, src, first, rows);
}

// Whether query `row` may see `key`. Keys at or past seq_k exist only as the zero padding of the last
// tile. In a causal shape a query sees itself and the keys before it: row 0 sees key 0 alone, and every
// row sees at least that one, so no row's max stays -inf.
__device__ bool key_visible(int row, int key, int seq_k, bool causal) {
  return key < seq_k && !(causal && key > row);
}

// One past the last key any row of the query tile [q0, q0 + kBr) may see: the key tiles from there on
// lie entirely above the diagonal, masked for every row of the tile, so the loop stops before them.
// With kBr == kBc the tile that holds the diagonal is the last one, and it has a visible key per row.
__device__ int key_end(int q0, int seq_k, bool causal) {
  return causal ? min(seq_k, q0 + kBr) : seq_k;
}
static_assert(kBr == kBc, "key_end assumes the diagonal ends the last key tile a query tile needs");

// s[r][c] = the scaled logit of query row q0 + kRows ty + r against key k0 + tx + 16 c, from the tiles
// in shared memory; -inf where key_visible says no.
template <int D>
__device__ void tile_scores(const float* q_tile, const float* k_tile, int q0, int k0, int seq_k, bool causal,
                            float scale, float (&s)[kRows][kKeys]) {
  // The 16 threads of a row are one half-warp, each reading one K row along d, four columns at a time
  // (the other half-warp reads the same K rows: a broadcast); the row's q values are one address for
  // the whole half-warp. As in 5.03, one q float4 is live at a time; unlike 5.03, the loop over d is
  // not unrolled: the causal kernel keeps a few more values across its key loop, and unrolled (whole,
  // or by 2 or 4) it spills registers for some of the architectures the course builds for.
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  constexpr int kStride = D + kPad;
  const float* q_rows = q_tile + ty * kRows * kStride;
  const float* k_rows = k_tile + tx * kStride;
#pragma unroll
  for (int r = 0; r < kRows; ++r)
#pragma unroll
    for (int c = 0; c < kKeys; ++c) s[r][c] = 0.0f;
#pragma unroll 1
  for (int k = 0; k < D; k += 4) {
    float4 kk[kKeys];
#pragma unroll
    for (int c = 0; c < kKeys; ++c) kk[c] = *reinterpret_cast<const float4*>(k_rows + 16 * c * kStride + k);
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const float4 q = *reinterpret_cast<const float4*>(q_rows + r * kStride + k);
#pragma unroll
      for (int c = 0; c < kKeys; ++c) s[r][c] += q.x * kk[c].x + q.y * kk[c].y + q.z * kk[c].z + q.w * kk[c].w;
    }
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r)
#pragma unroll
    for (int c = 0; c < kKeys; ++c)
      s[r][c] = key_visible(q0 + kRows * ty + r, k0 + tx + 16 * c, seq_k, causal) ? s[r][c] * scale : -INFINITY;
}

// The online softmax over tiles. Per row, m is the max of the logits seen so far, l the sum of
// exp(s - m) over them, acc[r][k] the sum of exp(s - m) v over them (O before the division by l). A
// tile brings its own max: with m_new = max(m, tile max), every old term was computed against m and
// must be multiplied by exp(m - m_new) (2.08's identity), in l and in acc alike; the tile's terms are
// exp(s - m_new). The 16 threads that share a row (same ty, tx = 0..15: one half-warp) must agree on
// the tile's max, so they combine it with shuffles inside the half-warp; l stays each thread's share
// of the row's sum (rescaled alike), and store_rows adds the 16 shares once.
// While m is -inf (no logit seen yet), exp(m - m_new) is exp(-inf) = 0, which is right; but if a row
// saw no visible key in the tile too, m_new is -inf and exp(-inf - -inf) is NaN: such a row must come
// out of the update as it went in (m, l and acc unchanged, probabilities 0). A warp holds two rows (its
// two half-warps), and a full-mask __shfl_xor_sync needs all 32 lanes to arrive: the row with nothing
// visible still takes part in every shuffle (its -inf logits combine like any others) and is left alone
// by what it does with the results, never by branching around them. Such a branch splits the warp, which
// is undefined behaviour that no test shows (here every tile holds key k0, which every row sees).
// p_tile[row][key] receives exp(s - m_new) (0 for a row with nothing visible), for the P V step.
template <int D>
__device__ void online_update(const float (&s)[kRows][kKeys], float (&m)[kRows], float (&l)[kRows],
                              float (&acc)[kRows][D / 16], float* p_tile) {
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    // This thread's max, then the row's: xor offsets below 16 stay inside the half-warp that shares
    // the row, and every lane runs them.
    float tile_max = s[r][0];
#pragma unroll
    for (int c = 1; c < kKeys; ++c) tile_max = fmaxf(tile_max, s[r][c]);
#pragma unroll
    for (int offset = 8; offset > 0; offset /= 2)
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, offset));
    const float m_new = fmaxf(m[r], tile_max);
    // No visible key yet: subtract 0 instead of -inf, so every term is exp(-inf) = 0 and the rescale
    // exp(-inf) = 0 multiplies an l and acc that are still 0: the row leaves as it came.
    const float base = m_new == -INFINITY ? 0.0f : m_new;
    const float rescale = expf(m[r] - base);
    float sum = 0.0f;  // this thread's share: store_rows adds the row's 16 shares once
    float* p_row = p_tile + (kRows * ty + r) * (kBc + kPad) + tx;
#pragma unroll
    for (int c = 0; c < kKeys; ++c) {
      const float p = expf(s[r][c] - base);
      sum += p;
      p_row[16 * c] = p;
    }
    l[r] = l[r] * rescale + sum;
#pragma unroll
    for (int k = 0; k < D / 16; ++k) acc[r][k] *= rescale;
    m[r] = m_new;
  }
}

// acc[r][4 g + t] += sum over the tile's keys j of p_tile[row][j] * v_tile[j][64 g + 4 tx + t], for this
// thread's rows and columns. Padding keys have probability 0 and zero values.
template <int D>
__device__ void accumulate_pv(const float* p_tile, const float* v_tile, float (&acc)[kRows][D / 16]) {
  // A half-warp reads 256 contiguous bytes of a V row as float4s, and its rows' probabilities as
  // float4s along the keys (one address a half-warp).
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  constexpr int kStride = D + kPad, kGroups = D / 64;
  const float* p_rows = p_tile + ty * kRows * (kBc + kPad);
#pragma unroll 2
  for (int j = 0; j < kBc; j += 4) {
    float4 p[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) p[r] = *reinterpret_cast<const float4*>(p_rows + r * (kBc + kPad) + j);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      float4 v[kGroups];
#pragma unroll
      for (int g = 0; g < kGroups; ++g)
        v[g] = *reinterpret_cast<const float4*>(v_tile + (j + u) * kStride + 64 * g + 4 * tx);
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const float pu = u == 0 ? p[r].x : u == 1 ? p[r].y : u == 2 ? p[r].z : p[r].w;
#pragma unroll
        for (int g = 0; g < kGroups; ++g) {
          acc[r][4 * g + 0] += pu * v[g].x;
          acc[r][4 * g + 1] += pu * v[g].y;
          acc[r][4 * g + 2] += pu * v[g].z;
          acc[r][4 * g + 3] += pu * v[g].w;
        }
      }
    }
  }
}

// The epilogue: l = the sum of the row's 16 shares, O = acc / l for the rows that exist (q0 + row <
// seq_q), and L = m + log(l) once per row.
template <int D>
__device__ void store_rows(const float (&acc)[kRows][D / 16], const float (&m)[kRows], const float (&l)[kRows],
                           float* o_head, float* l_head, int q0, int seq_q) {
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    float sum = l[r];  // this thread's share; the half-warp's 16 shares make the row's l
#pragma unroll
    for (int offset = 8; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    const int row = q0 + kRows * ty + r;
    if (row >= seq_q) continue;  // the zero padding of the last query tile (after the shuffles)
    const float inv_l = 1.0f / sum;
    float* o_row = o_head + static_cast<std::size_t>(row) * D + 4 * tx;
#pragma unroll
    for (int g = 0; g < D / 64; ++g) {
      // O rows are 16-byte aligned only when o_head is: O carries no such promise either.
      o_row[64 * g + 0] = acc[r][4 * g + 0] * inv_l;
      o_row[64 * g + 1] = acc[r][4 * g + 1] * inv_l;
      o_row[64 * g + 2] = acc[r][4 * g + 2] * inv_l;
      o_row[64 * g + 3] = acc[r][4 * g + 3] * inv_l;
    }
    if (tx == 0) l_head[row] = m[r] + logf(sum);
  }
}

// Which (query tile, head) block b of the 1-D grid computes. In order, b = head * tiles + tile: the
// blocks of head 0 go first, shortest tile first, and the grid ends on the longest tiles of the last
// head, while most SMs have nothing left to do. The GPU starts blocks roughly in index order, so the
// order of this mapping is the schedule.
struct TileCoord {
  int tile, head;
};
__device__ TileCoord block_coords(int block, int tiles, int heads, bool longest_first) {
  if (!longest_first) return {block % tiles, block / tiles};
  // The first `heads` blocks take the last tile of every head, the next ones the tiles before them.
  return {tiles - 1 - block / heads, block % heads};
}

// Block b computes query rows [64 t, 64 t + 64) of head h, (t, h) = block_coords(b), against the keys
// they may see.
template <int D>
__global__ void __launch_bounds__(kThreads)
    attention_flash_causal_kernel(const float* __restrict__ Q, const float* __restrict__ K, const float* __restrict__ V,
                                  float* __restrict__ O, float* __restrict__ L, int heads, int seq_q, int seq_k,
                                  float scale, bool causal, bool longest_first) {
  extern __shared__ float smem[];
  float* q_tile = smem;                        // [kBr][D + kPad]
  float* kv_tile = q_tile + kBr * (D + kPad);  // [kBc][D + kPad]: K of the current tile, then its V
  float* p_tile = kv_tile + kBc * (D + kPad);  // [kBr][kBc + kPad]
  const int tiles = static_cast<int>(wb::ceil_div(seq_q, kBr));
  const TileCoord at = block_coords(static_cast<int>(blockIdx.x), tiles, heads, longest_first);
  const std::size_t head = at.head;
  const int q0 = at.tile * kBr;
  const float* k_head = K + head * seq_k * D;
  const float* v_head = V + head * seq_k * D;
  load_tile<D, kBr>(q_tile, Q + head * seq_q * D, q0, seq_q);

  float m[kRows], l[kRows], acc[kRows][D / 16];
  for (int r = 0; r < kRows; ++r) {
    m[r] = -INFINITY;  // the empty state of 2.08: no logit seen
    l[r] = 0.0f;
    for (int k = 0; k < D / 16; ++k) acc[r][k] = 0.0f;
  }
  float s[kRows][kKeys];
  const int k_end = key_end(q0, seq_k, causal);
  for (int k0 = 0; k0 < k_end; k0 += kBc) {
    __syncthreads();  // the last tile's P V is done with kv_tile and p_tile (and q_tile is loaded)
    load_tile<D, kBc>(kv_tile, k_head, k0, seq_k);
    __syncthreads();  // K complete before anyone computes scores
    tile_scores<D>(q_tile, kv_tile, q0, k0, seq_k, causal, scale, s);
    online_update<D>(s, m, l, acc, p_tile);
    __syncthreads();  // P complete, and every thread done with K before V overwrites it
    load_tile<D, kBc>(kv_tile, v_head, k0, seq_k);
    __syncthreads();  // V complete
    accumulate_pv<D>(p_tile, kv_tile, acc);
  }
  store_rows<D>(acc, m, l, O + head * seq_q * D, L + head * seq_q, q0, seq_q);
}

template <int D>
void launch_flash_causal(const float* Q, const float* K, const float* V, float* O, float* L,
                         const AttentionShape& shape, bool longest_first, cudaStream_t stream) {
  // Above 48 KiB a block must opt in to its shared memory (85 KB at d = 128: an sm_80 or newer GPU).
  CUDA_CHECK(cudaFuncSetAttribute(attention_flash_causal_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(smem_bytes<D>())));
  const unsigned blocks = wb::ceil_div(static_cast<unsigned>(shape.seq_q), unsigned(kBr)) * shape.heads;
  attention_flash_causal_kernel<D><<<blocks, kThreads, smem_bytes<D>(), stream>>>(
      Q, K, V, O, L, shape.heads, shape.seq_q, shape.seq_k, attention_scale(D), shape.causal, longest_first);
  CUDA_CHECK_KERNEL();
}

void flash_causal(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape,
                  bool longest_first, cudaStream_t stream) {
  validate_attention_shape(shape);
  if (shape.heads == 0 || shape.seq_q == 0) return;
  if (double(wb::ceil_div(shape.seq_q, kBr)) * shape.heads > 2147483647.0)
    throw std::invalid_argument("attention_flash_causal: more than 2^31 - 1 blocks");
  if (shape.d == 64) {
    launch_flash_causal<64>(Q, K, V, O, L, shape, longest_first, stream);
  } else {
    launch_flash_causal<128>(Q, K, V, O, L, shape, longest_first, stream);
  }
}

// The same kernel with the blocks in natural order: the lesson's comparison.
void attention_flash_causal_in_order(const float* Q, const float* K, const float* V, float* O, float* L,
                                     const AttentionShape& shape, cudaStream_t stream) {
  flash_causal(Q, K, V, O, L, shape, false, stream);
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void attention_flash_causal(const float* Q, const float* K, const float* V, float* O, float* L,
                            const AttentionShape& shape, cudaStream_t stream) {
  flash_causal(Q, K, V, O, L, shape, true, stream);
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: causal attention does half the multiply-adds (2 seq^2 d FLOP per head, counted so
// on the result line) and a tiled kernel can skip exactly the tiles above the diagonal: query tile t
// reads t + 1 key tiles, so at seq 4096 the 64 tiles of a head range from 1 to 64 tiles of work. In
// natural order the grid's last blocks are its longest; the two lines below time both orders on the
// same data. The cuBLAS path (5.02) cannot skip anything: it computes every logit, then masks.
int flash_causal_lesson(wb::Lesson& lesson) {
  p5::AttentionBench bench(lesson, p5::parse_attention_size(lesson.options().size, true));
  bool pass = true;
  const p5::AttentionKernel kernels[] = {{attention_flash_causal, nullptr}, {attention_flash_causal_in_order, nullptr}};
  const char* names[] = {"attention_flash_causal", "attention_flash_causal_in_order"};
  for (int i = 0; i < 2; ++i) {
    bool ok = bench.verify(names[i], kernels[i]);
    const wb::TimingStats time = bench.time(kernels[i]);
    ok = bench.verify(std::string(names[i]) + " (after timing)", kernels[i]) && ok;
    bench.report(names[i], time, ok);
    pass = ok && pass;
  }
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(flash_causal_lesson, "the causal mask in the tiled kernel: skipped tiles, longest tiles first");
