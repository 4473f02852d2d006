// SPDX-License-Identifier: MIT
// 3.03 sequential: sequential addressing, the tree without divergence and without bank conflicts.
//
// You learn: to fold the array in half each step, so consecutive lanes read consecutive words; and
// that an integer sum is exact in any order, so its graded test demands the exact answer.
// Task: in reduce_sequential_kernel, write the folding tree. The kernel is a template: the same code
// sums floats (reduce_sequential) and ints (reduce_sequential_int).
// Source: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA), reduction #3:
// sequential addressing with halving steps, free of bank conflicts.
// Run:   ./workbook run 3.03 [-- --size 256M]
// Check: ./workbook check 3.03
// Aim:   about 29% of CUB on an H100 (867 GB/s); half the threads idle from the first step on.
// Previous: 3.02 interleaved_strided. Next: 3.04 first_add_during_load.

#include "common/workbook.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/passes.h"
#include "phase3_reduction/reduction.cuh"

namespace {

constexpr int kBlockSize = 256;
static_assert((kBlockSize & (kBlockSize - 1)) == 0, "the halving tree needs a power-of-two block");

// ---- kernels ----------------------------------------------------------------------------------------

template <typename T>
__global__ void reduce_sequential_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  __shared__ T partial[kBlockSize];
  const unsigned int tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  partial[tid] = i < n ? in[i] : T(0);
  __syncthreads();
  // Fold the upper half onto the lower half, then the upper half of what is left, and so on: each
  // busy thread adds one element of the upper half to its own. A warp's 32 lanes read 32 consecutive
  // words, one per bank: no conflicts at any step, and the busy threads are always the first ones, so
  // warps are wholly busy or idle until fewer than 32 threads work.
  for (unsigned int s = blockDim.x / 2; s > 0; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();  // the next (smaller) fold reads this one's sums
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

template <typename T>
void reduce_sequential_any(const T* in, T* out, std::size_t n, T* workspace, cudaStream_t stream) {
  reduce_in_passes(in, out, n, workspace, stream, kBlockSize, 0,
                   [&](const T* src, T* dst, std::size_t count, unsigned int blocks) {
                     reduce_sequential_kernel<<<blocks, kBlockSize, 0, stream>>>(src, dst, count);
                     CUDA_CHECK_KERNEL();
                   });
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void reduce_sequential(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream) {
  reduce_sequential_any(in, out, n, workspace, stream);
}

void reduce_sequential_int(const int* in, int* out, std::size_t n, int* workspace, cudaStream_t stream) {
  reduce_sequential_any(in, out, n, workspace, stream);
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 1 GiB read once, 0.36 ms at CUB's speed. The first fold already leaves half the
// threads idle, and each block does 8 barriers for 256 elements: still instruction-bound.
int sequential_lesson(wb::Lesson& lesson) {
  return p3::run_reduce_lesson(lesson, {{"reduce_sequential", reduce_sequential}});
}

}  // namespace

WB_LESSON(sequential_lesson, "sequential addressing, no bank conflicts");
