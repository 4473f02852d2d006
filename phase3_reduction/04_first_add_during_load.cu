// SPDX-License-Identifier: MIT
// 3.04 first_add_during_load: every thread adds two elements while loading, so half the blocks.
//
// You learn: that the first step of 3.03 wastes half the threads, and that doing it in registers
// while loading from global memory halves the block count, the barriers and the shared traffic.
// Task: in reduce_first_add_during_load_kernel, let every thread load two elements of its block and
// store their sum in partial[tid]: a block now covers 2 * blockDim.x elements. The tree (3.03's answer:
// solve 3.03 first) and the launcher (which already asks for half the blocks) are given.
// You decide: which two elements of the block a thread takes, so that every load of a warp stays
//             coalesced; how each of the two loads is kept inside n.
// Source: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA), reduction #4:
// first add during global load, L = 2 elements per thread before the tree.
// Holds 3.03's answer: solve 3.03 first (its tree is given here).
// Run:   ./workbook run 3.04 [-- --size 256M]
// Check: ./workbook check 3.04
// Aim:   close to twice 3.03: about 54% of CUB on an H100 (1614 GB/s on 1 GiB).
// Previous: 3.03 sequential. Next: 3.05 unroll_last_warp.

#include "common/workbook.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/passes.h"
#include "phase3_reduction/reduction.cuh"

namespace {

constexpr int kBlockSize = 256;
constexpr int kElementsPerBlock = 2 * kBlockSize;  // two loads per thread

// ---- kernels ----------------------------------------------------------------------------------------

template <typename T>
__global__ void reduce_first_add_during_load_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  __shared__ T partial[kBlockSize];
  const unsigned int tid = threadIdx.x;
  // Block b covers [2 blockDim b, 2 blockDim (b + 1)) (the launcher counts on it). Choose each
  // thread's two elements so that every load instruction of a warp reads 32 consecutive floats.
  // Each load bounded by n on its own: the second one runs past n first.
  // TODO(3.04): replace the placeholder: sum is this thread's two elements added, each one read only
  //             when it lies below n (about 3 lines). Index with std::size_t: a 32-bit index
  //             overflows past 2^31 elements.
  T sum = T(0);  // TODO(3.04): placeholder
  partial[tid] = sum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

// Each block covers 512 elements: 256M -> 512K -> 1024 -> 2 -> 1.
void reduce_first_add_during_load(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream) {
  reduce_in_passes(in, out, n, workspace, stream, kElementsPerBlock, 0,
                   [&](const float* src, float* dst, std::size_t count, unsigned int blocks) {
                     reduce_first_add_during_load_kernel<<<blocks, kBlockSize, 0, stream>>>(src, dst, count);
                     CUDA_CHECK_KERNEL();
                   });
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 1 GiB read once, 0.36 ms at CUB's speed. Per element: half a shared store and about
// a quarter of the tree's traffic of 3.03, and half the blocks to schedule.
int first_add_during_load_lesson(wb::Lesson& lesson) {
  return p3::run_reduce_lesson(lesson, {{"reduce_first_add_during_load", reduce_first_add_during_load}});
}

}  // namespace

WB_LESSON(first_add_during_load_lesson, "first add during the global load, half the blocks");
