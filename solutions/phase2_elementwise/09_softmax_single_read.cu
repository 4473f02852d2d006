// SPDX-License-Identifier: MIT
// 2.09 softmax_single_read: the row is read once into registers, reduced twice, written once.
//
// You learn: how a compile-time register array (float v[4 * kVecs]) keeps a whole row on chip so
// softmax moves exactly 4 bytes in and 4 out per element; why the launcher picks one of a few
// template instantiations from cols (a warp per row for short rows, a block per row up to 8192);
// why lanes without data hold the identity (-inf for max) and still join every shuffle; and what
// to do when the row does not fit: an online (running max, rescaled sum) two-pass fallback.
// Task: write softmax_registers_kernel (one read, one write), then merge and MaxSum::add (online
// statistics) and softmax_online_fallback_kernel for rows too long for registers.
// You decide: which elements of the row each thread holds, so that every load and store of a warp is
//             coalesced; what the positions past the row hold; when the online statistics rescale.
// Source: Milakov & Gimelshein, "Online normalizer calculation for softmax" (2018): safe and online softmax;
// NVIDIA blog, "Using CUDA Warp-Level Primitives" (the full-mask rule).
// Run:   ./workbook run 2.09 [-- --size 16384x4096]
// Check: ./workbook check 2.09
// Aim:   >= 80% of the cudaMemcpy bandwidth at 16384 x 4096 on an H100 (aim 90%); the 4096 x 16384
//        line runs the fallback, which reads the row twice (the second read mostly hits L2).
// Previous: 2.08 softmax_online. Next: 2.10 layernorm.

#include <climits>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "common/workbook.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/reference.h"

namespace {

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;  // every lane of the warp takes part in every shuffle
static_assert(kFullMask == (1ull << kWarpSize) - 1, "the full mask has one bit per lane of the warp");
// Rows longer than this do not fit in registers (16 floats per thread at 512 threads): fallback.
constexpr int kMaxRegisterCols = 8192;
constexpr int kFallbackThreads = 1024;

// ---- kernels ----------------------------------------------------------------------------------------

// Butterfly (xor) reductions: after 5 steps every lane holds the warp's result, so nobody has to
// broadcast it. Every lane must reach these calls: lanes without data pass an identity value.
template <bool kIsMax>
__device__ __forceinline__ float warp_reduce(float v) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    const float other = __shfl_xor_sync(kFullMask, v, offset);
    v = kIsMax ? fmaxf(v, other) : v + other;
  }
  return v;
}

// Reduces over the kGroup threads that share a row: a warp (kGroup == 32) needs only shuffles; a
// block adds one round through shared memory. `partials` must be used for one reduction only
// (a second reduction gets its own array, so no barrier is needed before it is overwritten).
template <int kGroup, bool kIsMax>
__device__ __forceinline__ float group_reduce(float v, float* partials) {
  v = warp_reduce<kIsMax>(v);
  if constexpr (kGroup > kWarpSize) {
    constexpr int kWarps = kGroup / kWarpSize;
    static_assert(kWarps <= kWarpSize, "one warp folds the per-warp partials: at most 32 warps per row");
    const int lane = threadIdx.x % kWarpSize;
    if (lane == 0) partials[threadIdx.x / kWarpSize] = v;
    __syncthreads();  // every warp's partial is in shared memory before any warp reads them
    // Every warp folds all partials itself (no second barrier, every thread gets the result);
    // lanes past kWarps hold the identity and still shuffle.
    const float identity = kIsMax ? -INFINITY : 0.0f;
    v = lane < kWarps ? partials[lane] : identity;
    v = warp_reduce<kIsMax>(v);
  }
  return v;
}

// One row per group of kGroup threads (a warp, or the whole block); each thread holds 4 * kVecs
// elements of the row in registers. kFloat4: cols % 4 == 0, so every row starts 16-byte aligned
// and float4 loads are legal; otherwise row r starts at r * cols floats, not 16-byte aligned: scalar
// loads. Either way each load instruction of a warp must read 32 neighbouring float4s (or floats).
// Registers: the array must be indexed with compile-time indices only (fully unrolled loops), or
// it goes to local memory and every "register" access becomes a memory access.
template <int kGroup, int kVecs, bool kFloat4>
__global__ void __launch_bounds__(kGroup < 256 ? 256 : kGroup)
    softmax_registers_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  constexpr int kPerThread = 4 * kVecs;
  constexpr int kRowsPerBlock = (kGroup < 256 ? 256 : kGroup) / kGroup;
  const int row = blockIdx.x * kRowsPerBlock + static_cast<int>(threadIdx.x) / kGroup;
  // A whole group leaves together (kGroup is a multiple of 32), so no shuffle loses a lane; in
  // block mode (one row per block) no thread ever leaves, so __syncthreads stays reachable.
  if (row >= rows) return;
  const int t = static_cast<int>(threadIdx.x) % kGroup;
  const float* x = in + static_cast<std::size_t>(row) * cols;  // size_t: rows * cols may pass 2^31
  float* y = out + static_cast<std::size_t>(row) * cols;
  __shared__ float max_partials[kGroup / kWarpSize];
  __shared__ float sum_partials[kGroup / kWarpSize];

  // 1. The one read: positions past the row hold -inf, the identity of max, and exp(-inf) = 0
  //    adds nothing to the sum, so the steps below need no bounds checks.
  float v[kPerThread];
  if constexpr (kFloat4) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    const int n4 = cols / 4;
#pragma unroll
    for (int i = 0; i < kVecs; ++i) {
      const int q = i * kGroup + t;
      const float4 f = q < n4 ? x4[q] : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
      v[4 * i] = f.x;
      v[4 * i + 1] = f.y;
      v[4 * i + 2] = f.z;
      v[4 * i + 3] = f.w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int c = k * kGroup + t;
      v[k] = c < cols ? x[c] : -INFINITY;
    }
  }
  // 2. The row max, finite because every row holds a finite value.
  float m = -INFINITY;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) m = fmaxf(m, v[k]);
  m = group_reduce<kGroup, true>(m, max_partials);
  // 3. exp(x - max) <= 1 never overflows; keep it in place of x and sum it.
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    v[k] = expf(v[k] - m);
    s += v[k];
  }
  s = group_reduce<kGroup, false>(s, sum_partials);
  // 4. The one write. One division per thread, then multiplications (two roundings, see the test).
  const float inv = 1.0f / s;
  if constexpr (kFloat4) {
    float4* y4 = reinterpret_cast<float4*>(y);
    const int n4 = cols / 4;
#pragma unroll
    for (int i = 0; i < kVecs; ++i) {
      const int q = i * kGroup + t;
      if (q < n4) y4[q] = make_float4(v[4 * i] * inv, v[4 * i + 1] * inv, v[4 * i + 2] * inv, v[4 * i + 3] * inv);
    }
  } else {
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int c = k * kGroup + t;
      if (c < cols) y[c] = v[k] * inv;
    }
  }
}

// The online statistics of part of a row: m its max, s the sum of exp(x - m) over it.
struct MaxSum {
  float m;
  float s;

  // Absorbs kN values with at most one rescale: the max of the kN first, then the sum grows.
  template <int kN>
  __device__ void add(const float (&x)[kN]) {
    float new_m = m;
#pragma unroll
    for (int k = 0; k < kN; ++k) new_m = fmaxf(new_m, x[k]);
    if (new_m == -INFINITY) return;  // only -inf so far: nothing to add, and exp(-inf - (-inf)) is NaN
    if (new_m > m) {
      s *= expf(m - new_m);  // m = -inf at first: exp(-inf) = 0, and s was 0 anyway
      m = new_m;
    }
#pragma unroll
    for (int k = 0; k < kN; ++k) s += expf(x[k] - m);
  }
};

// Combines two parts: both sums are rescaled to the larger max. When both maxima are -inf (parts
// holding only -inf entries, or none) there is nothing to rescale, and exp(-inf - (-inf)) would be
// exp(NaN): s stays 0. ([[maybe_unused]]: until the fallback kernel calls it, nvcc would warn.)
[[maybe_unused]] __device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  a.s = m == -INFINITY ? 0.0f : a.s * expf(a.m - m) + b.s * expf(b.m - m);
  a.m = m;
  return a;
}

// The (max, sum) of the whole block, in every thread: warps first, then one round through shared
// memory, like group_reduce.
template <int kThreads>
__device__ __forceinline__ MaxSum block_merge(MaxSum p, MaxSum* partials) {
  constexpr int kWarps = kThreads / kWarpSize;
  static_assert(kWarps <= kWarpSize, "one warp merges the per-warp partials: at most 32 warps");
  // Butterfly over the warp, like warp_reduce: afterwards every lane holds the warp's statistics.
  const auto merge_warp = [](MaxSum& q) {
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
      q = merge(q, MaxSum{__shfl_xor_sync(kFullMask, q.m, offset), __shfl_xor_sync(kFullMask, q.s, offset)});
  };
  merge_warp(p);
  const int lane = threadIdx.x % kWarpSize;
  if (lane == 0) partials[threadIdx.x / kWarpSize] = p;
  __syncthreads();  // all warp partials written before any warp reads them
  p = lane < kWarps ? partials[lane] : MaxSum{-INFINITY, 0.0f};
  merge_warp(p);
  return p;
}

// Rows too long for registers. Pass 1 reads the row once with online statistics, pass 2 reads
// it again and writes. Why not stage the row in shared memory? 32768 floats take 128 KiB: one
// block per SM, and any longer row still fails. Why this is nearly as fast: 1024-thread blocks,
// two per SM, keep ~264 rows (17 MiB at 16384 floats) in flight, well inside the 50 MiB L2, so
// the second read mostly comes from L2; streaming (evict-first) stores keep the output from
// pushing the input out.
template <bool kFloat4>
__global__ void __launch_bounds__(kFallbackThreads)
    softmax_online_fallback_kernel(const float* __restrict__ in, float* __restrict__ out, int cols) {
  const float* x = in + static_cast<std::size_t>(blockIdx.x) * cols;
  float* y = out + static_cast<std::size_t>(blockIdx.x) * cols;
  const int t = static_cast<int>(threadIdx.x);
  __shared__ MaxSum partials[kFallbackThreads / kWarpSize];

  // Pass 1: this thread's running (max, sum) over its strided share of the row.
  MaxSum p{-INFINITY, 0.0f};
  if constexpr (kFloat4) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    for (int q = t; q < cols / 4; q += kFallbackThreads) {
      const float4 f = x4[q];
      const float four[4] = {f.x, f.y, f.z, f.w};
      p.add(four);  // one rescale per float4, not per element
    }
  } else {
    for (int c = t; c < cols; c += kFallbackThreads) {
      const float one[1] = {x[c]};
      p.add(one);
    }
  }
  p = block_merge<kFallbackThreads>(p, partials);
  // Pass 2: the second read (its last use: __ldcs marks it evict-first) and the write.
  const float m = p.m;
  const float inv = 1.0f / p.s;
  if constexpr (kFloat4) {
    const float4* x4 = reinterpret_cast<const float4*>(x);
    float4* y4 = reinterpret_cast<float4*>(y);
    for (int q = t; q < cols / 4; q += kFallbackThreads) {
      const float4 f = __ldcs(x4 + q);
      __stcs(y4 + q, make_float4(expf(f.x - m) * inv, expf(f.y - m) * inv, expf(f.z - m) * inv, expf(f.w - m) * inv));
    }
  } else {
    for (int c = t; c < cols; c += kFallbackThreads) __stcs(y + c, expf(__ldcs(x + c) - m) * inv);
  }
}

// ---- launchers --------------------------------------------------------------------------------------

// One instantiation per row capacity kGroup * 4 * kVecs. Warp-per-row kernels run in 256-thread
// blocks (8 rows per block); block-per-row kernels use one block of kGroup threads per row.
template <int kGroup, int kVecs>
void launch_registers(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
  static_assert(kGroup % kWarpSize == 0, "a row's group of threads is made of whole warps");
  constexpr int kBlock = kGroup < 256 ? 256 : kGroup;
  constexpr int kRowsPerBlock = kBlock / kGroup;
  const int blocks = (rows + kRowsPerBlock - 1) / kRowsPerBlock;
  if (cols % 4 == 0) {
    softmax_registers_kernel<kGroup, kVecs, true><<<blocks, kBlock, 0, stream>>>(in, out, rows, cols);
  } else {
    softmax_registers_kernel<kGroup, kVecs, false><<<blocks, kBlock, 0, stream>>>(in, out, rows, cols);
  }
}

}  // namespace

void softmax_single_read(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // nothing to do, and a 0-block grid is an invalid launch
  // The smallest instantiation that holds the row: idle registers cost occupancy, not traffic.
  if (cols <= 128) {
    launch_registers<32, 1>(in, out, rows, cols, stream);
  } else if (cols <= 256) {
    launch_registers<32, 2>(in, out, rows, cols, stream);
  } else if (cols <= 512) {
    launch_registers<32, 4>(in, out, rows, cols, stream);
  } else if (cols <= 1024) {
    launch_registers<32, 8>(in, out, rows, cols, stream);
  } else if (cols <= 2048) {
    launch_registers<256, 2>(in, out, rows, cols, stream);
  } else if (cols <= 4096) {
    launch_registers<256, 4>(in, out, rows, cols, stream);
  } else if (cols <= kMaxRegisterCols) {
    launch_registers<512, 4>(in, out, rows, cols, stream);
  } else if (cols % 4 == 0) {
    softmax_online_fallback_kernel<true><<<rows, kFallbackThreads, 0, stream>>>(in, out, cols);
  } else {
    softmax_online_fallback_kernel<false><<<rows, kFallbackThreads, 0, stream>>>(in, out, cols);
  }
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// The tolerance, relative to each output (the graded test derives it element by element; here the
// inputs lie in [-1, 1], so |x - max| <= 2). With u = 2^-24: x - max rounds by u |x - max| (an
// error in the exponent), expf errs by <= 2 ulp = 4u, 1/s and the product by u each, the reference
// rounded to float by u/2; the float sum of cols terms errs by (cols - 1) u plus the terms' own
// errors (4u + u |x - max| each, and exp(t) |t| <= 1/e with s >= 1), plus 5u per rescale in the
// fallback (at most cols/32 + 16 rescales per partial sum). 1% on top covers second-order terms;
// 2^-125 absolute covers results that underflow to subnormals (or zero).
wb::Tolerance softmax_tolerance(int cols, double max_spread) {
  const double n = cols;
  const double sum_error = (n - 1) + 4 + n / std::exp(1.0) + 5 * (n / 32 + 16);
  return wb::Tolerance{0x1p-125, 1.01 * wb::kFloatEpsilon * (max_spread + 4 + 2 + 1 + sum_error)};
}

// Napkin math: 4 bytes read + 4 written per element; 16384 x 4096 floats move 537 MB, about
// 0.16 ms at the H100's ~3.35 TB/s. The expf per element (~20 instructions, 64M of them) is about
// 0.04 ms of the SMs' time and hides under the memory traffic. The fallback line reads 12 bytes per
// element but is credited with the same 8 bytes moved: its second read costs what L2 cannot absorb.
int softmax_single_read_lesson(wb::Lesson& lesson) {
  const std::vector<std::size_t> dims = lesson.dims_or({16384, 4096});
  if (dims[0] == 0 || dims[1] == 0 || dims[0] > INT_MAX || dims[1] > INT_MAX / 4)
    throw wb::UsageError("--size: rows and cols must be positive, rows < 2^31 and cols < 2^29");
  const std::size_t count = dims[0] * dims[1];
  lesson.require_memory(8.0 * static_cast<double>(count), 24.0 * static_cast<double>(count));
  const std::vector<float> in = wb::random_floats(count, lesson.seed());
  wb::DeviceBuffer<float> din(in);
  wb::GuardedDeviceBuffer<float> dout(count);
  const double bytes = 8.0 * static_cast<double>(count);

  // The given shape, then the same elements as rows 4 times longer (4096 x 16384 by default): past
  // kMaxRegisterCols that shape runs the fallback, and its problem column says so.
  std::vector<std::pair<int, int>> shapes = {{static_cast<int>(dims[0]), static_cast<int>(dims[1])}};
  if (dims[0] % 4 == 0) shapes.emplace_back(static_cast<int>(dims[0] / 4), static_cast<int>(dims[1] * 4));
  bool pass = true;
  for (const auto& [rows, cols] : shapes) {
    const std::vector<double> reference = p2::softmax_reference(in, rows, cols);
    const std::vector<float> expected(reference.begin(), reference.end());
    const std::string problem =
        std::to_string(rows) + "x" + std::to_string(cols) + (cols > kMaxRegisterCols ? "-fallback" : "");
    pass = lesson
               .run_memory_bound(
                   "softmax_single_read", problem, bytes, dout, expected, softmax_tolerance(cols, 2.0),
                   [&, rows = rows, cols = cols] { softmax_single_read(din.data(), dout.data(), rows, cols, nullptr); },
                   static_cast<std::size_t>(cols))
               .pass &&
           pass;
  }
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(softmax_single_read_lesson, "softmax with one read of the row, kept in registers");
