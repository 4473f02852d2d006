// SPDX-License-Identifier: MIT
// 3.07 many_per_thread: algorithmic cascading, many elements per thread with float4 loads.
//
// You learn: that the tree is cheap only when each thread has first summed many elements on its
// own: a grid of a few blocks per SM, a grid-stride loop of 16-byte loads (four independent ones in
// flight per thread), then one small tree per block, and two passes in all.
// Task: in reduce_many_per_thread_kernel, sum this thread's share of the array into `sum`, reading
// 16-byte vectors with several loads in flight per thread. The tree (3.05's answer: solve 3.05 first)
// and the launcher are given.
// You decide: which vectors a thread takes (the grid is capped at 8 blocks per SM); how many loads it
//             keeps in flight per trip; how the leftover vectors and the last n % 4 floats are taken.
// Source: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA), reduction #7:
// multiple elements per thread; NVIDIA blog, "CUDA Pro Tip: Increase Performance with Vectorized Memory
// Access" (16-byte loads).
// Holds 3.05's answer: solve 3.05 first (the last warp's steps are given here).
// Run:   ./workbook run 3.07 [-- --size 256M]
// Check: ./workbook check 3.07
// Aim:   above 90% of CUB: the loads now keep HBM busy (99% on an H100, 2952 GB/s on 1 GiB).
// Previous: 3.06 complete_unroll. Next: 3.08 shuffle.

#include <cstdint>
#include <stdexcept>

#include "common/workbook.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/passes.h"
#include "phase3_reduction/reduction.cuh"

namespace {

constexpr int kBlockSize = 256;
// 8 blocks of 256 threads fill an SM of 2048 threads: one wave, no tail of half-empty SMs.
constexpr int kBlocksPerSm = 8;
// A block of a grid-stride kernel covers at least this many elements before the grid is capped.
constexpr std::size_t kElementsPerBlock = std::size_t(kBlockSize) * 16;

// ---- kernels ----------------------------------------------------------------------------------------

// The sum of a float4's four lanes. (maybe_unused: the stub does not call it yet.)
[[maybe_unused]] __device__ __forceinline__ float lane_sum(float4 q) {
  return (q.x + q.y) + (q.z + q.w);
}

__global__ void __launch_bounds__(kBlockSize)
    reduce_many_per_thread_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  __shared__ float partial[kBlockSize];
  const unsigned int tid = threadIdx.x;
  float sum = 0.0f;
  // in comes from cudaMalloc (256-byte aligned; the launcher checks 16), so in4[v] = in[4v .. 4v+3].
  // Loads issued before the first add that needs them are in flight together: how many bytes must each
  // of an SM's 2048 threads keep in flight to cover HBM's latency (README: the napkin math)? A warp
  // whose lanes read consecutive float4s reads 512 contiguous bytes per load instruction.
  // TODO(3.07): add this thread's grid-stride share of in into sum, with several independent float4
  //             loads in flight per thread (about 14 lines). Every element exactly once, none past n
  //             (n need not be a multiple of 4); index with std::size_t. lane_sum adds a float4's lanes.
  partial[tid] = sum;
  __syncthreads();
  // The tree of 3.05 on 256 per-thread sums: block-wide steps down to 64, then warp 0 with __syncwarp.
  for (unsigned int s = blockDim.x / 2; s > 32; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid < 32) {
#pragma unroll
    for (unsigned int offset = 32; offset > 0; offset /= 2) {
      const float v = partial[tid] + partial[tid + offset];
      __syncwarp();
      partial[tid] = v;
      __syncwarp();
    }
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

// Pass 1: at most 8 blocks per SM (1056 on an H100) whatever n is; pass 2: one block sums the block
// sums (they start the workspace, so they are 16-byte aligned too).
void reduce_many_per_thread(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream) {
  if (reinterpret_cast<std::uintptr_t>(in) % 16 != 0)
    throw std::invalid_argument("reduce_many_per_thread: in must be 16-byte aligned for float4 loads");
  const std::size_t max_blocks = static_cast<std::size_t>(wb::current_sm_count()) * kBlocksPerSm;
  reduce_in_passes(in, out, n, workspace, stream, kElementsPerBlock, max_blocks,
                   [&](const float* src, float* dst, std::size_t count, unsigned int blocks) {
                     reduce_many_per_thread_kernel<<<blocks, kBlockSize, 0, stream>>>(src, dst, count);
                     CUDA_CHECK_KERNEL();
                   });
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 1 GiB read once, 0.36 ms at CUB's speed. 1056 blocks x 256 threads = 270K threads,
// each summing about 1000 floats in registers: the tree and the second pass (1056 numbers) are now
// noise, and the time is the time to stream 1 GiB.
int many_per_thread_lesson(wb::Lesson& lesson) {
  return p3::run_reduce_lesson(lesson, {{"reduce_many_per_thread", reduce_many_per_thread}});
}

}  // namespace

WB_LESSON(many_per_thread_lesson, "many elements per thread: grid-stride loop and float4 loads");
