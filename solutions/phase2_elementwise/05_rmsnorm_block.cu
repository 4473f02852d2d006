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
// float4s (or floats) each thread loads per step before it uses the first: four put 64 bytes per
// thread in flight (one per step measured 74% of memcpy at 16384 x 4096 on an H100).
constexpr int kItems = 4;

// ---- kernels ----------------------------------------------------------------------------------------

// One block per row: blockIdx.x is the row. blockDim.x and the dynamic shared memory are your
// launcher's choice (below): make them what this kernel assumes. With kFloat4 the launcher has checked
// that cols % 4 == 0 and that in, weight and out are 16-byte aligned, so every row starts on a float4
// boundary. __launch_bounds__ (given, a constraint): ptxas compiles one kernel for every block size,
// sized for two blocks of 1024 threads per SM (Ampere's 2048 threads per SM on), so every thread gets
// at most 32 registers even when your launcher picks 64 or 256 threads; whatever a thread keeps in
// flight must fit in them (a spill fails the build: the course builds with -warn-spills as an error).
template <bool kFloat4>
__global__ void __launch_bounds__(1024, wb::kMaxThreadsPerSm / 1024)
    rmsnorm_block_kernel(const float* __restrict__ in, const float* __restrict__ weight, float* __restrict__ out,
                         int cols, float eps) {
  // size_t: an int product would wrap.
  const std::size_t row_start = static_cast<std::size_t>(blockIdx.x) * cols;
  // A strided slice: neighbouring threads take neighbouring items, so a warp reads 32 neighbouring
  // items (coalesced). The float4 path takes kItems of them per step and issues all kItems loads
  // before it uses the first.
  const float* row = in + row_start;
  float sum = 0.0f;
  if constexpr (kFloat4) {
    const float4* row4 = reinterpret_cast<const float4*>(row);
    const int n4 = cols / 4;
    for (int base = threadIdx.x; base < n4; base += kItems * blockDim.x) {
      float4 v[kItems];
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        const int i = base + k * blockDim.x;
        v[k] = i < n4 ? row4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);  // past the row: 0 adds nothing
      }
#pragma unroll
      for (int k = 0; k < kItems; ++k) sum += v[k].x * v[k].x + v[k].y * v[k].y + v[k].z * v[k].z + v[k].w * v[k].w;
    }
  } else {
    for (int i = threadIdx.x; i < cols; i += blockDim.x) sum += row[i] * row[i];
  }
  // One slot per thread (the launcher passes blockDim.x floats), then 0.08's tree, once per row.
  extern __shared__ float partial[];
  partial[threadIdx.x] = sum;
  __syncthreads();  // every slot written before any thread reads a neighbour's
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    // Outside the if: every thread must reach every barrier. It publishes this step's sums.
    __syncthreads();
  }
  // Every thread reads slot 0 (a broadcast). eps keeps an all-zero row at rsqrt(eps), finite, so
  // 0 * rsqrt(eps) = 0 instead of 0 * inf = NaN.
  const float inv_rms = rsqrtf(partial[0] / static_cast<float>(cols) + eps);
  // The same slice again (this block read it microseconds ago: L1 or L2 serves it), times inv_rms and
  // the column's weight.
  float* out_row = out + row_start;
  if constexpr (kFloat4) {
    const float4* row4 = reinterpret_cast<const float4*>(row);
    const float4* weight4 = reinterpret_cast<const float4*>(weight);
    float4* out4 = reinterpret_cast<float4*>(out_row);
    const int n4 = cols / 4;
    for (int base = threadIdx.x; base < n4; base += kItems * blockDim.x) {
      float4 v[kItems];
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        const int i = base + k * blockDim.x;
        v[k] = i < n4 ? row4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      }
#pragma unroll
      for (int k = 0; k < kItems; ++k) {
        const int i = base + k * blockDim.x;
        if (i < n4) {
          const float4 w = weight4[i];
          out4[i] = make_float4(v[k].x * inv_rms * w.x, v[k].y * inv_rms * w.y, v[k].z * inv_rms * w.z,
                                v[k].w * inv_rms * w.w);
        }
      }
    }
  } else {
    for (int i = threadIdx.x; i < cols; i += blockDim.x) out_row[i] = row[i] * inv_rms * weight[i];
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
  // About kItems items (float4s or floats) per thread: one step of loads covers rows up to 4 x 1024
  // float4s, and blocks stay small enough that several rows share an SM. A power of two (the tree
  // halves it) between one warp and 1024 threads.
  const int wanted = wb::ceil_div(use_float4 ? cols / 4 : cols, kItems);
  while (threads < wanted && threads < 1024) threads *= 2;
  shared_bytes = static_cast<std::size_t>(threads) * sizeof(float);  // one slot per thread
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
