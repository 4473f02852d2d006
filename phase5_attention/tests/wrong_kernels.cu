// SPDX-License-Identifier: MIT
#include <cmath>

#include "common/check.h"
#include "common/util.h"
#include "phase5_attention/tests/wrong_kernels.h"

namespace {

enum class Bug { None, MissingRescale, ScaleTwice, CausalOffByOne, NoMask, DropsLastTile, CountsTailKeys, LseWithoutMax };

constexpr int kTile = 64;
constexpr int kWarps = 4;

// The logit of query q (this lane holds columns lane + 32 t) against key row k, reduced over the warp.
template <int D>
__device__ float warp_dot(const float (&q)[D / 32], const float* k) {
  float v = 0.0f;
  for (int t = 0; t < D / 32; ++t) v += q[t] * k[threadIdx.x % 32 + 32 * t];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// A plain online softmax, one warp per query row, keys in tiles of 64, with one switchable bug.
template <Bug bug, int D>
__global__ void planted_kernel(const float* Q, const float* K, const float* V, float* O, float* L, int heads,
                               int seq_q, int seq_k, float scale, bool causal) {
  const long long row = static_cast<long long>(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (row >= static_cast<long long>(heads) * seq_q) return;  // the whole warp leaves together
  const int lane = threadIdx.x % 32;
  const int i = static_cast<int>(row % seq_q);
  const std::size_t head = static_cast<std::size_t>(row / seq_q);
  const float* k_head = K + head * seq_k * D;
  const float* v_head = V + head * seq_k * D;
  float q[D / 32], acc[D / 32];
  for (int t = 0; t < D / 32; ++t) {
    q[t] = Q[static_cast<std::size_t>(row) * D + lane + 32 * t];
    acc[t] = 0.0f;
  }
  const float s_scale = bug == Bug::ScaleTwice ? scale * scale : scale;
  int end = seq_k;
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
      if (j < end)
        for (int t = 0; t < D / 32; ++t) acc[t] += p * v_head[static_cast<std::size_t>(j) * D + lane + 32 * t];
    }
    m = m_new;
  }
  for (int t = 0; t < D / 32; ++t) O[static_cast<std::size_t>(row) * D + lane + 32 * t] = acc[t] / l;
  if (lane == 0) L[row] = bug == Bug::LseWithoutMax ? logf(l) : m + logf(l);
}

template <Bug bug>
void launch(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& s,
            cudaStream_t stream) {
  validate_attention_shape(s);
  if (s.heads == 0 || s.seq_q == 0) return;
  const unsigned blocks = static_cast<unsigned>(wb::ceil_div(static_cast<long long>(s.heads) * s.seq_q, 
                                                             static_cast<long long>(kWarps)));
  if (s.d == 64) {
    planted_kernel<bug, 64><<<blocks, 32 * kWarps, 0, stream>>>(Q, K, V, O, L, s.heads, s.seq_q, s.seq_k,
                                                               attention_scale(64), s.causal);
  } else {
    planted_kernel<bug, 128><<<blocks, 32 * kWarps, 0, stream>>>(Q, K, V, O, L, s.heads, s.seq_q, s.seq_k,
                                                                attention_scale(128), s.causal);
  }
  CUDA_CHECK_KERNEL();
}

}  // namespace

#define WB_PLANT(fn, bug)                                                                                      \
  void fn(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape,    \
          cudaStream_t stream) {                                                                               \
    launch<bug>(Q, K, V, O, L, shape, stream);                                                                 \
  }
WB_PLANT(planted_correct, Bug::None)
WB_PLANT(planted_missing_rescale, Bug::MissingRescale)
WB_PLANT(planted_scale_twice, Bug::ScaleTwice)
WB_PLANT(planted_causal_off_by_one, Bug::CausalOffByOne)
WB_PLANT(planted_no_mask, Bug::NoMask)
WB_PLANT(planted_drops_last_tile, Bug::DropsLastTile)
WB_PLANT(planted_counts_tail_keys, Bug::CountsTailKeys)
WB_PLANT(planted_lse_without_max, Bug::LseWithoutMax)
