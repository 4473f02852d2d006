// SPDX-License-Identifier: MIT
#include <cuda_bf16.h>

#include <cmath>
#include <stdexcept>

#include "common/check.h"
#include "common/planted_bugs.cuh"
#include "common/util.h"
#include "phase5_attention/tests/wrong_kernels.h"

namespace {

enum class Bug {
  None,
  MissingRescale,
  ScaleTwice,
  CausalOffByOne,
  NoMask,
  DropsLastTile,
  CountsTailKeys,
  LseWithoutMax,
  KvHeadOffsetSeqQ,  // head h's K and V taken from row h * seq_q: right whenever seq_q == seq_k
  KeyBoundSeqQ       // the key loop runs to seq_q: right whenever seq_q == seq_k
};

constexpr int kTile = 64;
constexpr int kWarps = 4;

// Element access for both input types: FP32, or BF16 (5.05) widened to FP32 on load.
__device__ inline float to_float(float x) {
  return x;
}
__device__ inline float to_float(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
// What the kernel does with a probability before P V, and with O before it stores it: nothing in FP32;
// in BF16 both are rounded to BF16, P as FlashAttention-2 feeds it to the second mma (its row sum l stays
// the FP32 sum of the unrounded p), O once at the end.
__device__ inline float as_p(float p, const float*) {
  return p;
}
__device__ inline float as_p(float p, const __nv_bfloat16*) {
  return __bfloat162float(__float2bfloat16_rn(p));
}
__device__ inline void store(float* out, float x) {
  *out = x;
}
__device__ inline void store(__nv_bfloat16* out, float x) {
  *out = __float2bfloat16_rn(x);
}

// The logit of query q (this lane holds columns lane + 32 t) against key row k, reduced over the warp.
template <int D, typename T>
__device__ float warp_dot(const float (&q)[D / 32], const T* k) {
  float v = 0.0f;
  for (int t = 0; t < D / 32; ++t) v += q[t] * to_float(k[threadIdx.x % 32 + 32 * t]);
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// A plain online softmax, one warp per query row, keys in tiles of 64, with one switchable bug; T is
// the element type of Q, K, V and O (float, or BF16 with P and O rounded as 5.05 rounds them).
template <Bug bug, int D, typename T>
__global__ void planted_kernel(const T* Q, const T* K, const T* V, T* O, float* L, int heads, int seq_q, int seq_k,
                               float scale, bool causal) {
  const long long row = static_cast<long long>(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (row >= static_cast<long long>(heads) * seq_q) return;  // the whole warp leaves together
  const int lane = threadIdx.x % 32;
  const int i = static_cast<int>(row % seq_q);
  const std::size_t head = static_cast<std::size_t>(row / seq_q);
  const std::size_t kv_rows = bug == Bug::KvHeadOffsetSeqQ ? seq_q : seq_k;
  const T* k_head = K + head * kv_rows * D;
  const T* v_head = V + head * kv_rows * D;
  float q[D / 32], acc[D / 32];
  for (int t = 0; t < D / 32; ++t) {
    q[t] = to_float(Q[static_cast<std::size_t>(row) * D + lane + 32 * t]);
    acc[t] = 0.0f;
  }
  const float s_scale = bug == Bug::ScaleTwice ? scale * scale : scale;
  int end = bug == Bug::KeyBoundSeqQ ? seq_q : seq_k;
  if (causal && bug != Bug::NoMask) end = min(seq_k, i + 1 + (bug == Bug::CausalOffByOne ? 1 : 0));
  if (bug == Bug::DropsLastTile) end = end / kTile * kTile;
  // Keys past `end` up to the tile's end count with logit 0 and value 0 when the tail is not masked.
  const int tile_end_limit = bug == Bug::CountsTailKeys ? static_cast<int>(wb::ceil_div(end, kTile)) * kTile : end;
  float m = -INFINITY, l = 0.0f;
  for (int k0 = 0; k0 < end; k0 += kTile) {
    const int k1 = min(k0 + kTile, tile_end_limit);
    float tile_max = -INFINITY;
    for (int j = k0; j < k1; ++j)
      tile_max = fmaxf(tile_max, j < end ? warp_dot<D>(q, k_head + static_cast<std::size_t>(j) * D) * s_scale : 0.0f);
    const float m_new = fmaxf(m, tile_max);
    const float rescale = bug == Bug::MissingRescale ? 1.0f : expf(m - m_new);
    l *= rescale;
    for (int t = 0; t < D / 32; ++t) acc[t] *= rescale;
    for (int j = k0; j < k1; ++j) {
      const float s = j < end ? warp_dot<D>(q, k_head + static_cast<std::size_t>(j) * D) * s_scale : 0.0f;
      const float p = expf(s - m_new);
      l += p;
      const float p_used = as_p(p, Q);
      if (j < end)
        for (int t = 0; t < D / 32; ++t)
          acc[t] += p_used * to_float(v_head[static_cast<std::size_t>(j) * D + lane + 32 * t]);
    }
    m = m_new;
  }
  for (int t = 0; t < D / 32; ++t) store(&O[static_cast<std::size_t>(row) * D + lane + 32 * t], acc[t] / l);
  if (lane == 0) L[row] = bug == Bug::LseWithoutMax ? logf(l) : m + logf(l);
}

template <Bug bug, typename T>
void launch(const T* Q, const T* K, const T* V, T* O, float* L, const AttentionShape& s, cudaStream_t stream) {
  validate_attention_shape(s);
  if (s.heads == 0 || s.seq_q == 0) return;
  const unsigned blocks =
      static_cast<unsigned>(wb::ceil_div(static_cast<long long>(s.heads) * s.seq_q, static_cast<long long>(kWarps)));
  if (s.d == 64) {
    planted_kernel<bug, 64>
        <<<blocks, 32 * kWarps, 0, stream>>>(Q, K, V, O, L, s.heads, s.seq_q, s.seq_k, attention_scale(64), s.causal);
  } else {
    planted_kernel<bug, 128>
        <<<blocks, 32 * kWarps, 0, stream>>>(Q, K, V, O, L, s.heads, s.seq_q, s.seq_k, attention_scale(128), s.causal);
  }
  CUDA_CHECK_KERNEL();
}

// ---- The bugs only compute-sanitizer sees -----------------------------------------------------------

// A tiled kernel whose block is one warp: kRowsPerWarp query rows (their q, running max, sum and
// accumulator in registers, lane holding columns lane + 32 t) share each 32-key tile of K and V that the
// warp stages in shared memory, lane j loading key row k0 + j (zero past seq_k); then every lane reads
// every key row of the tile. Not causal. The bugs:
//   NoBarrier           no __syncthreads() after the tile's load nor before the next tile overwrites it;
//   ReadsPastEndMasked  the key row index clamped to seq_k instead of seq_k - 1 before the load, its
//                       value then zeroed: lanes past the last key read the element after the end of K
//                       (in the last head) and throw it away.
enum class TileBug { None, NoBarrier, ReadsPastEndMasked };
constexpr int kKeyTile = 32;  // one key row per lane
constexpr int kRowsPerWarp = 4;

template <TileBug bug, int D>
__device__ float load_key_element(const float* k_head, int key, int c, int seq_k) {
  if (bug == TileBug::ReadsPastEndMasked) {
    // The flat index is clamped to seq_k * D, one past the last element: every lane past the last key
    // reads K[seq_k * D] of its head, which is past the end of K in the last head; the value is zeroed.
    const std::size_t last = static_cast<std::size_t>(seq_k) * D;
    const std::size_t at = static_cast<std::size_t>(key) * D + c;
    const float x = read_even_if_masked(k_head, at < last ? at : last);
    return key < seq_k ? x : 0.0f;
  }
  return key < seq_k ? k_head[static_cast<std::size_t>(key) * D + c] : 0.0f;
}

template <TileBug bug, int D>
__global__ void planted_tiled_kernel(const float* Q, const float* K, const float* V, float* O, float* L, int seq_q,
                                     int seq_k, float scale) {
  __shared__ float Ks[kKeyTile][D + 1];  // + 1: lane j's row-wise stores hit distinct banks
  __shared__ float Vs[kKeyTile][D + 1];
  const int lane = threadIdx.x;  // 32 threads: one warp
  const std::size_t head = blockIdx.y;
  const int row0 = blockIdx.x * kRowsPerWarp;
  const float* k_head = K + head * seq_k * D;
  const float* v_head = V + head * seq_k * D;
  float q[kRowsPerWarp][D / 32], acc[kRowsPerWarp][D / 32], m[kRowsPerWarp], l[kRowsPerWarp];
  for (int r = 0; r < kRowsPerWarp; ++r) {
    // Rows past seq_q repeat the last row and store nothing: every lane stays for the tile loads.
    const std::size_t i = head * seq_q + min(row0 + r, seq_q - 1);
    for (int t = 0; t < D / 32; ++t) {
      q[r][t] = Q[i * D + lane + 32 * t];
      acc[r][t] = 0.0f;
    }
    m[r] = -INFINITY;
    l[r] = 0.0f;
  }
  for (int k0 = 0; k0 < seq_k; k0 += kKeyTile) {
    const int key = k0 + lane;
    for (int c = 0; c < D; ++c) {
      Ks[lane][c] = load_key_element<bug, D>(k_head, key, c, seq_k);
      Vs[lane][c] = key < seq_k ? v_head[static_cast<std::size_t>(key) * D + c] : 0.0f;
    }
    // NoBarrier: the block is one warp, so it runs in lockstep and the tile is complete anyway; only
    // racecheck sees the reads of other lanes' key rows that nothing orders after their writes.
    if (bug != TileBug::NoBarrier) __syncthreads();
    const int n = min(kKeyTile, seq_k - k0);
    for (int r = 0; r < kRowsPerWarp; ++r) {
      float tile_max = -INFINITY;
      for (int j = 0; j < n; ++j) tile_max = fmaxf(tile_max, warp_dot<D>(q[r], &Ks[j][0]) * scale);
      const float m_new = fmaxf(m[r], tile_max);
      const float rescale = expf(m[r] - m_new);
      l[r] *= rescale;
      for (int t = 0; t < D / 32; ++t) acc[r][t] *= rescale;
      for (int j = 0; j < n; ++j) {
        const float p = expf(warp_dot<D>(q[r], &Ks[j][0]) * scale - m_new);
        l[r] += p;
        for (int t = 0; t < D / 32; ++t) acc[r][t] += p * Vs[j][lane + 32 * t];
      }
      m[r] = m_new;
    }
    // NoBarrier: and nothing keeps the next tile's stores after this tile's reads of other lanes' rows.
    if (bug != TileBug::NoBarrier) __syncthreads();
  }
  for (int r = 0; r < kRowsPerWarp; ++r) {
    if (row0 + r >= seq_q) break;
    const std::size_t i = head * seq_q + row0 + r;
    for (int t = 0; t < D / 32; ++t) O[i * D + lane + 32 * t] = acc[r][t] / l[r];
    if (lane == 0) L[i] = m[r] + logf(l[r]);
  }
}

template <TileBug bug>
void launch_tiled(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& s,
                  cudaStream_t stream) {
  validate_attention_shape(s);
  if (s.causal) throw std::invalid_argument("the planted one-warp tiled kernels are not causal");
  if (s.heads == 0 || s.seq_q == 0) return;
  const dim3 grid(static_cast<unsigned>(wb::ceil_div(s.seq_q, kRowsPerWarp)), static_cast<unsigned>(s.heads));
  if (s.d == 64) {
    planted_tiled_kernel<bug, 64><<<grid, 32, 0, stream>>>(Q, K, V, O, L, s.seq_q, s.seq_k, attention_scale(64));
  } else {
    planted_tiled_kernel<bug, 128><<<grid, 32, 0, stream>>>(Q, K, V, O, L, s.seq_q, s.seq_k, attention_scale(128));
  }
  CUDA_CHECK_KERNEL();
}

// ---- 5.06: split the keys, merge the partials ------------------------------------------------------

enum class DecodeBug { None, MergeNoRescale, DropsSplitTail, LseMergedWrong, SquareMask };

// One warp per (row, split): the split's (m, l, acc) by a plain online softmax, key by key, stored at
// workspace + item (D + 2) as acc[0..D), m, l.
template <DecodeBug bug, int D>
__global__ void planted_split_kernel(const float* Q, const float* K, const float* V, float* part, int heads, int seq_q,
                                     int seq_k, int splits, float scale, bool causal) {
  const long long item = static_cast<long long>(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (item >= static_cast<long long>(heads) * seq_q * splits) return;  // the whole warp leaves together
  const int split = static_cast<int>(item % splits);
  const long long row = item / splits;
  const int i = static_cast<int>(row % seq_q);
  const std::size_t head = static_cast<std::size_t>(row / seq_q);
  const int lane = threadIdx.x % 32;
  const float* k_head = K + head * seq_k * D;
  const float* v_head = V + head * seq_k * D;
  float q[D / 32], acc[D / 32];
  for (int t = 0; t < D / 32; ++t) {
    q[t] = Q[static_cast<std::size_t>(row) * D + lane + 32 * t];
    acc[t] = 0.0f;
  }
  // DropsSplitTail: chunks of seq_k / splits rounded down, so the last seq_k % splits keys are in none.
  const long long chunk = bug == DecodeBug::DropsSplitTail ? seq_k / splits : (seq_k + splits - 1LL) / splits;
  const long long begin = min(split * chunk, static_cast<long long>(seq_k));
  long long end = min(begin + chunk, static_cast<long long>(seq_k));
  if (causal) end = min(end, static_cast<long long>(bug == DecodeBug::SquareMask ? i + 1 : seq_k - seq_q + i + 1));
  float m = -INFINITY, l = 0.0f;
  for (long long j = begin; j < end; ++j) {
    const float s = warp_dot<D>(q, k_head + static_cast<std::size_t>(j) * D) * scale;
    const float m_new = fmaxf(m, s);
    const float rescale = expf(m - m_new), p = expf(s - m_new);
    l = l * rescale + p;
    for (int t = 0; t < D / 32; ++t)
      acc[t] = acc[t] * rescale + p * v_head[static_cast<std::size_t>(j) * D + lane + 32 * t];
    m = m_new;
  }
  float* slot = part + static_cast<std::size_t>(item) * (D + 2);
  for (int t = 0; t < D / 32; ++t) slot[lane + 32 * t] = acc[t];
  if (lane == 0) {
    slot[D] = m;
    slot[D + 1] = l;
  }
}

// One warp per row: folds the row's partials; MergeNoRescale adds them as they are, LseMergedWrong
// writes the largest split's own log-sum-exp as L.
template <DecodeBug bug, int D>
__global__ void planted_merge_kernel(const float* part, float* O, float* L, long long rows, int splits) {
  const long long row = static_cast<long long>(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (row >= rows) return;
  const int lane = threadIdx.x % 32;
  float m = -INFINITY, l = 0.0f, best_lse = -INFINITY, o[D / 32];
  for (int t = 0; t < D / 32; ++t) o[t] = 0.0f;
  for (int split = 0; split < splits; ++split) {
    const float* slot = part + (static_cast<std::size_t>(row) * splits + split) * (D + 2);
    const float m_s = slot[D], l_s = slot[D + 1];
    if (l_s == 0.0f) continue;  // an empty split
    best_lse = fmaxf(best_lse, m_s + logf(l_s));
    const float m_new = fmaxf(m, m_s);
    const float a = bug == DecodeBug::MergeNoRescale ? 1.0f : expf(m - m_new);
    const float b = bug == DecodeBug::MergeNoRescale ? 1.0f : expf(m_s - m_new);
    l = l * a + l_s * b;
    for (int t = 0; t < D / 32; ++t) o[t] = o[t] * a + slot[lane + 32 * t] * b;
    m = m_new;
  }
  for (int t = 0; t < D / 32; ++t) O[static_cast<std::size_t>(row) * D + lane + 32 * t] = o[t] / l;
  if (lane == 0) L[row] = bug == DecodeBug::LseMergedWrong ? best_lse : m + logf(l);
}

template <DecodeBug bug, int D>
void launch_decoding_dim(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& s,
                         int splits, float* workspace, cudaStream_t stream) {
  const long long rows = static_cast<long long>(s.heads) * s.seq_q;
  const unsigned split_blocks = static_cast<unsigned>(wb::ceil_div(rows * splits, static_cast<long long>(kWarps)));
  planted_split_kernel<bug, D><<<split_blocks, 32 * kWarps, 0, stream>>>(Q, K, V, workspace, s.heads, s.seq_q, s.seq_k,
                                                                         splits, attention_scale(D), s.causal);
  CUDA_CHECK_KERNEL();
  const unsigned merge_blocks = static_cast<unsigned>(wb::ceil_div(rows, static_cast<long long>(kWarps)));
  planted_merge_kernel<bug, D><<<merge_blocks, 32 * kWarps, 0, stream>>>(workspace, O, L, rows, splits);
  CUDA_CHECK_KERNEL();
}

template <DecodeBug bug>
void launch_decoding(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& s,
                     int splits, float* workspace, cudaStream_t stream) {
  validate_decoding_shape(s);
  if (s.heads == 0 || s.seq_q == 0) return;
  if (s.d == 64) {
    launch_decoding_dim<bug, 64>(Q, K, V, O, L, s, splits, workspace, stream);
  } else {
    launch_decoding_dim<bug, 128>(Q, K, V, O, L, s, splits, workspace, stream);
  }
}

}  // namespace

#define WB_PLANT_DECODING(fn, bug)                                                                                     \
  void fn(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape, int splits, \
          float* workspace, cudaStream_t stream) {                                                                     \
    launch_decoding<bug>(Q, K, V, O, L, shape, splits, workspace, stream);                                             \
  }
WB_PLANT_DECODING(planted_decoding_correct, DecodeBug::None)
WB_PLANT_DECODING(planted_decoding_merge_no_rescale, DecodeBug::MergeNoRescale)
WB_PLANT_DECODING(planted_decoding_drops_split_tail, DecodeBug::DropsSplitTail)
WB_PLANT_DECODING(planted_decoding_lse_merged_wrong, DecodeBug::LseMergedWrong)
WB_PLANT_DECODING(planted_decoding_square_mask, DecodeBug::SquareMask)

#define WB_PLANT(fn, bug)                                                                                  \
  void fn(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape, \
          cudaStream_t stream) {                                                                           \
    launch<bug>(Q, K, V, O, L, shape, stream);                                                             \
  }
WB_PLANT(planted_correct, Bug::None)
WB_PLANT(planted_missing_rescale, Bug::MissingRescale)
WB_PLANT(planted_scale_twice, Bug::ScaleTwice)
WB_PLANT(planted_causal_off_by_one, Bug::CausalOffByOne)
WB_PLANT(planted_no_mask, Bug::NoMask)
WB_PLANT(planted_drops_last_tile, Bug::DropsLastTile)
WB_PLANT(planted_counts_tail_keys, Bug::CountsTailKeys)
WB_PLANT(planted_lse_without_max, Bug::LseWithoutMax)
WB_PLANT(planted_kv_head_offset_seq_q, Bug::KvHeadOffsetSeqQ)
WB_PLANT(planted_key_bound_seq_q, Bug::KeyBoundSeqQ)

#define WB_PLANT_TILED(fn, bug)                                                                            \
  void fn(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape, \
          cudaStream_t stream) {                                                                           \
    launch_tiled<bug>(Q, K, V, O, L, shape, stream);                                                       \
  }
WB_PLANT_TILED(planted_tiled_correct, TileBug::None)
WB_PLANT_TILED(planted_tiled_no_barrier, TileBug::NoBarrier)
WB_PLANT_TILED(planted_tiled_reads_past_end_masked, TileBug::ReadsPastEndMasked)

// 5.05: the same kernel on BF16 Q, K, V and O.
#define WB_PLANT_BF16(fn, bug)                                                                                \
  void fn(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O, float* L, \
          const AttentionShape& shape, cudaStream_t stream) {                                                 \
    launch<bug>(Q, K, V, O, L, shape, stream);                                                                \
  }
WB_PLANT_BF16(planted_bf16_correct, Bug::None)
WB_PLANT_BF16(planted_bf16_missing_rescale, Bug::MissingRescale)
WB_PLANT_BF16(planted_bf16_scale_twice, Bug::ScaleTwice)
WB_PLANT_BF16(planted_bf16_causal_off_by_one, Bug::CausalOffByOne)
WB_PLANT_BF16(planted_bf16_drops_last_tile, Bug::DropsLastTile)
WB_PLANT_BF16(planted_bf16_kv_head_offset_seq_q, Bug::KvHeadOffsetSeqQ)
WB_PLANT_BF16(planted_bf16_key_bound_seq_q, Bug::KeyBoundSeqQ)
