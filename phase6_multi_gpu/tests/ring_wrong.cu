// SPDX-License-Identifier: MIT
// 6.06's planted ring attentions: the reference ring with one bug each, for the grader's self-test
// (never used by lessons).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "common/check.h"
#include "phase6_multi_gpu/tests/ring_wrong.h"

namespace {

enum class Bug { None, NoMax, SkipLast, OwnTwice, NoArrivalWait, OwnOffset };
Bug g_bug = Bug::None;

constexpr int kWarps = 8;
constexpr int kRowsPerWarp = 2;
constexpr int kRowsPerBlock = kWarps * kRowsPerWarp;  // query rows per thread block
constexpr int kKeyTile = 32;                          // keys per shared-memory tile: one per lane

[[maybe_unused]] __device__ float warp_max(float x) {
  for (int offset = 16; offset > 0; offset >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
  return x;
}

[[maybe_unused]] __device__ float warp_sum(float x) {
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

// ---- kernels ----------------------------------------------------------------------------------------

// Every row's running state: m = -inf, l = 0, acc = 0 (rows x D floats of acc, rows of m and l).
template <int D>
__global__ void ring_init_kernel(float* acc, float* m, float* l, int rows) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < static_cast<std::size_t>(rows) * D; i += stride) {
    acc[i] = 0.0f;
    if (i < static_cast<std::size_t>(rows)) {
      m[i] = -INFINITY;
      l[i] = 0.0f;
    }
  }
}

// O = acc / l and L = m + log(l) for every row.
template <int D>
__global__ void ring_finish_kernel(float* O, float* L, const float* acc, const float* m, const float* l, int rows) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       i < static_cast<std::size_t>(rows) * D; i += stride) {
    const std::size_t row = i / D;
    O[i] = acc[i] / l[row];
    if (i % D == 0) L[row] = m[row] + logf(l[row]);
  }
}

// One K/V block (rows_k keys of every head, the first at token k_begin of the sequence) against this
// rank's rows_q queries (the first at token q_begin): each query row's running state (m, l, acc) takes
// in the block's keys, 32 at a time. A warp owns kRowsPerWarp rows; lane j scores key j of the tile; the
// output's D columns are spread over the lanes (column lane + 32 c). Causal: query token i sees key
// tokens <= i. Grid: (ceil(rows_q / kRowsPerBlock), heads).
template <int D>
__global__ void __launch_bounds__(kWarps * 32)
    ring_block_kernel(const float* Q, const float* K, const float* V, float* acc, float* m, float* l, int rows_q,
                      int rows_k, int q_begin, int k_begin, bool causal, float scale, bool no_max) {
  constexpr int kCols = D / 32;
  __shared__ float q_s[kRowsPerBlock][D];
  __shared__ float k_s[kKeyTile][D + 1];  // + 1: lane j reads row j, column c: no bank conflicts
  __shared__ float v_s[kKeyTile][D];
  const int head = blockIdx.y;
  const int row0 = blockIdx.x * kRowsPerBlock;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const float* q_head = Q + static_cast<std::size_t>(head) * rows_q * D;
  const float* k_head = K + static_cast<std::size_t>(head) * rows_k * D;
  const float* v_head = V + static_cast<std::size_t>(head) * rows_k * D;
  for (int i = threadIdx.x; i < kRowsPerBlock * D; i += blockDim.x) {
    const int r = i / D, c = i % D;
    q_s[r][c] = row0 + r < rows_q ? q_head[static_cast<std::size_t>(row0 + r) * D + c] : 0.0f;
  }
  float o[kRowsPerWarp][kCols], m_run[kRowsPerWarp], l_run[kRowsPerWarp];
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) {
    const int row = row0 + warp * kRowsPerWarp + rr;
    const std::size_t state = static_cast<std::size_t>(head) * rows_q + row;
    m_run[rr] = row < rows_q ? m[state] : -INFINITY;
    l_run[rr] = row < rows_q ? l[state] : 0.0f;
#pragma unroll
    for (int c = 0; c < kCols; ++c) o[rr][c] = row < rows_q ? acc[state * D + lane + 32 * c] : 0.0f;
  }
  for (int t0 = 0; t0 < rows_k; t0 += kKeyTile) {
    __syncthreads();  // because the previous tile's keys are still being read
    for (int i = threadIdx.x; i < kKeyTile * D; i += blockDim.x) {
      const int j = i / D, c = i % D;
      const bool valid = t0 + j < rows_k;
      k_s[j][c] = valid ? k_head[static_cast<std::size_t>(t0 + j) * D + c] : 0.0f;
      v_s[j][c] = valid ? v_head[static_cast<std::size_t>(t0 + j) * D + c] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int rr = 0; rr < kRowsPerWarp; ++rr) {
      const int qi = warp * kRowsPerWarp + rr;
      const int row = row0 + qi;
      if (row >= rows_q) continue;  // the same for the whole warp
      const int key = t0 + lane;
      float s = -INFINITY;  // lane's logit; -inf: not a key of this row
      if (key < rows_k && (!causal || k_begin + key <= q_begin + row)) {
        float dot = 0.0f;
#pragma unroll 16
        for (int c = 0; c < D; ++c) dot = fmaf(q_s[qi][c], k_s[lane][c], dot);
        s = dot * scale;
      }
      // because exp(s) overflows at logits of 1e4: every exponential is taken against the running max,
      // and what was summed against the old max is rescaled by exp(m_old - m_new) (<= 1).
      const float m_new = no_max ? 0.0f : fmaxf(m_run[rr], warp_max(s));  // planted: no max
      if (!no_max && m_new == -INFINITY) continue;  // no visible key yet: nothing to add (the whole warp agrees)
      const float p = expf(s - m_new);              // 0 for a masked key
      const float correction = no_max ? 1.0f : expf(m_run[rr] - m_new);  // 0 while m_run is -inf
      l_run[rr] = l_run[rr] * correction + warp_sum(p);
#pragma unroll
      for (int c = 0; c < kCols; ++c) o[rr][c] *= correction;
      for (int j = 0; j < kKeyTile; ++j) {
        const float pj = __shfl_sync(0xffffffffu, p, j);
#pragma unroll
        for (int c = 0; c < kCols; ++c) o[rr][c] = fmaf(pj, v_s[j][lane + 32 * c], o[rr][c]);
      }
      m_run[rr] = m_new;
    }
  }
#pragma unroll
  for (int rr = 0; rr < kRowsPerWarp; ++rr) {
    const int row = row0 + warp * kRowsPerWarp + rr;
    if (row >= rows_q) continue;
    const std::size_t state = static_cast<std::size_t>(head) * rows_q + row;
    if (lane == 0) {
      m[state] = m_run[rr];
      l[state] = l_run[rr];
    }
#pragma unroll
    for (int c = 0; c < kCols; ++c) acc[state * D + lane + 32 * c] = o[rr][c];
  }
}

// ---- launchers --------------------------------------------------------------------------------------

[[maybe_unused]] int grid_for(std::size_t count) {
  return static_cast<int>(std::min<std::size_t>(std::max<std::size_t>(1, (count + 255) / 256), 8192));
}

template <int D>
void launch_init(p6::RingKV& kv, int r, int rows, cudaStream_t stream) {
  if (rows == 0) return;
  ring_init_kernel<D>
      <<<grid_for(static_cast<std::size_t>(rows) * D), 256, 0, stream>>>(kv.acc(r), kv.m(r), kv.l(r), rows);
  CUDA_CHECK_KERNEL();
}

template <int D>
void launch_finish(float* O, float* L, p6::RingKV& kv, int r, int rows, cudaStream_t stream) {
  if (rows == 0) return;
  ring_finish_kernel<D>
      <<<grid_for(static_cast<std::size_t>(rows) * D), 256, 0, stream>>>(O, L, kv.acc(r), kv.m(r), kv.l(r), rows);
  CUDA_CHECK_KERNEL();
}

// One block's update of rank r's running state: rows_q queries (first token q_begin) against rows_k keys
// (first token k_begin) of every head.
template <int D>
void launch_block(const float* Q, const float* K, const float* V, p6::RingKV& kv, int r, int heads, int rows_q,
                  int q_begin, int rows_k, int k_begin, bool causal, cudaStream_t stream) {
  if (rows_q == 0 || rows_k == 0) return;
  const dim3 grid((rows_q + kRowsPerBlock - 1) / kRowsPerBlock, heads);
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(D)));
  ring_block_kernel<D><<<grid, kWarps * 32, 0, stream>>>(Q, K, V, kv.acc(r), kv.m(r), kv.l(r), rows_q, rows_k, q_begin,
                                                         k_begin, causal, scale, g_bug == Bug::NoMax);
  CUDA_CHECK_KERNEL();
}

template <int D>
void ring_attention_d(const float* const* Q, const float* const* K, const float* const* V, float* const* O,
                      float* const* L, const p6::RingAttentionShape& shape, p6::RankGroup& group, p6::RingKV& kv) {
  const int n = group.size();
  const int seq = shape.seq, heads = shape.heads;
  // because every rank's inputs may still be arriving on its stream, and the buffers the first copies
  // overwrite may still be read by a previous call's last step.
  group.barrier();
  constexpr int kEntry = p6::RankGroup::kEventsPerRank - 1;
  for (int q = 0; q < n; ++q) {
    p6::DeviceScope scope(group.device(q));
    launch_init<D>(kv, q, heads * p6::ring_rows(q, n, seq), group.stream(q));
    CUDA_CHECK(cudaEventRecord(group.event(q, kEntry), group.stream(q)));
    CUDA_CHECK(cudaStreamWaitEvent(kv.copy_stream(q), group.event(q, kEntry), 0));
  }
  const int steps = g_bug == Bug::SkipLast ? n - 1 : n;
  for (int step = 0; step < steps; ++step) {
    for (int q = 0; q < n; ++q) {
      p6::DeviceScope scope(group.device(q));
      const int up = (q + n - 1) % n, down = (q + 1) % n;
      // because at step s rank q holds the block that started at rank q - s: one hop per step.
      const int origin = (q - step + n) % n;
      const int rows_k = p6::ring_rows(origin, n, seq);
      const float* k_block = step == 0 ? K[q] : kv.k(q, step % 2);
      const float* v_block = step == 0 ? V[q] : kv.v(q, step % 2);
      if (step + 1 < n) {
        // because the block must have arrived here before it is passed on, and the downstream rank read
        // the buffer it lands in (slot (s + 1) % 2) one step ago: its compute, and its own send onward.
        if (step > 0) {
          CUDA_CHECK(cudaStreamWaitEvent(kv.copy_stream(q), kv.event(up, step - 1), 0));
          CUDA_CHECK(cudaStreamWaitEvent(kv.copy_stream(q), group.event(down, step - 1), 0));
          CUDA_CHECK(cudaStreamWaitEvent(kv.copy_stream(q), kv.event(down, step - 1), 0));
        }
        kv.send(q, k_block, v_block, static_cast<std::size_t>(heads) * rows_k * D, down, (step + 1) % 2);
        CUDA_CHECK(cudaEventRecord(kv.event(q, step), kv.copy_stream(q)));
      }
      // because the block computed with now was copied in by the upstream rank's previous step.
      if (step > 0 && g_bug != Bug::NoArrivalWait)
        CUDA_CHECK(cudaStreamWaitEvent(group.stream(q), kv.event(up, step - 1), 0));
      launch_block<D>(Q[q], k_block, v_block, kv, q, heads, p6::ring_rows(q, n, seq), p6::ring_begin(q, n, seq), rows_k,
                      p6::ring_begin(g_bug == Bug::OwnOffset ? q : origin, n, seq), shape.causal, group.stream(q));
      CUDA_CHECK(cudaEventRecord(group.event(q, step), group.stream(q)));
    }
  }
  for (int q = 0; q < n; ++q) {
    p6::DeviceScope scope(group.device(q));
    // because rank q's copy stream still reads q's K, V and receive buffers until its last send.
    if (n > 1) CUDA_CHECK(cudaStreamWaitEvent(group.stream(q), kv.event(q, n - 2), 0));
    if (g_bug == Bug::OwnTwice)
      launch_block<D>(Q[q], K[q], V[q], kv, q, heads, p6::ring_rows(q, n, seq), p6::ring_begin(q, n, seq),
                      p6::ring_rows(q, n, seq), p6::ring_begin(q, n, seq), shape.causal, group.stream(q));
    launch_finish<D>(O[q], L[q], kv, q, heads * p6::ring_rows(q, n, seq), group.stream(q));
  }
}

void ring_attention_planted(const float* const* Q, const float* const* K, const float* const* V, float* const* O,
                            float* const* L, const p6::RingAttentionShape& shape, p6::RankGroup& group,
                            p6::RingKV& kv) {
  p6::validate_ring_shape(shape);
  const p6::RingAttentionShape& made = kv.shape();
  if (made.heads != shape.heads || made.seq != shape.seq || made.d != shape.d)
    throw std::invalid_argument("ring_attention: kv was made for another shape");
  if (group.size() > p6::RingKV::kEventsPerRank - 1) throw std::invalid_argument("ring_attention: too many ranks");
  if (shape.d == 64) {
    ring_attention_d<64>(Q, K, V, O, L, shape, group, kv);
  } else {
    ring_attention_d<128>(Q, K, V, O, L, shape, group, kv);
  }
}

}  // namespace

#define WB_PLANTED_RING(fn, bug)                                                                                 \
  void fn(const float* const* Q, const float* const* K, const float* const* V, float* const* O, float* const* L, \
          const p6::RingAttentionShape& shape, p6::RankGroup& group, p6::RingKV& kv) {                           \
    g_bug = bug;                                                                                                 \
    ring_attention_planted(Q, K, V, O, L, shape, group, kv);                                                     \
    g_bug = Bug::None;                                                                                           \
  }
WB_PLANTED_RING(planted_ring_attention_correct, Bug::None)
WB_PLANTED_RING(planted_ring_attention_no_max, Bug::NoMax)
WB_PLANTED_RING(planted_ring_attention_skips_block, Bug::SkipLast)
WB_PLANTED_RING(planted_ring_attention_own_block_twice, Bug::OwnTwice)
WB_PLANTED_RING(planted_ring_attention_no_arrival_wait, Bug::NoArrivalWait)
WB_PLANTED_RING(planted_ring_attention_own_offset, Bug::OwnOffset)
