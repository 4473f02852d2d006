// SPDX-License-Identifier: MIT
// 0.08 block_reduce: threads of a block combine their sums in shared memory; blocks meet in an atomicAdd.
//
// You learn: how a block combines 256 values in log2(256) = 8 steps (a tree in shared memory), why a
// barrier must separate the steps and be reached by every thread, and how atomicAdd lets blocks
// combine their sums without a second kernel.
// Task: *result = sum of in[0..n): each thread sums its share, the block combines its 256 sums in
// shared memory, and one atomic per block adds the block's sum to *result.
// You decide: which thread adds which slot at each step of the tree; where the barrier goes so that
//             every thread reaches it; which thread publishes the block's sum.
// Source: Mark Harris, "Optimizing Parallel Reduction in CUDA" (the tree in shared memory); CUDA C++
// Programming Guide, "Atomic Functions" (one atomicAdd per block).
// Run:   ./workbook run 0.08 [-- --size 64M]
// Check: ./workbook check 0.08
// Aim:   about 70% of the cudaMemcpy bandwidth (H100: 2000 GB/s); phase 3 climbs to the library's 95%.
// Previous: 0.07 warp_primitives. Next: 0.09 streams.

#include <algorithm>
#include <vector>

#include "common/workbook.h"
#include "phase0_basics/basics.cuh"

namespace {

constexpr int kBlockSize = 256;
static_assert((kBlockSize & (kBlockSize - 1)) == 0,
              "the tree halves the active threads each step: kBlockSize must be a power of two");

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void reduce_sum_atomic_kernel(const float* __restrict__ in, float* __restrict__ result, std::size_t n) {
  // One slot per thread: the block's partial sums meet here, where every thread of the block can see them.
  __shared__ float partial[kBlockSize];
  const unsigned tid = threadIdx.x;

  // Step 1: each thread sums its share in a register. The grid is capped at one wave (see the
  // launcher), far fewer threads than n, so each thread adds many elements; neighbouring threads
  // should read neighbouring floats at every step (coalesced).
  // `#pragma unroll 4` here would not put 4 loads in flight: the trip count is unknown, so an exit test
  // still sits between loads (see the phase README's pitfalls; 2.01 shows what does batch them).
  float sum = 0.0f;
  // TODO(0.08): add this thread's share of in to sum, so that across the grid every element of in is
  //             added exactly once for any n (indices pass 2^31 on large inputs) (about 4 lines).
  partial[tid] = sum;
  // Every slot must be written before any thread reads a neighbour's.
  __syncthreads();

  // Step 2: a tree. Each step halves the number of live partial sums, until partial[0] holds them all.
  // Which threads add which slots decides the speed. For your choice, count at each step: how many
  // warps hold both adding and idle threads (a warp whose threads split at a branch runs both sides),
  // and how many banks one warp's reads fall into (0.06)?
  // TODO(0.08): reduce partial[] to the block's sum in partial[0]. No thread may read a slot before its
  //             writer is done with it, and every thread of the block reaches every barrier
  //             (about 5 lines).

  // Step 3: partial[0] is the block's sum (read by every thread: one broadcast, no bank conflict).
  // One atomic per block adds it to the grand total; other blocks do the same at any moment, and
  // the hardware serializes those read-modify-writes, so none is lost.
  sum = partial[0];
  // TODO(0.08): add the block's sum to *result, once per block, safely against the other blocks (1 line).
}

// ---- launchers --------------------------------------------------------------------------------------

// One full wave and no more: 8 blocks of 256 threads fill an SM (2048 threads). Every block costs
// one atomicAdd on the same address, and those queue up one after another in L2, so fewer blocks
// mean fewer atomics; the grid-stride loop gives each thread more elements to sum in registers.
constexpr int kBlocksPerSm = 8;

}  // namespace

void reduce_sum_atomic(const float* in, float* result, std::size_t n, cudaStream_t stream) {
  // atomicAdd adds to whatever *result holds (the last call's sum, or garbage). For n = 0 the
  // starting value is the answer: the empty sum.
  // TODO(0.08): make *result 0 before any block adds to it, ordered before the launch below and
  //             error-checked like every CUDA call (1 line).
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch
  reduce_sum_atomic_kernel<<<wb::grid_stride_blocks(n, kBlockSize, kBlocksPerSm), kBlockSize, 0, stream>>>(in, result,
                                                                                                           n);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: every float is read once and 4 bytes are written: 4n bytes; n = 64M reads 268 MB,
// about 0.09 ms at the H100's ~3 TB/s. One add per 4 bytes is nothing for the ALUs, and the
// 132 * 8 = 1056 atomics are a rounding error. Expect about 0.13 ms (70% of memcpy): each thread
// waits for one load before it issues the next; keeping several loads in flight is phase 3's job.
int block_reduce_lesson(wb::Lesson& lesson) {
  const std::size_t n = lesson.size_or(64 * wb::MiB);
  lesson.require_memory(4.0 * static_cast<double>(n), 12.0 * static_cast<double>(n));
  // Multiples of 1/256 with random signs: every partial sum a correct kernel forms (a thread's, a
  // block's, the running total of the atomics) is a multiple of 1/256 that wanders like a random walk,
  // about 0.58 * sqrt(m) after m terms (4700 at 64M), far below 2^16, where float still holds
  // every 1/256 step. So any order of adds gives the exact sum, and one lost element shows.
  const std::vector<float> x = wb::random_dyadic_floats(n, lesson.seed());
  double exact = 0;
  for (float v : x) exact += v;
  const std::vector<float> expected{static_cast<float>(exact)};
  // Beyond 256M terms that walk may reach 2^16: fall back to the bound that holds for any order.
  const wb::Tolerance tolerance = n <= 256 * wb::MiB ? wb::Tolerance{0, 0} : wb::sum_tolerance(n, wb::sum_abs(x));

  wb::DeviceBuffer<float> din(x);
  wb::GuardedDeviceBuffer<float> dresult(1);
  // Timing repeats the call: the check after timing also proves that each call starts from 0.
  const bool pass =
      lesson
          .run_memory_bound("reduce_sum_atomic", "n=" + wb::format_count(n), 4.0 * static_cast<double>(n), dresult,
                            expected, tolerance, [&] { reduce_sum_atomic(din.data(), dresult.data(), n, nullptr); })
          .pass;
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(block_reduce_lesson, "a block reduction in shared memory with one atomicAdd per block");
