// SPDX-License-Identifier: MIT
// 3.01 interleaved_divergent: the first parallel sum, a tree in shared memory (and why it is slow).
//
// You learn: how a block adds 256 numbers in log2(256) = 8 steps in shared memory, why every step
// needs a __syncthreads(), and how a multi-pass launcher turns block sums into one sum.
// Task: in reduce_interleaved_divergent_kernel, add up the block's values in shared memory as a tree
// whose pairs double in distance each step (interleaved addressing, the ladder's baseline), then write
// the block's sum. The launcher (given) runs the kernel again on the block sums until one number is
// left.
// Source: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA), reduction #1:
// interleaved addressing with threadIdx.x % (2 i) == 0, the divergent baseline.
// Run:   ./workbook run 3.01 [-- --size 256M]
// Check: ./workbook check 3.01
// Aim:   correct first; about 14% of CUB's bandwidth on an H100 (416 GB/s on 1 GiB). Each rung
//        after this one removes one cost; 3.07 to 3.09 reach CUB.
// Previous: 2.10 layernorm (0.08 block_reduce has a first block sum). Next: 3.02 interleaved_strided.

#include "common/workbook.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/passes.h"
#include "phase3_reduction/reduction.cuh"

namespace {

constexpr int kBlockSize = 256;  // a power of two: the tree halves it down to 1

// ---- kernels ----------------------------------------------------------------------------------------

// Block b sums in[b * 256, b * 256 + 256) (clipped to n) into out[b].
template <typename T>
__global__ void reduce_interleaved_divergent_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  __shared__ T partial[kBlockSize];
  const unsigned int tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  // Threads past n load 0, the one value that changes no sum: the last block can be partial.
  partial[tid] = i < n ? in[i] : T(0);
  // Every element must be in shared memory before any thread reads its neighbour's.
  __syncthreads();
  // Step s adds pairs s apart: after step s, partial[t] for t a multiple of 2 s holds 2 s elements.
  // The test t % (2 s) == 0 keeps 1 thread in 2, then 1 in 4, ...: inside one warp half the lanes
  // (then 3/4, 7/8 ...) idle while the others add, and % is a slow integer division. 3.02 fixes both.
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0) partial[tid] += partial[tid + s];
    // A barrier reached by all threads: the next step reads what this one wrote.
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

// One block per 256 elements, then again on the block sums: 256M -> 1M -> 4096 -> 16 -> 1.
void reduce_interleaved_divergent(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream) {
  reduce_in_passes(in, out, n, workspace, stream, kBlockSize, 0,
                   [&](const float* src, float* dst, std::size_t count, unsigned int blocks) {
                     reduce_interleaved_divergent_kernel<<<blocks, kBlockSize, 0, stream>>>(src, dst, count);
                     CUDA_CHECK_KERNEL();
                   });
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 1 GiB of floats read once, 4 bytes an element, one add each: about 0.36 ms at the
// ~3 TB/s CUB reaches. This kernel does the same additions but keeps most lanes idle and pays a
// modulo per thread per step, so it is bound by instructions, not by memory.
int interleaved_divergent_lesson(wb::Lesson& lesson) {
  return p3::run_reduce_lesson(lesson, {{"reduce_interleaved_divergent", reduce_interleaved_divergent}});
}

}  // namespace

WB_LESSON(interleaved_divergent_lesson, "interleaved addressing with a divergent branch");
