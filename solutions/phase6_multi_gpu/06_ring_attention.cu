// SPDX-License-Identifier: MIT
// 6.06 ring_attention: attention over a sequence too long for one GPU, its K/V blocks passed around a ring.
//
// You learn: how a long sequence is sharded across GPUs for attention: each rank keeps its queries
// and its own keys and values, and the K/V blocks travel around the ring, one hop per step, so after n
// steps every query has seen every key while no GPU ever held more than two blocks; how each block's
// partial softmax merges into a row's running (max, sum, output), the rule of 2.08 and 5.06, so the
// result equals attention on one GPU; and how the next block's copy hides behind this block's compute.
// Task: ring_attention (multi_gpu.cuh) from its API alone, with what RingKV (harness/ring_support.h)
// gives each rank. Correct means O and L of every rank equal attention over the whole sequence within
// phase 5's FP32 bound, whatever the ranks' streams were still running when the call began.
// Source: Liu, Zaharia, Abbeel, "Ring Attention with Blockwise Transformers for Near-Infinite Context"
// (arXiv 2310.01889, 2023); Milakov and Gimelshein, "Online normalizer calculation for softmax" (2018).
// You decide: how a block's kernel tiles queries and keys and how its logits merge into the running
//             state; which block each rank computes with at each step, and where its keys sit in the
//             sequence; which slot each block lands in, and which events each copy and each compute
//             waits for.
// Run:   ./workbook run 6.06 [-- --size 8x8192x128]
// Check: ./workbook check 6.06
// Aim:   >= 1.8x the same attention on one GPU, on two GPUs (FP32).
// Previous: 6.05 tensor_parallel_mlp (6.04 overlap taught the streams and events). Next: p6_bench.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase5_attention/harness/reference.h"
#include "phase6_multi_gpu/harness/lesson_support.h"
#include "phase6_multi_gpu/harness/topology.h"
#include "phase6_multi_gpu/multi_gpu.cuh"

namespace {

constexpr int kWarps = 8;
constexpr int kRowsPerWarp = 2;
[[maybe_unused]] constexpr int kRowsPerBlock = kWarps * kRowsPerWarp;  // query rows per thread block
[[maybe_unused]] constexpr int kKeyTile = 32;                          // keys per shared-memory tile: one per lane

[[maybe_unused]] __device__ float warp_max(float x) {
  for (int offset = 16; offset > 0; offset >>= 1) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
  return x;
}

[[maybe_unused]] __device__ float warp_sum(float x) {
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}

// ---- kernels ----------------------------------------------------------------------------------------

// Every row's running state: m = -inf, l = 0, acc = 0. `rows` counts the rows of every head together
// (heads x the rank's queries): rows x D floats of acc, rows of m and l.
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

// O = acc / l and L = m + log(l) for every row (`rows` as for ring_init_kernel: heads x the rank's queries).
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
                      int rows_k, int q_begin, int k_begin, bool causal, float scale) {
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
      const float m_new = fmaxf(m_run[rr], warp_max(s));
      if (m_new == -INFINITY) continue;                  // no visible key yet: nothing to add (the whole warp agrees)
      const float p = expf(s - m_new);                   // 0 for a masked key
      const float correction = expf(m_run[rr] - m_new);  // 0 while m_run is -inf
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
                                                         k_begin, causal, scale);
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
  for (int step = 0; step < n; ++step) {
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
      if (step > 0) CUDA_CHECK(cudaStreamWaitEvent(group.stream(q), kv.event(up, step - 1), 0));
      launch_block<D>(Q[q], k_block, v_block, kv, q, heads, p6::ring_rows(q, n, seq), p6::ring_begin(q, n, seq), rows_k,
                      p6::ring_begin(origin, n, seq), shape.causal, group.stream(q));
      CUDA_CHECK(cudaEventRecord(group.event(q, step), group.stream(q)));
    }
  }
  for (int q = 0; q < n; ++q) {
    p6::DeviceScope scope(group.device(q));
    // because rank q's copy stream still reads q's K, V and receive buffers until its last send.
    if (n > 1) CUDA_CHECK(cudaStreamWaitEvent(group.stream(q), kv.event(q, n - 2), 0));
    launch_finish<D>(O[q], L[q], kv, q, heads * p6::ring_rows(q, n, seq), group.stream(q));
  }
}

}  // namespace

void ring_attention(const float* const* Q, const float* const* K, const float* const* V, float* const* O,
                    float* const* L, const p6::RingAttentionShape& shape, p6::RankGroup& group, p6::RingKV& kv) {
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

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

p6::RingAttentionShape parse_ring_size(const std::string& text) {
  std::vector<std::size_t> dims;
  if (text.empty()) {
    dims = {8, 8192, 128};
  } else if (!wb::parse_dims(text, &dims) || dims.size() != 3) {
    throw wb::UsageError("--size needs HEADSxSEQxD (like 8x8192x128), got '" + text + "'");
  }
  if (dims[0] < 1 || dims[0] > 4096 || dims[1] < 1 || dims[1] > (1u << 20) || (dims[2] != 64 && dims[2] != 128))
    throw wb::UsageError("--size: HEADS from 1 to 4096, SEQ from 1 to 1M, D 64 or 128, got '" + text + "'");
  p6::RingAttentionShape shape;
  shape.heads = static_cast<int>(dims[0]);
  shape.seq = static_cast<int>(dims[1]);
  shape.d = static_cast<int>(dims[2]);
  return shape;
}

// One group's shards of the whole problem: Q, K, V in, O and L out, and the ring's buffers.
struct Shards {
  std::unique_ptr<p6::RankBuffers<float>> q, k, v, o, l;
  std::unique_ptr<p6::RingKV> kv;
  Shards(const p6::RankGroup& group, const p6::RingAttentionShape& shape, const p5::AttentionInputs& in) {
    const int n = group.size();
    const std::size_t chunk = static_cast<std::size_t>(p6::ring_chunk(shape.seq, n)) * shape.heads;
    q = std::make_unique<p6::RankBuffers<float>>(group, chunk * shape.d);
    k = std::make_unique<p6::RankBuffers<float>>(group, chunk * shape.d);
    v = std::make_unique<p6::RankBuffers<float>>(group, chunk * shape.d);
    o = std::make_unique<p6::RankBuffers<float>>(group, chunk * shape.d);
    l = std::make_unique<p6::RankBuffers<float>>(group, chunk);
    kv = std::make_unique<p6::RingKV>(group, shape);
    const std::size_t d = static_cast<std::size_t>(shape.d);
    for (int r = 0; r < n; ++r) {
      const std::size_t begin = static_cast<std::size_t>(p6::ring_begin(r, n, shape.seq));
      const std::size_t rows = static_cast<std::size_t>(p6::ring_rows(r, n, shape.seq));
      std::vector<float> qs(chunk * d, 0.0f), ks(chunk * d, 0.0f), vs(chunk * d, 0.0f);
      for (int h = 0; h < shape.heads; ++h)
        for (std::size_t i = 0; i < rows * d; ++i) {
          const std::size_t from = (static_cast<std::size_t>(h) * shape.seq + begin) * d + i;
          const std::size_t to = static_cast<std::size_t>(h) * rows * d + i;
          qs[to] = in.q[from];
          ks[to] = in.k[from];
          vs[to] = in.v[from];
        }
      q->upload(r, qs);
      k->upload(r, ks);
      v->upload(r, vs);
    }
  }
  void run(const p6::RingAttentionShape& shape, p6::RankGroup& group) {
    ring_attention(q->const_pointers(), k->const_pointers(), v->const_pointers(), o->pointers(), l->pointers(), shape,
                   group, *kv);
  }
};

int ring_attention_lesson(wb::Lesson& lesson) {
  // Napkin math: 8 heads x 8192^2 x 128 is 275 GFLOP; at ~25 TFLOP/s of FP32 FMAs per H100 that is ~11 ms
  // on one GPU at best. Each of n GPUs computes 1/n of it while a K/V block of 8 heads x 8192/n x 128
  // floats, for K and V, crosses one link per step: 32 MiB at 2 GPUs, ~90 us at NV18's rate, easily
  // hidden.
  const p6::RingAttentionShape shape = parse_ring_size(lesson.options().size);
  const int gpus = p6::visible_gpu_count();
  const bool real = gpus >= 2;
  const int n = real ? std::min(gpus, 8) : 4;
  const double elements = static_cast<double>(shape.heads) * shape.seq * shape.d;
  lesson.require_memory(4.0 * 10.0 * elements / n * (real ? 1 : n) + 4.0 * 10.0 * elements, 4.0 * 8.0 * elements);
  p6::RankGroup group = real ? p6::RankGroup::real(n) : p6::RankGroup::virtual_ranks(n, 0);
  std::printf("ranks: %s; %d heads x seq %d x d %d, FP32, non-causal\n", group.describe().c_str(), shape.heads,
              shape.seq, shape.d);
  AttentionShape full;
  full.heads = shape.heads;
  full.seq_q = full.seq_k = shape.seq;
  full.d = shape.d;
  const p5::AttentionInputs in = p5::make_attention_inputs(full, p5::AttentionData::Uniform, lesson.seed());
  Shards shards(group, shape, in);
  // Rows checked against the CPU in double: the first and last of every rank's shard and a few more,
  // in the first and the last head.
  auto verify = [&](const std::string& what) {
    std::vector<int> rows = p5::sample_rows(shape.seq, 8, lesson.seed());
    for (int r = 0; r < n; ++r)
      if (p6::ring_rows(r, n, shape.seq) > 0) {
        rows.push_back(p6::ring_begin(r, n, shape.seq));
        rows.push_back(p6::ring_begin(r, n, shape.seq) + p6::ring_rows(r, n, shape.seq) - 1);
      }
    std::vector<std::vector<float>> o(static_cast<std::size_t>(n)), l(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
      o[static_cast<std::size_t>(r)] = shards.o->download(r);
      l[static_cast<std::size_t>(r)] = shards.l->download(r);
    }
    for (int head : {0, shape.heads - 1})
      for (int row : rows) {
        const int r = row / p6::ring_chunk(shape.seq, n);
        const int i = row - p6::ring_begin(r, n, shape.seq);
        const int rows_r = p6::ring_rows(r, n, shape.seq);
        const p5::RowReference ref = p5::attention_reference_row(full, in, head, row);
        const p5::RowTolerance tol = p5::attention_row_tolerance(ref, shape.d, false);
        const std::size_t at = static_cast<std::size_t>(head) * rows_r + i;
        const double l_err = std::fabs(l[static_cast<std::size_t>(r)][at] - ref.lse);
        bool ok = l_err <= tol.l_abs;
        int bad_c = -1;
        for (int c = 0; c < shape.d && ok; ++c) {
          const double err = std::fabs(o[static_cast<std::size_t>(r)][at * shape.d + c] - ref.o[c]);
          if (!(err <= tol.o_rel * ref.magnitude[c] + tol.o_abs)) {
            ok = false;
            bad_c = c;
          }
        }
        if (!ok) {
          const float got = bad_c >= 0 ? o[static_cast<std::size_t>(r)][at * shape.d + bad_c] : 0.0f;
          std::fprintf(stderr, "%s: head %d, token %d (rank %d): L %g (expected %g)%s\n", what.c_str(), head, row, r,
                       l[static_cast<std::size_t>(r)][at], ref.lse,
                       bad_c >= 0 ? (", O[" + std::to_string(bad_c) + "] " + std::to_string(got) + " (expected " +
                                     std::to_string(ref.o[bad_c]) + ")")
                                        .c_str()
                                  : "");
          const bool untouched = wb::same_bits(l[static_cast<std::size_t>(r)][at], wb::poison_value<float>());
          wb::note_check_failure(what, untouched ? "output untouched" : "wrong attention");
          return false;
        }
      }
    return true;
  };
  shards.o->fill(wb::poison_value<float>());
  shards.l->fill(wb::poison_value<float>());
  shards.run(shape, group);
  group.synchronize();
  bool pass = verify("ring_attention");
  if (!real) {
    std::printf("ring_attention on %d virtual ranks: %s\n", n, pass ? "PASS" : "FAIL");
    if (!pass) return wb::kExitFail;
    return p6::skip_unless_gpus(lesson.id(), lesson.name(), 2, "the speed-up is measured on real GPUs");
  }
  const wb::BenchOptions options = lesson.bench_options(false);
  const wb::TimingStats ring = p6::bench_group(group, options, [&] { shards.run(shape, group); });
  pass = verify("ring_attention (after timing)") && pass;
  // The yardstick: the same kernels on one GPU holding the whole sequence (a ring of one, no copies).
  p6::RankGroup one = p6::RankGroup::real(1);
  Shards single(one, shape, in);
  const wb::TimingStats alone = p6::bench_group(one, options, [&] { single.run(shape, one); });
  const double flop = 4.0 * shape.heads * static_cast<double>(shape.seq) * shape.seq * shape.d;
  std::printf("one GPU: %.3f ms (%.0f GFLOP/s); %d GPUs: %.3f ms, %.2fx\n", alone.median_ms,
              flop / alone.median_ms / 1e6, n, ring.median_ms, alone.median_ms / ring.median_ms);

  wb::ResultLine line;
  line.id = lesson.id();
  line.name = "ring_attention";
  line.problem = std::to_string(shape.heads) + "x" + std::to_string(shape.seq) + "x" + std::to_string(shape.d) + " x" +
                 std::to_string(n) + " " + p6::link_label(0, 1);
  line.time = ring;
  line.rate = flop / ring.median_ms / 1e6;
  line.unit = wb::RateUnit::GFLOPs;
  line.peak_label = "FP32 peak x" + std::to_string(n);
  wb::set_peak(line, n * wb::fp32_peak_gflops(wb::query_device(0)));
  line.ref_value = alone.median_ms / ring.median_ms;
  line.ref_label = "one GPU";
  line.ref_style = wb::RefStyle::Speedup;
  line.pass = pass;
  lesson.report(line);
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(ring_attention_lesson, "attention over a sequence sharded around a ring of GPUs");
