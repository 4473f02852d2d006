// SPDX-License-Identifier: MIT
// 3.05 unroll_last_warp: the last six steps by one warp, without block barriers, done right.
//
// You learn: that once 32 or fewer threads work, a __syncthreads() per step is wasted, and that
// since Volta the warp needs __syncwarp() between its steps: the old `volatile` warp-synchronous
// trick relies on lanes running in lockstep, which the hardware no longer promises.
// Task: write warp_sum_last_64, the block's last steps (64 partial sums to 1) run by the 32 threads
// of warp 0 alone, ordered with __syncwarp() instead of block barriers. The rest of the kernel is
// given (it holds 3.04's answer, the two loads: solve 3.04 first).
// You decide: which lanes add in each step, and which slots they read and write; where the __syncwarp()
//             calls go, and how many one step needs.
// Source: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA), reduction #5:
// unroll the last warp, rewritten for independent thread scheduling (the original is pre-Volta).
// Holds 3.04's answer: solve 3.04 first (its two loads are given here).
// Run:   ./workbook run 3.05 [-- --size 256M]
// Check: ./workbook check 3.05
// Aim:   2 barriers per block instead of 8: about 69% of CUB on an H100 (2065 GB/s on 1 GiB).
// Previous: 3.04 first_add_during_load. Next: 3.06 complete_unroll.

#include "common/workbook.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/passes.h"
#include "phase3_reduction/reduction.cuh"

namespace {

constexpr int kBlockSize = 256;
static_assert(kBlockSize >= 64, "the last warp starts from 64 partial sums");

// ---- kernels ----------------------------------------------------------------------------------------

// Called by the 32 threads of warp 0 when partial[0, 64) holds the block's 64 partial sums; leaves
// the block's sum in partial[0].
// Why not the classic `volatile T* p; p[t] += p[t + 16]; p[t] += p[t + 8]; ...` with no sync? It
// assumed the 32 lanes run each line together, so lane 0 reads p[16] only after lane 16 wrote it.
// Since Volta, lanes of a warp are scheduled independently and may interleave anyhow: volatile makes
// every access go to memory, but it orders nothing between lanes, so lane 0 may read p[16] before or
// after lane 16's add. __syncwarp() is the barrier (and memory fence) for one warp: which accesses of
// a step, and of two steps in a row, must it separate? Racecheck tells you when one is missing.
template <typename T>
__device__ void warp_sum_last_64(T* partial, unsigned int lane) {
  // TODO(3.05): fold the 64 partial sums into the first slot with the 32 lanes, halving as in 3.03
  //             (about 6 lines). Within a step no lane may overwrite a slot before every lane has
  //             read it, and no step may read before the previous step's writes are done. A loop
  //             with #pragma unroll or the steps written out both do.
}

template <typename T>
__global__ void reduce_unroll_last_warp_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  __shared__ T partial[kBlockSize];
  const unsigned int tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * blockDim.x) + tid;
  T sum = i < n ? in[i] : T(0);
  if (i + blockDim.x < n) sum += in[i + blockDim.x];
  partial[tid] = sum;
  __syncthreads();
  // Block-wide steps only while more than one warp works: s = 128 and 64, then 64 partial sums remain.
  for (unsigned int s = blockDim.x / 2; s > 32; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid < 32) warp_sum_last_64(partial, tid);  // all 32 lanes of warp 0 enter: full-mask __syncwarp
  if (tid == 0) out[blockIdx.x] = partial[0];
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void reduce_unroll_last_warp(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream) {
  reduce_in_passes(in, out, n, workspace, stream, 2 * kBlockSize, 0,
                   [&](const float* src, float* dst, std::size_t count, unsigned int blocks) {
                     reduce_unroll_last_warp_kernel<<<blocks, kBlockSize, 0, stream>>>(src, dst, count);
                     CUDA_CHECK_KERNEL();
                   });
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 1 GiB read once, 0.36 ms at CUB's speed. Per block of 512 elements: 2 barriers
// instead of 8, and warps 1-7 are free to leave (and a new block to start) after the s = 64 step.
int unroll_last_warp_lesson(wb::Lesson& lesson) {
  return p3::run_reduce_lesson(lesson, {{"reduce_unroll_last_warp", reduce_unroll_last_warp}});
}

}  // namespace

WB_LESSON(unroll_last_warp_lesson, "unrolling the last warp with __syncwarp (Volta and later)");
