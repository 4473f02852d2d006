// SPDX-License-Identifier: MIT
// 2.10 layernorm: LayerNorm forward, the phase's capstone: statistics that survive a large mean, one
// read of x, a copy's speed at every row length.
//
// You learn: to design a row kernel from what 2.05-2.09 taught, and why the variance of float data is
// taken as (count, mean, M2) partials combined exactly instead of as E[x^2] - E[x]^2, which loses
// every digit once the mean is 1e4 times the spread.
// Task: layernorm_forward (elementwise.cuh): y = (x - mean) * rstd * gamma + beta over each row of a
// rows x cols matrix, rstd = 1 / sqrt(var + eps) with the population variance, mean and rstd written
// per row. Read x once and write y once; any rows, any cols >= 1 (32768 and beyond), any float-aligned
// pointers.
// You decide: who owns a row (a warp or a block, by cols); where the row waits between its statistics
//             and its write (registers, shared memory, or a second read that L2 serves); how the
//             (count, mean, M2) partials of threads, warps and the block are combined.
// Source: Ba, Kiros & Hinton, "Layer Normalization" (2016); Welford, "Note on a Method for Calculating
// Corrected Sums of Squares and Products" (1962); Chan, Golub & LeVeque, "Algorithms for Computing the
// Sample Variance: Analysis and Recommendations" (1983): the pairwise combination of partials.
// Run:   ./workbook run 2.10 [-- --size 16384x4096]
// Check: ./workbook check 2.10
// Aim:   >= 85% of memcpy at 16384 x 4096 (H100), and at or above PyTorch's F.layer_norm at every
//        p2_bench shape (it measured 39 / 83 / 67 / 52% of a copy at 256 / 1024 / 4096 / 32768 columns).
// Previous: 2.09 softmax_single_read. Next: phase 3, reductions.

#include <cstddef>
#include <cstdint>

#include "common/workbook.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/rowwise_lesson.h"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

// What decides correctness, whatever your design:
// - The statistics: mean and the population variance var = M2 / cols (M2 = sum of (x - mean)^2), from
//   one read of x. Summing x and x^2 in one pass cancels catastrophically: at 1e4 + noise of std 1,
//   x^2 ~ 1e8 rounds by up to 4 in float, more than the whole variance. The (count, mean, M2) of two
//   disjoint parts of a row combine exactly into those of their union (Chan, Golub & LeVeque): work out
//   the correction term, or read the hints.
// - Every row length: cols % 4 != 0 leaves every row after the first off 16-byte alignment, and x,
//   gamma, beta or y may start 4 bytes past a 16-byte boundary: a 16-byte access must be aligned.
// - Constant rows: x - mean must come out exactly 0, so that y = beta exactly and rstd = 1 / sqrt(eps).
// - Lanes and threads without data still reach every full-mask shuffle and every __syncthreads, with a
//   partial that changes nothing (count 0). Offsets in size_t: rows * cols may pass 2^31.
// - Speed: x from DRAM once. A row of 32768 floats is 128 KiB; an SM has 256 KiB of registers (at most
//   255 a thread, 64K in all) and up to 227 KiB of shared memory for a block. gamma and beta are read
//   by every row: they stay in L1 and L2.
constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;  // every lane of the warp takes part in every shuffle
static_assert(kFullMask == (1ull << kWarpSize) - 1, "the full mask has one bit per lane of the warp");
// The longest row held in registers: 1024 threads x 32 floats, 128 KiB, half the SM's register file.
constexpr int kMaxRegisterCols = 32768;
constexpr int kFallbackThreads = 1024;
constexpr int kFallbackItems = 4;  // loads each fallback thread issues before it uses the first

// The statistics of part of a row: n values, their mean, and M2 = the sum of (x - mean)^2 over them.
// An empty part is {0, 0, 0}.
struct Stats {
  float n;
  float mean;
  float m2;
};

// Chan, Golub & LeVeque's combination of two disjoint parts: with delta = b.mean - a.mean,
//   n = n_a + n_b,   mean = mean_a + delta n_b / n,   M2 = M2_a + M2_b + delta^2 n_a n_b / n.
// Exact in real arithmetic. In float every term is the size of the spread, never of the mean, so a
// mean of 1e4 costs only the rounding of the means themselves. An empty part changes nothing (and two
// empty parts must not divide 0 by 0). The weight n_b / n through __fdividef (2 ulp) moves the mean by
// a few u of |delta|, well inside the graded bound; with both parts non-empty a constant row still has
// delta = 0 exactly, so its mean stays exact.
__device__ __forceinline__ Stats combine(const Stats& a, const Stats& b) {
  if (b.n == 0.0f) return a;
  if (a.n == 0.0f) return b;
  const float n = a.n + b.n;
  const float delta = b.mean - a.mean;
  const float w = __fdividef(b.n, n);
  return Stats{n, fmaf(delta, w, a.mean), fmaf(delta * delta * a.n, w, a.m2 + b.m2)};
}

// Butterfly over the warp, as 2.06's sum: after five steps every lane holds the warp's statistics.
// Both lanes of a pair combine (lower lane's part, upper lane's part) in that order, so they compute
// the same bits, and at the end so does every lane of the warp.
__device__ __forceinline__ Stats warp_combine(Stats s) {
  const int lane = static_cast<int>(threadIdx.x % kWarpSize);
#pragma unroll
  for (int offset = 1; offset < kWarpSize; offset *= 2) {
    const Stats other{__shfl_xor_sync(kFullMask, s.n, offset), __shfl_xor_sync(kFullMask, s.mean, offset),
                      __shfl_xor_sync(kFullMask, s.m2, offset)};
    const bool upper = (lane & offset) != 0;
    s = combine(upper ? other : s, upper ? s : other);
  }
  return s;
}

// The statistics of the kGroup threads that share a row, in every one of them: a warp needs only
// shuffles; a block (one row per block) adds one round through shared memory and one barrier.
template <int kGroup>
__device__ __forceinline__ Stats group_combine(Stats s, Stats* partials) {
  s = warp_combine(s);
  if constexpr (kGroup > kWarpSize) {
    constexpr int kWarps = kGroup / kWarpSize;
    static_assert(kWarps <= kWarpSize, "one warp combines the per-warp partials: at most 32 warps per row");
    const int lane = static_cast<int>(threadIdx.x % kWarpSize);
    if (lane == 0) partials[threadIdx.x / kWarpSize] = s;
    __syncthreads();  // every warp's partial is in shared memory before any warp reads them
    // Every warp combines all partials itself (no second barrier, every thread gets the result, the
    // same bits everywhere); lanes past kWarps hold the empty part and still shuffle.
    s = lane < kWarps ? partials[lane] : Stats{0.0f, 0.0f, 0.0f};
    s = warp_combine(s);
  }
  return s;
}

// One row per group of kGroup threads (a warp, or the whole block); each thread keeps 4 * kVecs values
// of the row in registers from the one read to the write. kFloat4: cols % 4 == 0 and every pointer is
// 16-byte aligned, so thread t loads float4s i * kGroup + t (a warp reads 512 contiguous bytes);
// otherwise floats k * kGroup + t. The array is indexed only by compile-time constants (fully unrolled
// loops), so it lives in registers. __launch_bounds__: the block size, and enough blocks per SM that
// the compiler keeps to 64 registers a thread (1024 threads' worth of registers per SM).
template <int kGroup, int kVecs, bool kFloat4>
__global__ void __launch_bounds__(kGroup < 256 ? 256 : kGroup, kGroup < 256 ? 4 : 1024 / kGroup)
    layernorm_registers_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                               const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                               float* __restrict__ rstd, int rows, int cols, float eps) {
  constexpr int kBlock = kGroup < 256 ? 256 : kGroup;
  constexpr int kPerThread = 4 * kVecs;
  // A whole group leaves together (kGroup is a multiple of 32), so no shuffle loses a lane; in block
  // mode no thread leaves, so the barrier stays reachable.
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * (kBlock / kGroup) + threadIdx.x / kGroup;
  if (row >= static_cast<std::size_t>(rows)) return;
  const int t = static_cast<int>(threadIdx.x % kGroup);
  const float* xr = x + row * cols;  // size_t: rows * cols may pass 2^31
  float* yr = y + row * cols;
  __shared__ Stats partials[kGroup / kWarpSize];  // used in block mode only
  // Position k of this thread's array holds the row's element at(k); nothing when at(k) >= cols.
  const auto at = [&](int k) { return kFloat4 ? 4 * ((k / 4) * kGroup + t) + k % 4 : k * kGroup + t; };

  // 1. The one read. Zeros past the row join no statistic: the count says how many values are real.
  float v[kPerThread];
  if constexpr (kFloat4) {
    const float4* x4 = reinterpret_cast<const float4*>(xr);
#pragma unroll
    for (int i = 0; i < kVecs; ++i) {
      const int q = i * kGroup + t;
      const float4 f = q < cols / 4 ? x4[q] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      v[4 * i] = f.x;
      v[4 * i + 1] = f.y;
      v[4 * i + 2] = f.z;
      v[4 * i + 3] = f.w;
    }
  } else {
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) v[k] = at(k) < cols ? xr[at(k)] : 0.0f;
  }
  // 2. This thread's part, exactly: its values are on chip, so two passes over them read no memory.
  float n = 0.0f, sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    n += at(k) < cols ? 1.0f : 0.0f;
    sum += v[k];
  }
  const float local_mean = n > 0.0f ? sum / n : 0.0f;
  float m2 = 0.0f;
#pragma unroll
  for (int k = 0; k < kPerThread; ++k) {
    const float d = at(k) < cols ? v[k] - local_mean : 0.0f;
    m2 = fmaf(d, d, m2);
  }
  // 3. The row's statistics, in every thread of the group; one thread stores them.
  const Stats s = group_combine<kGroup>(Stats{n, local_mean, m2}, partials);
  const float mu = s.mean;
  const float r = rsqrtf(s.m2 / static_cast<float>(cols) + eps);  // the population variance: M2 / cols
  if (t == 0) {
    mean[row] = mu;
    rstd[row] = r;
  }
  // 4. The one write: x - mean first (exactly 0 in a constant row), then the scale and the shift.
  if constexpr (kFloat4) {
    const float4* g4 = reinterpret_cast<const float4*>(gamma);
    const float4* b4 = reinterpret_cast<const float4*>(beta);
    float4* y4 = reinterpret_cast<float4*>(yr);
#pragma unroll
    for (int i = 0; i < kVecs; ++i) {
      const int q = i * kGroup + t;
      if (q < cols / 4) {
        const float4 g = g4[q];  // gamma and beta: read by every row, L1 and L2 serve them
        const float4 b = b4[q];
        y4[q] = make_float4(fmaf((v[4 * i] - mu) * r, g.x, b.x), fmaf((v[4 * i + 1] - mu) * r, g.y, b.y),
                            fmaf((v[4 * i + 2] - mu) * r, g.z, b.z), fmaf((v[4 * i + 3] - mu) * r, g.w, b.w));
      }
    }
  } else {
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int c = at(k);
      if (c < cols) yr[c] = fmaf((v[k] - mu) * r, __ldg(gamma + c), __ldg(beta + c));
    }
  }
}

// The statistics of one float4, as the register kernel takes a thread's part: the mean, then M2 around it.
__device__ __forceinline__ Stats float4_stats(const float4& f) {
  const float m = ((f.x + f.y) + (f.z + f.w)) * 0.25f;
  const float a = f.x - m, b = f.y - m, c = f.z - m, d = f.w - m;
  return Stats{4.0f, m, fmaf(a, a, fmaf(b, b, fmaf(c, c, d * d)))};
}

// Rows longer than kMaxRegisterCols, which no block's registers hold. Pass 1 reads the row for its
// statistics (kFallbackItems loads in flight per thread, each folded in with combine), pass 2 reads
// it again to write. One 1024-thread block per SM keeps 132 rows in flight on an H100: rows up to
// ~90K floats (45 MiB in all) stay in the 50 MiB L2 for the second read; longer ones pay it in DRAM.
template <bool kFloat4>
__global__ void __launch_bounds__(kFallbackThreads, 1)
    layernorm_two_pass_kernel(const float* __restrict__ x, const float* __restrict__ gamma,
                              const float* __restrict__ beta, float* __restrict__ y, float* __restrict__ mean,
                              float* __restrict__ rstd, int cols, float eps) {
  const std::size_t row = blockIdx.x;
  const float* xr = x + row * cols;
  float* yr = y + row * cols;
  const int t = static_cast<int>(threadIdx.x);
  __shared__ Stats partials[kFallbackThreads / kWarpSize];
  const float4* x4 = reinterpret_cast<const float4*>(xr);
  const int n4 = cols / 4;

  Stats s{0.0f, 0.0f, 0.0f};
  if constexpr (kFloat4) {
    for (int base = t; base < n4; base += kFallbackItems * kFallbackThreads) {
      float4 f[kFallbackItems];
#pragma unroll
      for (int j = 0; j < kFallbackItems; ++j) {
        const int q = base + j * kFallbackThreads;
        f[j] = q < n4 ? x4[q] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
#pragma unroll
      for (int j = 0; j < kFallbackItems; ++j)
        if (base + j * kFallbackThreads < n4) s = combine(s, float4_stats(f[j]));
    }
  } else {
    for (int base = t; base < cols; base += kFallbackItems * kFallbackThreads) {
      float f[kFallbackItems];
#pragma unroll
      for (int j = 0; j < kFallbackItems; ++j) {
        const int c = base + j * kFallbackThreads;
        f[j] = c < cols ? xr[c] : 0.0f;
      }
#pragma unroll
      for (int j = 0; j < kFallbackItems; ++j)
        if (base + j * kFallbackThreads < cols) s = combine(s, Stats{1.0f, f[j], 0.0f});  // Welford's update
    }
  }
  s = group_combine<kFallbackThreads>(s, partials);
  const float mu = s.mean;
  const float r = rsqrtf(s.m2 / static_cast<float>(cols) + eps);
  if (t == 0) {
    mean[row] = mu;
    rstd[row] = r;
  }
  // Pass 2: the second read of the row (its last use: __ldcs marks it evict-first) and the write
  // (streaming stores, so y does not push the rows still to be re-read out of L2).
  if constexpr (kFloat4) {
    const float4* g4 = reinterpret_cast<const float4*>(gamma);
    const float4* b4 = reinterpret_cast<const float4*>(beta);
    float4* y4 = reinterpret_cast<float4*>(yr);
    for (int q = t; q < n4; q += kFallbackThreads) {
      const float4 f = __ldcs(x4 + q);
      const float4 g = __ldg(g4 + q);
      const float4 b = __ldg(b4 + q);
      __stcs(y4 + q, make_float4(fmaf((f.x - mu) * r, g.x, b.x), fmaf((f.y - mu) * r, g.y, b.y),
                                 fmaf((f.z - mu) * r, g.z, b.z), fmaf((f.w - mu) * r, g.w, b.w)));
    }
  } else {
    for (int c = t; c < cols; c += kFallbackThreads)
      __stcs(yr + c, fmaf((__ldcs(xr + c) - mu) * r, __ldg(gamma + c), __ldg(beta + c)));
  }
}

// One register-resident instantiation, row capacity kGroup * 4 * kVecs: warp-per-row kernels run 8
// rows per 256-thread block, block-per-row kernels one row per block of kGroup threads.
template <int kGroup, int kVecs>
void launch_registers(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                      int rows, int cols, float eps, bool use_float4, cudaStream_t stream) {
  static_assert(kGroup % kWarpSize == 0, "a row's group of threads is made of whole warps");
  constexpr int kBlock = kGroup < 256 ? 256 : kGroup;
  constexpr int kRowsPerBlock = kBlock / kGroup;
  const unsigned blocks = static_cast<unsigned>((static_cast<long long>(rows) + kRowsPerBlock - 1) / kRowsPerBlock);
  if (use_float4) {
    layernorm_registers_kernel<kGroup, kVecs, true>
        <<<blocks, kBlock, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
  } else {
    layernorm_registers_kernel<kGroup, kVecs, false>
        <<<blocks, kBlock, 0, stream>>>(x, gamma, beta, y, mean, rstd, rows, cols, eps);
  }
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

// Launches the kernel(s) for all rows on `stream`, each row's path picked from cols and alignment.
void layernorm_forward(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                       int rows, int cols, float eps, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // nothing to do, and a grid of 0 blocks is an invalid launch
  const bool use_float4 = cols % 4 == 0 && aligned16(x) && aligned16(gamma) && aligned16(beta) && aligned16(y);
  // The smallest instantiation that holds the row: idle registers cost occupancy, not traffic. A warp
  // per row up to 1024 floats (no barrier at all), a block per row up to 32768.
  if (cols <= 128) {
    launch_registers<32, 1>(x, gamma, beta, y, mean, rstd, rows, cols, eps, use_float4, stream);
  } else if (cols <= 256) {
    launch_registers<32, 2>(x, gamma, beta, y, mean, rstd, rows, cols, eps, use_float4, stream);
  } else if (cols <= 512) {
    launch_registers<32, 4>(x, gamma, beta, y, mean, rstd, rows, cols, eps, use_float4, stream);
  } else if (cols <= 1024) {
    launch_registers<32, 8>(x, gamma, beta, y, mean, rstd, rows, cols, eps, use_float4, stream);
  } else if (cols <= 2048) {
    launch_registers<256, 2>(x, gamma, beta, y, mean, rstd, rows, cols, eps, use_float4, stream);
  } else if (cols <= 4096) {
    launch_registers<256, 4>(x, gamma, beta, y, mean, rstd, rows, cols, eps, use_float4, stream);
  } else if (cols <= 8192) {
    launch_registers<512, 4>(x, gamma, beta, y, mean, rstd, rows, cols, eps, use_float4, stream);
  } else if (cols <= 16384) {
    launch_registers<512, 8>(x, gamma, beta, y, mean, rstd, rows, cols, eps, use_float4, stream);
  } else if (cols <= kMaxRegisterCols) {
    launch_registers<1024, 8>(x, gamma, beta, y, mean, rstd, rows, cols, eps, use_float4, stream);
  } else if (use_float4) {
    layernorm_two_pass_kernel<true><<<rows, kFallbackThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, cols, eps);
  } else {
    layernorm_two_pass_kernel<false><<<rows, kFallbackThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, cols, eps);
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
