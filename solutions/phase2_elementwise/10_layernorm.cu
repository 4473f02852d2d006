// SPDX-License-Identifier: MIT
// 2.10 layernorm: LayerNorm forward, the phase's capstone: statistics that survive a large mean, one
// read of x, a copy's speed at every row length.
//
// You learn: to design a row kernel from what 2.05-2.09 taught, and to compute the variance of float
// data so that it keeps its digits when the mean is 1e4 times the spread (E[x^2] - E[x]^2 loses them
// all there).
// Task: layernorm_forward (elementwise.cuh): y = (x - mean) * rstd * gamma + beta over each row of a
// rows x cols matrix, rstd = 1 / sqrt(var + eps) with the population variance, mean and rstd written
// per row. Read x from DRAM once and write y once (a row too long to keep on chip may be read a second
// time); any rows, any cols >= 1 (32768 and beyond), any float-aligned pointers.
// You decide: who owns a row; where the row waits between its statistics and its write; what each
//             thread summarizes of its values, and how those partial statistics meet.
// Source: Ba, Kiros & Hinton, "Layer Normalization" (2016); Welford, "Note on a Method for Calculating
// Corrected Sums of Squares and Products" (1962).
// Run:   ./workbook run 2.10 [-- --size 16384x4096]
// Check: ./workbook check 2.10
// Aim:   >= 85% of memcpy at 16384 x 4096 (H100), and at or above PyTorch's F.layer_norm at every
//        p2_bench shape (it measured 39 / 83 / 67 / 52% of a copy at 256 / 1024 / 4096 / 32768 columns).
// Previous: 2.09 softmax_single_read. Next: phase 3, reductions.

#include <cstddef>
#include <cstdint>

#include "common/workbook.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/lesson_support.h"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

// What decides correctness, whatever your design:
// - The statistics: mean and the population variance (divided by cols, not cols - 1), from one read
//   of x, within a bound the test derives per row from float's rounding and the row's max |x| and
//   max |x - mean|: what a numerically stable method reaches at every row length. Summing x and x^2
//   in one pass is not stable: at 1e4 + noise of std 1, x^2 ~ 1e8 rounds by up to 4 in float, more
//   than the whole variance.
// - Every row length: cols % 4 != 0 leaves every row after the first off 16-byte alignment, and x,
//   gamma, beta or y may start 4 bytes past a 16-byte boundary: a 16-byte access must be aligned.
// - Constant rows: x - mean must come out exactly 0, so that y = beta exactly and rstd = 1 / sqrt(eps).
// - Lanes and threads without data still reach every full-mask shuffle and every __syncthreads, with a
//   partial that changes nothing. Offsets in size_t: rows * cols may pass 2^31.
// - Speed: x from DRAM once, at every row length; gamma and beta are read by every row.
// Design.
// - Rows up to kMaxRegisterCols stay in registers (a compile-time array, fully unrolled loops): a warp
//   per row up to 1024 floats, a block per row beyond, so x is read from DRAM exactly once.
// - Statistics there: every value is first shifted by K = the row's first element, so every sum holds
//   terms the size of the spread, never of the mean; then two passes on chip: the sum of x - K gives
//   the mean, the sum of (x - K - mean)^2 gives M2. A constant row gives x - K = 0 exactly, so the
//   mean is K, d = 0 and y = beta exactly.
// - Longer rows: one read with per-thread (count, mean, M2) partials merged exactly (Chan, Golub &
//   LeVeque), then a second read, which L2 mostly serves, to write y.
constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;  // every lane of the warp takes part in every shuffle
constexpr int kMaxRegisterCols = 32768;      // 1024 threads x 32 floats
constexpr int kFallbackThreads = 1024;
constexpr int kFallbackLoads = 4;  // float4 (or float) loads in flight per thread per step, fallback

// Butterfly sum: every lane ends with the warp's total, and the same bits in every lane (a + b == b + a).
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

// Sum over the kGroup threads of a row (a warp, or the whole block), in every thread. `partials` (one
// float per warp) serves one reduction only, so a second reduction needs no barrier before it.
template <int kGroup>
__device__ __forceinline__ float group_sum(float v, float* partials) {
  v = warp_sum(v);
  if constexpr (kGroup > kWarpSize) {
    constexpr int kWarps = kGroup / kWarpSize;
    static_assert(kWarps <= kWarpSize, "one warp folds the per-warp partials: at most 32 warps per row");
    const int lane = threadIdx.x % kWarpSize;
    if (lane == 0) partials[threadIdx.x / kWarpSize] = v;
    __syncthreads();  // every warp's partial is written before any warp reads them
    v = lane < kWarps ? partials[lane] : 0.0f;
    v = warp_sum(v);  // every warp folds the same partials in the same order: the same result
  }
  return v;
}

// Threads per block: warp-per-row kernels run 8 rows per 256-thread block.
template <int kGroup>
constexpr int kBlockThreads = kGroup < 256 ? 256 : kGroup;
// __launch_bounds__'s minimum blocks per SM (registers for that many), capped at what the SM holds on
// the architecture being compiled (a minimum that cannot fit is ignored with a warning).
template <int kGroup, int kMinBlocks>
constexpr int kBoundedMinBlocks =
    kMinBlocks < wb::kMaxThreadsPerSm / kBlockThreads<kGroup> ? kMinBlocks
                                                              : wb::kMaxThreadsPerSm / kBlockThreads<kGroup>;

// One row per kGroup threads; each thread holds 4 * kVecs values of it. kFloat4 (cols % 4 == 0 and
// x, gamma, beta, y 16-byte aligned): thread t holds float4 number j * kGroup + t of the row, so a warp
// reads 512 contiguous bytes. Otherwise float number j * kGroup + t, a warp reading 128 bytes.
template <int kGroup, int kVecs, int kMinBlocks, bool kFloat4>
__global__ void __launch_bounds__(kBlockThreads<kGroup>, (kBoundedMinBlocks<kGroup, kMinBlocks>))
    layernorm_registers_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                               const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                               float* __restrict__ rstd, int rows, int cols, float eps) {
  constexpr int kRowsPerBlock = kBlockThreads<kGroup> / kGroup;
  constexpr int kValues = 4 * kVecs;
  constexpr int kSlots = kGroup / kWarpSize;
  __shared__ float partial_sum[kSlots];
  __shared__ float partial_m2[kSlots];

  // A whole group (whole warps; in block mode the whole block, which never leaves) leaves together.
  const std::size_t row = std::size_t(blockIdx.x) * kRowsPerBlock + threadIdx.x / kGroup;
  if (row >= static_cast<std::size_t>(rows)) return;
  const int t = static_cast<int>(threadIdx.x % kGroup);
  const float* __restrict__ xr = x + row * static_cast<std::size_t>(cols);
  float* __restrict__ yr = y + row * static_cast<std::size_t>(cols);
  const float shift = __ldg(xr);  // K: one broadcast load, the line thread 0 reads anyway

  // This thread's items (float4s or floats) inside the row: items j * kGroup + t for j < count.
  const int items = kFloat4 ? cols / 4 : cols;
  const int count = t < items ? (items - t + kGroup - 1) / kGroup : 0;

  // The one read of x; positions past the row hold K, so after the shift they hold 0 and add nothing.
  float v[kValues];
  if constexpr (kFloat4) {
    const float4* x4 = reinterpret_cast<const float4*>(xr) + t;
#pragma unroll
    for (int j = 0; j < kVecs; ++j) {
      const float4 f = j < count ? __ldg(x4 + j * kGroup) : make_float4(shift, shift, shift, shift);
      v[4 * j + 0] = f.x;
      v[4 * j + 1] = f.y;
      v[4 * j + 2] = f.z;
      v[4 * j + 3] = f.w;
    }
  } else {
#pragma unroll
    for (int j = 0; j < kValues; ++j) v[j] = j < count ? __ldg(xr + t + j * kGroup) : shift;
  }
  // Whether value k of this thread lies inside the row.
  const auto inside = [&](int k) { return (kFloat4 ? k / 4 : k) < count; };

  // Pass 1 (on chip): the mean of x - K. Two accumulators: shorter chains, fewer roundings.
  float acc[2] = {0.0f, 0.0f};
#pragma unroll
  for (int k = 0; k < kValues; ++k) {
    v[k] -= shift;
    acc[k % 2] += v[k];
  }
  const float n = static_cast<float>(cols);
  const float shifted_mean = group_sum<kGroup>(acc[0] + acc[1], partial_sum) / n;

  // Pass 2 (on chip): M2, the sum of squared deviations; v becomes d = x - mean.
  float sq[2] = {0.0f, 0.0f};
#pragma unroll
  for (int k = 0; k < kValues; ++k) {
    v[k] = inside(k) ? v[k] - shifted_mean : 0.0f;
    sq[k % 2] = fmaf(v[k], v[k], sq[k % 2]);
  }
  const float m2 = group_sum<kGroup>(sq[0] + sq[1], partial_m2);
  const float r = 1.0f / sqrtf(m2 / n + eps);
  if (t == 0) {
    mean[row] = shift + shifted_mean;
    rstd[row] = r;
  }

  // The one write: y = d * rstd * gamma + beta, where the values were loaded from.
  if constexpr (kFloat4) {
#pragma unroll
    for (int j = 0; j < kVecs; ++j) {
      if (j < count) {
        const int i = j * kGroup + t;
        const float4 g = __ldg(reinterpret_cast<const float4*>(gamma) + i);
        const float4 b = __ldg(reinterpret_cast<const float4*>(beta) + i);
        reinterpret_cast<float4*>(yr)[i] =
            make_float4(fmaf(v[4 * j + 0] * r, g.x, b.x), fmaf(v[4 * j + 1] * r, g.y, b.y),
                        fmaf(v[4 * j + 2] * r, g.z, b.z), fmaf(v[4 * j + 3] * r, g.w, b.w));
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < kValues; ++j) {
      if (j < count) {
        const int i = j * kGroup + t;
        yr[i] = fmaf(v[j] * r, __ldg(gamma + i), __ldg(beta + i));
      }
    }
  }
}

// (count, mean, M2) of part of a row (of x - K, in the fallback).
struct Stats {
  float n;
  float mean;
  float m2;
};

// The statistics of the union of two disjoint parts (Chan, Golub & LeVeque): the means meet weighted by
// the counts, and M2 gains delta^2 * na * nb / n for the distance between them. Two empty parts stay
// empty (no 0 / 0); with one empty part the other comes back unchanged.
__device__ __forceinline__ Stats merge(const Stats& a, const Stats& b) {
  const float n = a.n + b.n;
  if (n == 0.0f) return a;
  const float delta = b.mean - a.mean;
  const float wb = b.n / n;
  return Stats{n, a.mean + delta * wb, a.m2 + b.m2 + delta * (delta * (a.n * wb))};
}

// Four values (already shifted) as a part: their mean and M2, two passes in registers.
__device__ __forceinline__ Stats stats_of_four(float a, float b, float c, float d) {
  const float m = ((a + b) + (c + d)) * 0.25f;
  const float da = a - m, db = b - m, dc = c - m, dd = d - m;
  return Stats{4.0f, m, fmaf(da, da, fmaf(db, db, fmaf(dc, dc, dd * dd)))};
}

// Butterfly merge over the warp. The lane whose partner is higher always merges (mine, partner's),
// the other (partner's, mine): both compute the same merge, so every lane ends with the same bits.
__device__ __forceinline__ Stats warp_merge(Stats s) {
  const int lane = threadIdx.x % kWarpSize;
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    const Stats other{__shfl_xor_sync(kFullMask, s.n, offset), __shfl_xor_sync(kFullMask, s.mean, offset),
                      __shfl_xor_sync(kFullMask, s.m2, offset)};
    s = (lane & offset) ? merge(other, s) : merge(s, other);
  }
  return s;
}

// Rows longer than kMaxRegisterCols, one block of kFallbackThreads per row. Pass 1 reads the row once
// into per-thread (count, mean, M2), merged over the block; pass 2 reads it again (1024-thread blocks
// keep a few MiB of rows in flight, so mostly from L2; __ldcs: its last use) and writes y with
// streaming stores, so y does not push x out of L2.
template <bool kFloat4>
__global__ void __launch_bounds__(kFallbackThreads)
    layernorm_fallback_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                              const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                              float* __restrict__ rstd, int cols, float eps) {
  constexpr int kWarps = kFallbackThreads / kWarpSize;
  static_assert(kWarps <= kWarpSize, "one warp merges the per-warp partials: at most 32 warps");
  __shared__ Stats partials[kWarps];
  const std::size_t row = blockIdx.x;
  const float* __restrict__ xr = x + row * static_cast<std::size_t>(cols);
  float* __restrict__ yr = y + row * static_cast<std::size_t>(cols);
  const unsigned t = threadIdx.x;
  const float shift = __ldg(xr);

  // Pass 1: kFallbackLoads loads issued per step before any is used; unsigned indices: i + the step
  // stays below 2^32 for any int cols.
  Stats s{0.0f, 0.0f, 0.0f};
  if constexpr (kFloat4) {
    const unsigned nvec = static_cast<unsigned>(cols) / 4;
    const float4* x4 = reinterpret_cast<const float4*>(xr);
    for (unsigned base = t; base < nvec; base += kFallbackThreads * kFallbackLoads) {
      float4 f[kFallbackLoads];
#pragma unroll
      for (int u = 0; u < kFallbackLoads; ++u) {
        const unsigned i = base + u * kFallbackThreads;
        f[u] = i < nvec ? __ldg(x4 + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
#pragma unroll
      for (int u = 0; u < kFallbackLoads; ++u) {
        if (base + u * kFallbackThreads < nvec)
          s = merge(s, stats_of_four(f[u].x - shift, f[u].y - shift, f[u].z - shift, f[u].w - shift));
      }
    }
  } else {
    const unsigned n = static_cast<unsigned>(cols);
    for (unsigned base = t; base < n; base += kFallbackThreads * kFallbackLoads) {
      float f[kFallbackLoads];
#pragma unroll
      for (int u = 0; u < kFallbackLoads; ++u) {
        const unsigned i = base + u * kFallbackThreads;
        f[u] = i < n ? __ldg(xr + i) : 0.0f;
      }
#pragma unroll
      for (int u = 0; u < kFallbackLoads; ++u) {
        if (base + u * kFallbackThreads < n) s = merge(s, Stats{1.0f, f[u] - shift, 0.0f});
      }
    }
  }

  // The block's statistics, in every thread (every warp merges the same partials in the same order).
  s = warp_merge(s);
  const int lane = static_cast<int>(t % kWarpSize);
  if (lane == 0) partials[t / kWarpSize] = s;
  __syncthreads();
  s = warp_merge(lane < kWarps ? partials[lane] : Stats{0.0f, 0.0f, 0.0f});
  const float shifted_mean = s.mean;
  const float r = 1.0f / sqrtf(s.m2 / static_cast<float>(cols) + eps);
  if (t == 0) {
    mean[row] = shift + shifted_mean;
    rstd[row] = r;
  }

  // Pass 2: d = (x - K) - shifted mean, exactly 0 on a constant row.
  if constexpr (kFloat4) {
    const unsigned nvec = static_cast<unsigned>(cols) / 4;
    const float4* x4 = reinterpret_cast<const float4*>(xr);
    const float4* g4 = reinterpret_cast<const float4*>(gamma);
    const float4* b4 = reinterpret_cast<const float4*>(beta);
    float4* y4 = reinterpret_cast<float4*>(yr);
    for (unsigned i = t; i < nvec; i += kFallbackThreads) {
      const float4 f = __ldcs(x4 + i);
      const float4 g = __ldg(g4 + i);
      const float4 b = __ldg(b4 + i);
      __stcs(y4 + i, make_float4(fmaf(((f.x - shift) - shifted_mean) * r, g.x, b.x),
                                 fmaf(((f.y - shift) - shifted_mean) * r, g.y, b.y),
                                 fmaf(((f.z - shift) - shifted_mean) * r, g.z, b.z),
                                 fmaf(((f.w - shift) - shifted_mean) * r, g.w, b.w)));
    }
  } else {
    const unsigned n = static_cast<unsigned>(cols);
    for (unsigned i = t; i < n; i += kFallbackThreads)
      __stcs(yr + i, fmaf(((__ldcs(xr + i) - shift) - shifted_mean) * r, __ldg(gamma + i), __ldg(beta + i)));
  }
}

// One instantiation per row capacity kGroup * 4 * kVecs: warp-per-row kernels run 256-thread blocks
// (8 rows each), block-per-row kernels one block of kGroup threads per row.
template <int kGroup, int kVecs, int kMinBlocks>
void launch_registers(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                      int rows, int cols, float eps, bool vec4, cudaStream_t stream) {
  static_assert(kGroup % kWarpSize == 0, "a row's group of threads is made of whole warps");
  static_assert(kGroup * 4 * kVecs <= kMaxRegisterCols, "the table below stops at kMaxRegisterCols");
  constexpr int kRowsPerBlock = kBlockThreads<kGroup> / kGroup;
  const int blocks = rows / kRowsPerBlock + (rows % kRowsPerBlock != 0);
  if (vec4)
    layernorm_registers_kernel<kGroup, kVecs, kMinBlocks, true>
        <<<blocks, kBlockThreads<kGroup>, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
  else
    layernorm_registers_kernel<kGroup, kVecs, kMinBlocks, false>
        <<<blocks, kBlockThreads<kGroup>, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

// Launches the kernel(s) for all rows on `stream`.
void layernorm_forward(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                       int rows, int cols, float eps, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // nothing to do, and a grid of 0 blocks is an invalid launch
  // float4 only where every access is 16-byte aligned: every row (cols % 4 == 0) and every pointer.
  const bool vec4 = cols % 4 == 0 && aligned16(x) && aligned16(gamma) && aligned16(beta) && aligned16(y);
  // The smallest instantiation that holds the row: idle registers cost occupancy, not traffic. The
  // third parameter asks registers for that many blocks per SM (chosen from ptxas's counts on sm_90,
  // none spilling): at least 1024 resident threads, and long rows split over 2 blocks per SM where
  // 64 registers hold 32 floats, so one block's barriers overlap the other's loads.
  if (cols <= 128) {
    launch_registers<32, 1, 8>(x, gamma, beta, y, mean, rstd, rows, cols, eps, vec4, stream);
  } else if (cols <= 256) {
    launch_registers<32, 2, 6>(x, gamma, beta, y, mean, rstd, rows, cols, eps, vec4, stream);
  } else if (cols <= 512) {
    launch_registers<32, 4, 4>(x, gamma, beta, y, mean, rstd, rows, cols, eps, vec4, stream);
  } else if (cols <= 1024) {
    launch_registers<32, 8, 4>(x, gamma, beta, y, mean, rstd, rows, cols, eps, vec4, stream);
  } else if (cols <= 2048) {
    launch_registers<256, 2, 6>(x, gamma, beta, y, mean, rstd, rows, cols, eps, vec4, stream);
  } else if (cols <= 4096) {
    launch_registers<256, 4, 5>(x, gamma, beta, y, mean, rstd, rows, cols, eps, vec4, stream);
  } else if (cols <= 8192) {
    launch_registers<256, 8, 4>(x, gamma, beta, y, mean, rstd, rows, cols, eps, vec4, stream);
  } else if (cols <= 16384) {
    launch_registers<512, 8, 2>(x, gamma, beta, y, mean, rstd, rows, cols, eps, vec4, stream);
  } else if (cols <= kMaxRegisterCols) {
    launch_registers<1024, 8, 1>(x, gamma, beta, y, mean, rstd, rows, cols, eps, vec4, stream);
  } else if (vec4) {
    layernorm_fallback_kernel<true><<<rows, kFallbackThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, cols, eps);
  } else {
    layernorm_fallback_kernel<false><<<rows, kFallbackThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, cols, eps);
  }
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: x read once and y written once, 8 bytes per element (gamma, beta, mean and rstd add 8
// bytes per column and per row): 16384 x 4096 moves 537 MB, about 0.18 ms at a copy's ~3 TB/s. The
// statistics cost a few dozen instructions per element at most, hidden under the memory time while
// enough rows are in flight. A second read of x that misses L2 adds 4 bytes to the 8: 50% more time.
int layernorm_forward_lesson(wb::Lesson& lesson) {
  return p2::layernorm_lesson(lesson, "layernorm_forward", layernorm_forward);
}

}  // namespace

WB_LESSON(layernorm_forward_lesson, "LayerNorm forward: one read of x, statistics combined exactly");
