// SPDX-License-Identifier: MIT
// 2.06 rmsnorm_warp: RMSNorm with one warp per row and a shuffle reduction.
//
// You learn: how __shfl_xor_sync folds 32 partial sums so that every lane ends with the total (a
// butterfly: no shared memory, no __syncthreads), why all 32 lanes must take part even when a row
// has fewer than 32 elements (the full-mask rule of 0.07), and when a warp per row beats a block per
// row (2.05): short rows, where a block's barriers cost more than its few loads; and why a short row
// should wait in registers for its sum instead of being read again.
// Task: write rmsnorm_warp_kernel: each warp owns one row (a block's 8 warps, 8 consecutive rows);
// its lanes sum squares over a strided slice (float4 when kFloat4), the butterfly gives every lane
// the row's sum, and a second pass writes in * rsqrt(mean + eps) * weight: from the registers when
// the row fit in one step of pass 1, else re-reading the slice.
// You decide: which slice each lane reads, coalesced; which shuffle gives every lane the total without
//             shared memory; how a warp with no row leaves without breaking a shuffle.
// Source: Zhang & Sennrich, "Root Mean Square Layer Normalization" (2019); NVIDIA blog, "Using CUDA
// Warp-Level Primitives" (the butterfly, and why every lane of a full mask must reach the shuffle).
// Run:   ./workbook run 2.06 [-- --size 65536x1024]
// Check: ./workbook check 2.06
// Aim:   at or above PyTorch's F.rms_norm at 262144 x 256 and 65536 x 1024 (>= 95% of cudaMemcpy) and
//        ahead of 2.05 there; behind 2.05 from 4096 on.
// Previous: 2.05 rmsnorm_block. Next: 2.07 softmax_three_pass.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/lesson_support.h"

namespace {

constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = 8;            // 256 threads, 8 rows per block
constexpr unsigned kFullMask = 0xffffffffu;  // all 32 lanes promise to reach every shuffle
static_assert(kFullMask == (1ull << kWarpSize) - 1, "the full mask has one bit per lane of the warp");
// float4s each lane loads per step, all issued before the first is used: 128 bytes in flight per lane
// instead of 16 (a load from DRAM takes ~1 us; see 2.05). And a row of at most kItems x 32 float4s
// (1024 floats) is read in one step: after the butterfly it is still in the lane's registers.
constexpr int kItems = 8;
static_assert(kItems >= 1 && kItems <= 8, "each of the kItems float4s takes 4 registers per lane");

// ---- kernels ----------------------------------------------------------------------------------------

// No __syncthreads here: the warps of a block never talk to each other, only lanes of one warp do.
// With kFloat4 the launcher has checked that cols % 4 == 0 and that in, weight and out are 16-byte
// aligned, so every row starts on a float4 boundary.
template <bool kFloat4>
__global__ void rmsnorm_warp_kernel(const float* __restrict__ in, const float* __restrict__ weight,
                                    float* __restrict__ out, int rows, int cols, float eps) {
  // The block's 8 warps take 8 consecutive rows; the last block may have warps past the last row.
  const int lane = threadIdx.x % kWarpSize;
  const int row_index = blockIdx.x * kWarpsPerBlock + threadIdx.x / kWarpSize;
  // All 32 lanes of a warp share row_index, so the whole warp leaves together: no lane of a warp
  // that stays can miss a shuffle.
  if (row_index >= rows) return;
  const std::size_t row_start = static_cast<std::size_t>(row_index) * cols;
  // Pass 1: each lane sums the squares of a strided slice of the row (float4s when kFloat4):
  // neighbouring lanes take neighbouring items, so the warp reads 32 neighbouring items at a time,
  // coalesced. Lanes past a short row keep sum = 0. The float4 path takes kItems items per lane per
  // step and issues all kItems loads before it uses the first; `v` holds the step's items, and the
  // whole slice when the row takes one step.
  const float* row = in + row_start;
  float sum = 0.0f;
  float4 v[kItems];
  if constexpr (kFloat4) {
    const float4* row4 = reinterpret_cast<const float4*>(row);
    const int n4 = cols / 4;
    for (int base = lane; base < n4; base += kItems * kWarpSize) {
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        const int i = base + k * kWarpSize;
        v[k] = i < n4 ? __ldg(row4 + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // past the row: 0 adds nothing
      }
#pragma unroll
      for (int k = 0; k < kItems; ++k) sum += v[k].x * v[k].x + v[k].y * v[k].y + v[k].z * v[k].z + v[k].w * v[k].w;
    }
  } else {
    for (int i = lane; i < cols; i += kWarpSize) sum += row[i] * row[i];
  }
  // Butterfly: at each step lane l adds lane l ^ offset's value, so pairs swap and both add. After
  // five steps every lane holds the sum of all 32 (in the same order, so the same bits), unlike
  // __shfl_down_sync, which leaves the total in lane 0 only. Every lane runs every step, even lanes
  // whose slice was empty: their 0 is neutral for +.
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(kFullMask, sum, offset);
  // eps keeps an all-zero row at rsqrt(eps), finite: 0 * rsqrt(eps) = 0, not 0 * inf = NaN.
  const float inv_rms = rsqrtf(sum / static_cast<float>(cols) + eps);
  // Pass 2: a row that took one step of pass 1 is still in `v`: write it from there, and DRAM sees
  // each float once. A longer row is read again (L1 or L2 serves it when the rows in flight fit
  // there). Each value times inv_rms and the column's weight.
  float* out_row = out + row_start;
  if constexpr (kFloat4) {
    const float4* row4 = reinterpret_cast<const float4*>(row);
    const float4* weight4 = reinterpret_cast<const float4*>(weight);
    float4* out4 = reinterpret_cast<float4*>(out_row);
    const int n4 = cols / 4;
    const bool held = n4 <= kItems * kWarpSize;  // the same for the whole warp
    for (int base = lane; base < n4; base += kItems * kWarpSize) {
      if (!held) {
#pragma unroll
        for (int k = 0; k < kItems; ++k) {
          const int i = base + k * kWarpSize;
          v[k] = i < n4 ? row4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        }
      }
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        const int i = base + k * kWarpSize;
        if (i < n4) {
          const float4 w = __ldg(weight4 + i);
          out4[i] = make_float4(v[k].x * inv_rms * w.x, v[k].y * inv_rms * w.y, v[k].z * inv_rms * w.z,
                                v[k].w * inv_rms * w.w);
        }
      }
    }
  } else {
    for (int i = lane; i < cols; i += kWarpSize) out_row[i] = row[i] * inv_rms * weight[i];
  }
}

// ---- launchers --------------------------------------------------------------------------------------

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

void rmsnorm_warp(const float* in, const float* weight, float* out, int rows, int cols, float eps,
                  cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // a grid of 0 blocks is an invalid launch
  const bool use_float4 = cols % 4 == 0 && aligned16(in) && aligned16(weight) && aligned16(out);
  const int blocks = wb::ceil_div(rows, kWarpsPerBlock);  // one warp per row, rounded up
  const int threads = kWarpsPerBlock * kWarpSize;
  if (use_float4) {
    rmsnorm_warp_kernel<true><<<blocks, threads, 0, stream>>>(in, weight, out, rows, cols, eps);
  } else {
    rmsnorm_warp_kernel<false><<<blocks, threads, 0, stream>>>(in, weight, out, rows, cols, eps);
  }
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: the same 8 bytes per element (plus the weight once) as 2.05: 64M floats move 537 MB,
// 0.18 ms at ~3 TB/s. What differs is where pass 2 finds the row. Up to 1024 floats it never looks:
// the row is in registers (8 float4s per lane at 1024, 32 registers), so DRAM sees each float once
// and nothing depends on a cache. Re-reading it instead measured 70% of memcpy at 64K x 1024 on an
// H100: the ~8400 rows in flight (34 MB) crowd the 50 MB L2 that the writes also pass through, and
// part of the re-read goes to DRAM again. At 16384 x 4096 (16 KB rows) the rows in flight are
// 138 MB: much of the re-read misses L2, up to 12 bytes per element instead of 8. At 2048 x 32768
// every row is in flight at once (15 warps per SM): few bytes are in flight. Long rows want 2.05.
int rmsnorm_warp_lesson(wb::Lesson& lesson) {
  return p2::rmsnorm_lesson(lesson, "rmsnorm_warp", rmsnorm_warp);
}

}  // namespace

WB_LESSON(rmsnorm_warp_lesson, "RMSNorm with one warp per row and a shuffle reduction");
