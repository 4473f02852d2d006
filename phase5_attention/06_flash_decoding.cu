// SPDX-License-Identifier: MIT
// 5.06 flash_decoding: one new token against a long KV cache, at the speed of reading the cache once.
//
// You learn: why decoding breaks the flash kernels' parallelism (one query row per head: 5.03 would
// run 32 blocks on 132 SMs) and how to get it back: cut each head's keys into splits, let each warp
// turn its split into a partial softmax (m, l, unnormalized output), then merge the partials of a row
// with 2.08's online-softmax merge; how to choose the split count from the shape and the SM count;
// and, reading the given split kernel, how a memory-bound kernel keeps enough 16-byte loads in flight.
// Task: write the split count and its two limits, a split's key range, the causal end of a decoding
// query, where the partials live in the workspace (its carve-up, their store and the merge's read),
// and the merge kernel.
// The per-split loop (5.03's online softmax, one warp wide) is given: fold_step holds 5.03's answer,
// so solve 5.03 first.
// You decide: how many splits a shape gets on a GPU of sm_count SMs, and which limit gives way; where
//             each split's keys begin and end; the order of the partials in the workspace; how two
//             partials against different maxima become one.
// Source: Dao, Haziza, Massa, Sizov, "Flash-Decoding for long-context inference" (2023): 2.08's online-softmax
// merge applied across splits of the KV cache.
// Run:   ./workbook run 5.06 [-- --size 32x1x32768x128]
// Check: ./workbook check 5.06
// Aim:   >= 70% of memcpy at 32x1x32768x128 (bytes: K and V read once), several x the one-split kernel.
// Previous: 5.05 flash_tensor_cores (this kernel is FP32, like 5.04 flash_causal). Next: 5.07 flash_backward.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "common/workbook.h"
#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/lesson_support.h"

namespace {

// One warp owns one (head, group of query rows, split). A key row of d floats is d / 4 float4s: at
// d = 128 the 32 lanes read one key per 16-byte load each, at d = 64 the two half-warps read two
// neighbouring keys. Lane `lane` holds columns 4 (lane % kLanesPerKey) .. + 3 of its key, and the
// same four columns of every query row of the group and of their outputs.
constexpr int kWarpsPerBlock = 4;
constexpr int kMaxRowsPerWarp = 8;  // query rows that share one pass over the keys (seq_q > 8: groups)
constexpr int kLoadsPerStep = 8;    // 16-byte loads of K, and as many of V, in flight per lane per step
// The split count pulls two ways. More splits, more warps (heads x query groups x splits), and so
// more loads in flight: how many warps must an SM hold to cover DRAM's latency with what one warp
// keeps outstanding (2.01's Little's law)? Fewer splits, fewer partials: each is stored and read once
// more, and merged; how many keys must a split read before that is small beside them? Where the two
// cannot both hold (few heads, or few keys), which gives way? The lesson prints both limits beside the
// count it gets.
// TODO(5.06): the warps an SM should hold and the fewest keys a split may have (2 lines).
constexpr int kWarpsPerSm = 1;       // TODO(5.06): replace
constexpr int kMinKeysPerSplit = 1;  // TODO(5.06): replace

template <int D>
struct KeyLayout {
  static constexpr int kLanesPerKey = D / 4;
  static constexpr int kKeysPerLoad = 32 / kLanesPerKey;  // 1 at d = 128, 2 at d = 64
  static constexpr int kKeysPerStep = kLoadsPerStep * kKeysPerLoad;
  static_assert(kLanesPerKey * kKeysPerLoad == 32, "a warp reads whole key rows");
};

// Query rows per warp for seq_q rows: the next power of two, at most kMaxRowsPerWarp (one kernel per
// count, so a single query row does not pay for eight).
int rows_per_warp(int seq_q) {
  int rows = 1;
  while (rows < seq_q && rows < kMaxRowsPerWarp) rows *= 2;
  return rows;
}
int query_groups(int seq_q) {
  return static_cast<int>(wb::ceil_div(seq_q, rows_per_warp(seq_q)));
}

// ---- kernels ----------------------------------------------------------------------------------------

// The workspace: one slot per (query row of all heads, split), holding the split's unnormalized output
// acc (d floats, in part_o) and its (m, l) pair (in part_ml): how the launcher carves the workspace
// into the two arrays and the order of the slots in them are yours. store_partial writes a slot where
// decoding_merge_kernel reads it. An empty split (no key visible to the row) is (-inf, 0) with acc = 0: 2.08's empty
// state, which a merge must leave alone.
struct KeyRange {
  int begin, end;  // keys [begin, end)
};

// The keys of split `split` of `splits`. Together the splits cover keys 0 .. seq_k - 1, each key in
// exactly one split, in order; a split may be empty (more splits than keys).
__device__ KeyRange split_keys(int split, int splits, int seq_k) {
  // TODO(5.06): return this split's range: consecutive splits, every key in exactly one of them,
  //             nothing past seq_k; a product of two ints may pass 2^31 (about 3 lines).
  return {0, 0};  // TODO(5.06): replace: every split is empty so far
}

// One past the last key that query `row` (of seq_q) may see: all seq_k keys, or with the causal mask
// of decoding the keys up to its own position. The seq_q queries are the newest seq_q of the seq_k
// tokens (attention.cuh).
__device__ int visible_end(int row, int seq_q, int seq_k, bool causal) {
  // TODO(5.06): add the causal limit of a decoding query (1 line).
  return seq_k;  // TODO(5.06): replace: every key so far, causal or not
}

__device__ float4 load4(const float* p) {
  return __ldg(reinterpret_cast<const float4*>(p));
}

__device__ float dot4(float4 a, float4 b) {
  return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
}

// Holds 5.03's answer (the online update): solve 5.03 first.
// 5.03's online update for one query row and one step of keys, one warp wide: s[u] is the row's scaled
// logit of the key of load u (-inf where masked), the same in every lane that reads that key; v[u]
// this lane's four columns of that key's value. m and l end up the same in every lane; acc holds this
// lane's four columns (at d = 64, summed over the keys of its half-warp only: merged at the end).
template <int D>
__device__ void fold_step(const float (&s)[kLoadsPerStep], const float4 (&v)[kLoadsPerStep], float& m, float& l,
                          float4& acc) {
  float step_max = s[0];
#pragma unroll
  for (int u = 1; u < kLoadsPerStep; ++u) step_max = fmaxf(step_max, s[u]);
  if (KeyLayout<D>::kKeysPerLoad == 2) step_max = fmaxf(step_max, __shfl_xor_sync(0xffffffffu, step_max, 16));
  const float m_new = fmaxf(m, step_max);
  if (m_new == -INFINITY) return;  // nothing visible yet (the same in every lane): stay empty
  const float rescale = expf(m - m_new);
  float sum = 0.0f;
  acc.x *= rescale;
  acc.y *= rescale;
  acc.z *= rescale;
  acc.w *= rescale;
#pragma unroll
  for (int u = 0; u < kLoadsPerStep; ++u) {
    const float p = expf(s[u] - m_new);
    sum += p;
    acc.x += p * v[u].x;
    acc.y += p * v[u].y;
    acc.z += p * v[u].z;
    acc.w += p * v[u].w;
  }
  if (KeyLayout<D>::kKeysPerLoad == 2) sum += __shfl_xor_sync(0xffffffffu, sum, 16);
  l = l * rescale + sum;
  m = m_new;
}

// Stores this warp's partials, for the rows of its group that exist (q0 + r < seq_q), in the slots
// the merge reads: every split writes its slot, an empty one included, because the merge reads them all.
// At d = 64 both half-warps hold the same four columns after the final combine.
template <int D, int R>
__device__ void store_partial(const float (&m)[R], const float (&l)[R], const float4 (&acc)[R], float* part_o,
                              float2* part_ml, std::size_t head, int q0, int seq_q, int split, int splits) {
  // TODO(5.06): store each existing row's m, l and acc in its slot (about 9 lines).
}

// Warp w (of heads x groups x splits) computes split w % splits of query group (w / splits) % groups
// of head w / (splits x groups): rows q0 .. q0 + R - 1 against the split's keys, each key and value
// read once for all R rows. (The minimum of 1 block per SM is written out because, measured, ptxas
// otherwise held the one-row d = 64 kernel to 72 registers and spilled.)
template <int D, int R>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, 1)
    decoding_split_kernel(const float* __restrict__ Q, const float* __restrict__ K, const float* __restrict__ V,
                          float* __restrict__ part_o, float2* __restrict__ part_ml, int heads, int seq_q, int seq_k,
                          int splits, float scale, bool causal) {
  using Layout = KeyLayout<D>;
  const int groups = static_cast<int>(wb::ceil_div(seq_q, R));
  const long long warp = static_cast<long long>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (warp >= static_cast<long long>(heads) * groups * splits) return;  // the whole warp leaves together
  const int split = static_cast<int>(warp % splits);
  const long long head_group = warp / splits;
  const std::size_t head = static_cast<std::size_t>(head_group / groups);
  const int q0 = static_cast<int>(head_group % groups) * R;
  const int lane = threadIdx.x % 32;
  const int sub = lane / Layout::kLanesPerKey;        // which key of a load this lane reads
  const int col = (lane % Layout::kLanesPerKey) * 4;  // its four columns
  const KeyRange keys = split_keys(split, splits, seq_k);

  float4 q[R], acc[R];
  float m[R], l[R];
  int row_end[R];         // one past the last key of this split that row r sees
  int last = keys.begin;  // one past the last key any row of the group sees: the loop's end
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const bool exists = q0 + r < seq_q;
    q[r] = exists ? load4(Q + (head * seq_q + q0 + r) * D + col) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    row_end[r] = exists ? min(keys.end, visible_end(q0 + r, seq_q, seq_k, causal)) : keys.begin;
    last = max(last, row_end[r]);
    m[r] = -INFINITY;  // the empty state of 2.08
    l[r] = 0.0f;
    acc[r] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  }
  const float* k_head = K + head * seq_k * D;
  const float* v_head = V + head * seq_k * D;

  for (int k0 = keys.begin; k0 < last; k0 += Layout::kKeysPerStep) {
    // All 16 loads of the step are issued before any of them is used: the bytes in flight that a
    // memory-bound kernel lives on. Keys past `last` are zero (and masked below).
    float4 kk[kLoadsPerStep], vv[kLoadsPerStep];
#pragma unroll
    for (int u = 0; u < kLoadsPerStep; ++u) {
      const int key = k0 + u * Layout::kKeysPerLoad + sub;
      const bool in = key < last;
      kk[u] = in ? load4(k_head + static_cast<std::size_t>(key) * D + col) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      vv[u] = in ? load4(v_head + static_cast<std::size_t>(key) * D + col) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
#pragma unroll
    for (int r = 0; r < R; ++r) {
      float s[kLoadsPerStep];
#pragma unroll
      for (int u = 0; u < kLoadsPerStep; ++u) s[u] = dot4(q[r], kk[u]);
        // The lanes of one key add their four-column pieces: xor offsets below kLanesPerKey stay inside it.
#pragma unroll
      for (int offset = Layout::kLanesPerKey / 2; offset > 0; offset /= 2)
#pragma unroll
        for (int u = 0; u < kLoadsPerStep; ++u) s[u] += __shfl_xor_sync(0xffffffffu, s[u], offset);
#pragma unroll
      for (int u = 0; u < kLoadsPerStep; ++u)
        s[u] = k0 + u * Layout::kKeysPerLoad + sub < row_end[r] ? s[u] * scale : -INFINITY;
      fold_step<D>(s, vv, m[r], l[r], acc[r]);
    }
  }
  if (Layout::kKeysPerLoad == 2) {
    // The half-warps summed different keys into the same columns; m and l already cover both.
#pragma unroll
    for (int r = 0; r < R; ++r) {
      acc[r].x += __shfl_xor_sync(0xffffffffu, acc[r].x, 16);
      acc[r].y += __shfl_xor_sync(0xffffffffu, acc[r].y, 16);
      acc[r].z += __shfl_xor_sync(0xffffffffu, acc[r].z, 16);
      acc[r].w += __shfl_xor_sync(0xffffffffu, acc[r].w, 16);
    }
  }
  store_partial<D, R>(m, l, acc, part_o, part_ml, head, q0, seq_q, split, splits);
}

// Folds one split's partial (m_s, l_s, o_s: this lane's D / 32 columns of its acc) into the row's
// running (m, l, o), so that afterwards they describe the softmax over both splits' keys, as 2.08's
// online_merge does for (m, d) pairs. Either side may be empty (m = -inf), and nothing may become NaN.
template <int D>
__device__ void merge_partial(float& m, float& l, float (&o)[D / 32], float m_s, float l_s,
                              const float (&o_s)[D / 32]) {
  // TODO(5.06): fold the split into (m, l, o) so that they describe both sides' keys as above;
  //             an empty split changes nothing, and two empty sides must not make NaN (about 7 lines).
}

// One warp per query row (of heads x seq_q): merges the row's `splits` partials, then writes
// O (the merged output divided by the merged sum) and L. Every row has a visible key, so after the
// merge l > 0. Each lane holds D / 32 of the row's columns (merge_partial's o): which ones is yours.
template <int D>
__global__ void decoding_merge_kernel(const float* __restrict__ part_o, const float2* __restrict__ part_ml,
                                      float* __restrict__ O, float* __restrict__ L, long long rows, int splits) {
  const long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  if (row >= rows) return;  // the whole warp leaves together
  // TODO(5.06): merge the row's partials (merge_partial folds one in), reading each
  //             from where store_partial put it, then write this lane's columns of the row's O and,
  //             once per row, its L (about 16 lines).
  (void)part_o, (void)part_ml, (void)O, (void)L, (void)splits;  // TODO(5.06): delete: silences unused warnings
}

template <int D, int R>
void launch_split(const float* Q, const float* K, const float* V, float* part_o, float2* part_ml,
                  const AttentionShape& shape, int splits, cudaStream_t stream) {
  const long long warps = static_cast<long long>(shape.heads) * wb::ceil_div(shape.seq_q, R) * splits;
  const long long blocks = wb::ceil_div(warps, static_cast<long long>(kWarpsPerBlock));
  if (blocks > 2147483647LL) throw std::invalid_argument("attention_flash_decoding: more than 2^31 - 1 blocks");
  decoding_split_kernel<D, R><<<static_cast<unsigned>(blocks), kWarpsPerBlock * 32, 0, stream>>>(
      Q, K, V, part_o, part_ml, shape.heads, shape.seq_q, shape.seq_k, splits, attention_scale(D), shape.causal);
  CUDA_CHECK_KERNEL();
}

template <int D>
void launch_decoding(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape,
                     int splits, float* workspace, cudaStream_t stream) {
  const long long rows = static_cast<long long>(shape.heads) * shape.seq_q;
  // TODO(5.06): carve the workspace (attention_decoding_workspace_elements(shape, splits) floats, 16-byte
  //             aligned) into the two arrays (2 lines).
  float* part_o = nullptr;    // TODO(5.06): replace
  float2* part_ml = nullptr;  // TODO(5.06): replace
  (void)workspace;            // TODO(5.06): delete: it only silences an unused-parameter warning
  switch (rows_per_warp(shape.seq_q)) {
    case 1:
      launch_split<D, 1>(Q, K, V, part_o, part_ml, shape, splits, stream);
      break;
    case 2:
      launch_split<D, 2>(Q, K, V, part_o, part_ml, shape, splits, stream);
      break;
    case 4:
      launch_split<D, 4>(Q, K, V, part_o, part_ml, shape, splits, stream);
      break;
    default:
      launch_split<D, kMaxRowsPerWarp>(Q, K, V, part_o, part_ml, shape, splits, stream);
      break;
  }
  constexpr int kMergeThreads = 128;  // 4 rows a block
  const long long blocks = wb::ceil_div(rows * 32, static_cast<long long>(kMergeThreads));
  decoding_merge_kernel<D>
      <<<static_cast<unsigned>(blocks), kMergeThreads, 0, stream>>>(part_o, part_ml, O, L, rows, splits);
  CUDA_CHECK_KERNEL();
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

// Warps per split: heads x query groups. One split per head would leave most SMs idle at 32 heads.
int attention_decoding_splits(const AttentionShape& shape, int sm_count) {
  // TODO(5.06): choose the split count from the shape and sm_count, weighing the two limits above
  //             (about 5 lines). At least 1, never more than seq_k; on the test's long caches (32768
  //             keys, or 16384 at 8 heads of 4 queries), at least as many warps as SMs (its floor).
  (void)shape, (void)sm_count;  // TODO(5.06): delete: it only silences unused-parameter warnings
  return 1;                     // TODO(5.06): replace: one split (one warp per head and query group) so far
}

void attention_flash_decoding(const float* Q, const float* K, const float* V, float* O, float* L,
                              const AttentionShape& shape, int splits, float* workspace, cudaStream_t stream) {
  validate_decoding_shape(shape);
  if (splits < 1)
    throw std::invalid_argument("attention_flash_decoding: splits must be >= 1, got " + std::to_string(splits));
  if (shape.heads == 0 || shape.seq_q == 0) return;
  if (shape.d == 64) {
    launch_decoding<64>(Q, K, V, O, L, shape, splits, workspace, stream);
  } else {
    launch_decoding<128>(Q, K, V, O, L, shape, splits, workspace, stream);
  }
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: at 32 heads, one query, 32768 keys and d = 128, K and V are 32 x 32768 x 128 x 4 bytes
// = 512 MiB each; Q, O and L add 32 KiB. Reading 1 GiB at the H100's ~3 TB/s takes about 0.36 ms,
// while the arithmetic (4 x 32768 x 128 FLOP per head, 0.5 GFLOP) would take 8 us at the FP32 peak:
// decoding is memory-bound by a factor of 40, so the result line counts bytes, not FLOP. One warp per
// head (one split) reads at a few GB/s; the splits put every SM's loads in flight.
int flash_decoding_lesson(wb::Lesson& lesson) {
  const AttentionShape shape = p5::parse_decoding_size(lesson.options().size);
  const int sms = lesson.device().sm_count;
  const int splits = attention_decoding_splits(shape, sms);
  p5::AttentionBench bench(lesson, shape, attention_decoding_workspace_elements(shape, std::max(splits, 1)), true);
  const p5::AttentionKernel kernels[] = {{attention_flash_decoding, splits}, {attention_flash_decoding, 1}};
  const char* names[] = {"attention_flash_decoding", "attention_flash_decoding_1"};
  double ms[2] = {0, 0};
  bool pass = true;
  for (int i = 0; i < 2; ++i) {
    bool ok = bench.verify(names[i], kernels[i]);
    const wb::TimingStats time = bench.time(kernels[i]);
    ok = bench.verify(std::string(names[i]) + " (after timing)", kernels[i]) && ok;
    bench.report(names[i], time, ok);
    ms[i] = time.median_ms;
    pass = ok && pass;
  }
  const double yard_ms = bench.report_yardstick();  // 5.02's cuBLAS path on the same data
  if (!lesson.options().csv && splits >= 1) {
    const long long warps_per_split = static_cast<long long>(shape.heads) * query_groups(shape.seq_q);
    std::printf(
        "      %d splits of up to %lld keys (kMinKeysPerSplit %d): %lld warps on %d SMs, %.1f per SM "
        "(kWarpsPerSm %d)\n"
        "      %.2fx the one-split kernel (%lld warps), %.2fx of 5.02 (the cuBLAS path), on the same data\n",
        splits, wb::ceil_div(static_cast<long long>(shape.seq_k), static_cast<long long>(splits)), kMinKeysPerSplit,
        warps_per_split * splits, sms, double(warps_per_split) * splits / sms, kWarpsPerSm,
        ms[0] > 0 ? ms[1] / ms[0] : 0.0, warps_per_split, ms[0] > 0 ? yard_ms / ms[0] : 0.0);
  }
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(flash_decoding_lesson, "a few queries against a long KV cache: split the keys, merge the partial softmaxes");
