// SPDX-License-Identifier: MIT
// 2.05 rmsnorm_block: RMSNorm with one block per row and a shared-memory reduction.
//
// You learn: how a block shares one row's reduction among its threads, which barriers a block-wide
// reduction needs and who must reach them, what eps is for, and where the bytes of a row come from.
// Task: out[r][c] = in[r][c] * rsqrt(mean over c of in[r][c]^2 + eps) * weight[c], one block per row.
// Write rmsnorm_block_kernel (a float4 path and a plain one) and the launch shape in rmsnorm_block.
// Any rows and cols >= 1 (rows * cols may pass 2^31); an all-zero row gives zeros, never NaN.
// Constraints: every thread's registers fit the given __launch_bounds__ (32 per thread, whatever
// blockDim.x you launch); the reduction is race-free (racecheck) and no block hangs, for every
// blockDim.x your launcher can pick.
// You decide: which items of the row each thread reads, and how many bytes it has in flight;
//             how the threads' sums meet in shared memory, and where the barriers go;
//             how many threads a row gets, and the shared memory that takes.
// Source: Zhang & Sennrich, "Root Mean Square Layer Normalization" (2019).
// Run:   ./workbook run 2.05 [-- --size 16384x4096]
// Check: ./workbook check 2.05
// Aim:   >= 80% of the cudaMemcpy bandwidth at 16384 x 4096 (H100).
// Previous: 2.04 fused_bias_gelu. Next: 2.06 rmsnorm_warp.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/lesson_support.h"

namespace {

// A load takes several hundred nanoseconds from DRAM, up to ~1 us under full load, and ~3 TB/s times
// that is 2-3 MB that must be in flight at every moment to keep the bus busy: 15-23 KB per SM of an
// H100 (the napkin math below counts yours).
// Items (float4s, or floats on the plain path) each thread loads per round before it uses the first:
// four float4s put 64 bytes per thread in flight (one at a time measured 74% of memcpy at 16384 x 4096
// on an H100) in 16 of the 32 registers. A row of at most kItems x blockDim.x items takes one round
// and stays in those registers until its scale is known.
constexpr int kItems = 4;
constexpr int kWarp = 32;

// Items first + threadIdx.x + k * blockDim.x (k < kItems) of the row into v, zeros past `items`: at
// each k a warp reads 32 neighbouring items (coalesced), and all kItems loads are issued before any
// is used.
template <bool kFloat4>
__device__ __forceinline__ void load_round(const float* row, int first, int items,
                                           float (&v)[kItems][kFloat4 ? 4 : 1]) {
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = first + threadIdx.x + k * blockDim.x;
    if constexpr (kFloat4) {
      const float4 f =
          i < items ? __ldg(reinterpret_cast<const float4*>(row) + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      v[k][0] = f.x, v[k][1] = f.y, v[k][2] = f.z, v[k][3] = f.w;
    } else {
      v[k][0] = i < items ? __ldg(row + i) : 0.0f;
    }
  }
}

// The same items of out: each times inv_rms and its column's weight, none past `items`.
template <bool kFloat4>
__device__ __forceinline__ void store_round(float* out_row, const float* weight, int first, int items, float inv_rms,
                                            const float (&v)[kItems][kFloat4 ? 4 : 1]) {
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int i = first + threadIdx.x + k * blockDim.x;
    if (i >= items) break;  // the later k are further along the row
    if constexpr (kFloat4) {
      const float4 w = __ldg(reinterpret_cast<const float4*>(weight) + i);
      reinterpret_cast<float4*>(out_row)[i] = make_float4(v[k][0] * inv_rms * w.x, v[k][1] * inv_rms * w.y,
                                                          v[k][2] * inv_rms * w.z, v[k][3] * inv_rms * w.w);
    } else {
      out_row[i] = v[k][0] * inv_rms * weight[i];
    }
  }
}

// ---- kernels ----------------------------------------------------------------------------------------

// One block per row: blockIdx.x is the row. blockDim.x and the dynamic shared memory are your
// launcher's choice (below): make them what this kernel assumes. With kFloat4 the launcher has checked
// that cols % 4 == 0 and that in, weight and out are 16-byte aligned, so every row starts on a float4
// boundary. __launch_bounds__ (given, a constraint): ptxas compiles one kernel for every block size,
// sized for two blocks of 1024 threads per SM (Ampere's 2048 threads per SM on), so every thread gets
// at most 32 registers even when your launcher picks 64 or 256 threads; whatever a thread keeps in
// flight must fit in them (ptxas warns of a spill when building for sm_90 and newer; with
// WORKBOOK_WERROR=ON, as in the gpu preset and CI, the warning fails the build).
template <bool kFloat4>
__global__ void __launch_bounds__(1024, wb::kMaxThreadsPerSm / 1024)
    rmsnorm_block_kernel(const float* __restrict__ in, const float* __restrict__ weight, float* __restrict__ out,
                         int cols, float eps) {
  constexpr int kWidth = kFloat4 ? 4 : 1;  // floats per item
  // size_t: an int product would wrap.
  const std::size_t row_start = static_cast<std::size_t>(blockIdx.x) * cols;
  const float* row = in + row_start;
  const int items = cols / kWidth;  // the float4 path has cols % 4 == 0
  const int per_round = kItems * static_cast<int>(blockDim.x);
  float v[kItems][kWidth];
  float sum = 0.0f;
  for (int first = 0; first < items; first += per_round) {  // one round at least: items >= 1
    load_round<kFloat4>(row, first, items, v);
#pragma unroll
    for (int k = 0; k < kItems; ++k)
#pragma unroll
      for (int j = 0; j < kWidth; ++j) sum = fmaf(v[k][j], v[k][j], sum);
  }
  // The block's total with one barrier: a butterfly leaves each warp's sum in all its lanes (0.07),
  // lane 0 puts it in the warp's slot, and after the barrier every warp folds the slots by the same
  // butterfly, so every thread holds the same total. blockDim.x is a multiple of 32 (the launcher's),
  // so every shuffle has all 32 lanes.
  extern __shared__ float warp_sums[];  // blockDim.x / 32 floats: the launcher's shared_bytes
  const int lane = threadIdx.x % kWarp;
  for (int offset = kWarp / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0) warp_sums[threadIdx.x / kWarp] = sum;
  __syncthreads();  // every warp's slot written before any warp reads them; reached by every thread
  float total = lane < static_cast<int>(blockDim.x) / kWarp ? warp_sums[lane] : 0.0f;
  for (int offset = kWarp / 2; offset > 0; offset /= 2) total += __shfl_xor_sync(0xffffffffu, total, offset);
  // eps keeps an all-zero row at rsqrt(eps), finite, so 0 * rsqrt(eps) = 0 instead of 0 * inf = NaN.
  const float inv_rms = rsqrtf(total / static_cast<float>(cols) + eps);
  // The last round is still in v: it goes out first, and only the rounds before it are read again
  // (this block read them microseconds ago: L1 or L2 serves most of it). A row of one round is read
  // once.
  const int last = (items - 1) / per_round * per_round;  // the same for the whole block
  float* out_row = out + row_start;
  store_round<kFloat4>(out_row, weight, last, items, inv_rms, v);
  for (int first = 0; first < last; first += per_round) {
    load_round<kFloat4>(row, first, items, v);
    store_round<kFloat4>(out_row, weight, first, items, inv_rms, v);
  }
}

// ---- launchers --------------------------------------------------------------------------------------

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

void rmsnorm_block(const float* in, const float* weight, float* out, int rows, int cols, float eps,
                   cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // a grid of 0 blocks is an invalid launch
  // The float4 path needs whole float4 rows and 16-byte aligned pointers (given: a misaligned float4
  // access is a fault, not a slow path).
  const bool use_float4 = cols % 4 == 0 && aligned16(in) && aligned16(weight) && aligned16(out);
  // The launch shape. As given, one warp per row and no shared memory: it runs, it does not pass.
  int threads = 32;
  std::size_t shared_bytes = 0;
  // Enough whole warps that one round of kItems items each covers the row (up to 1024 threads: rows to
  // 16384 floats on the float4 path stay in registers, longer ones take several rounds), and no more,
  // so that short rows leave room for many blocks per SM. One float of shared memory per warp.
  const int items = use_float4 ? cols / 4 : cols;
  threads = std::min(1024, wb::ceil_div(wb::ceil_div(items, kItems), kWarp) * kWarp);
  shared_bytes = static_cast<std::size_t>(threads / kWarp) * sizeof(float);
  if (use_float4) {
    rmsnorm_block_kernel<true><<<rows, threads, shared_bytes, stream>>>(in, weight, out, cols, eps);
  } else {
    rmsnorm_block_kernel<false><<<rows, threads, shared_bytes, stream>>>(in, weight, out, cols, eps);
  }
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 4 bytes read + 4 written per element, plus the weight once: 16384 x 4096 moves
// 537 MB, 0.18 ms at ~3 TB/s, if DRAM sees each float of in once. Can a row wait on chip until its
// scale is known, and if it is read again, from L1, L2 or DRAM? Count the rows your launch keeps in
// flight (blocks per SM x 132 SMs) times a row's bytes, at 4096 and at 32768 columns, against the
// H100's 256 KB of L1 per SM and 50 MB of L2. What limits you then is bytes in flight: a block waits
// at its barriers for its slowest thread's chain of loads. Count the bytes one thread has requested
// and not yet used, times the threads an SM holds, against the 15-23 KB per SM at the top of this file.
int rmsnorm_block_lesson(wb::Lesson& lesson) {
  return p2::rmsnorm_lesson(lesson, "rmsnorm_block", rmsnorm_block);
}

}  // namespace

WB_LESSON(rmsnorm_block_lesson, "RMSNorm with one block per row and a shared-memory reduction");
