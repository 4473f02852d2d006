// SPDX-License-Identifier: MIT
// 3.02 interleaved_strided: the same tree without divergent warps, and the bank conflicts it buys.
//
// You learn: to map the work of a step onto the first threads of the block (contiguous, so whole
// warps are either busy or idle), and to count shared-memory bank conflicts from an index formula.
// Task: in reduce_interleaved_strided_kernel, add the same pairs in the same steps as 3.01, but hand
// the pairs of each step to the first threads of the block instead of every 2 s-th one.
// Source: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA), reduction #2:
// interleaved addressing without the divergent branch, and the bank conflicts that this mapping creates.
// Run:   ./workbook run 3.02 [-- --size 256M]
// Check: ./workbook check 3.02
// Aim:   faster than 3.01: about 22% of CUB on an H100 (674 GB/s on 1 GiB).
// Previous: 3.01 interleaved_divergent. Next: 3.03 sequential.

#include "common/workbook.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/passes.h"
#include "phase3_reduction/reduction.cuh"

namespace {

constexpr int kBlockSize = 256;

// ---- kernels ----------------------------------------------------------------------------------------

template <typename T>
__global__ void reduce_interleaved_strided_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  __shared__ T partial[kBlockSize];
  const unsigned int tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  partial[tid] = i < n ? in[i] : T(0);  // zero-pad the last, partial block
  __syncthreads();
  // Same pairs as 3.01, handed to threads 0, 1, 2, ...: in step s thread t adds the t-th pair of the
  // step. Warps are now fully busy or fully idle (no divergence), but look at the banks: shared
  // memory has 32 banks of 4 bytes, word w in bank w % 32. At s = 1 lanes t and t + 16 touch words
  // 2t and 2t + 32, the same bank: a 2-way conflict; from s = 4 the lanes that still work (8 of them
  // at s = 16, all on bank 0) meet 8 ways. 3.03 keeps the busy warps and drops the conflicts.
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    const unsigned int index = 2 * s * tid;
    if (index < blockDim.x) partial[index] += partial[index + s];
    __syncthreads();  // the next step reads this step's sums
  }
  if (tid == 0) out[blockIdx.x] = partial[0];
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void reduce_interleaved_strided(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream) {
  reduce_in_passes(in, out, n, workspace, stream, kBlockSize, 0,
                   [&](const float* src, float* dst, std::size_t count, unsigned int blocks) {
                     reduce_interleaved_strided_kernel<<<blocks, kBlockSize, 0, stream>>>(src, dst, count);
                     CUDA_CHECK_KERNEL();
                   });
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 1 GiB read once, 0.36 ms at CUB's speed. 256 threads load 256 floats, then spend 8
// steps of shared-memory traffic (with up to 8-way conflicts) on them: the loads are not the limit.
int interleaved_strided_lesson(wb::Lesson& lesson) {
  return p3::run_reduce_lesson(lesson, {{"reduce_interleaved_strided", reduce_interleaved_strided}});
}

}  // namespace

WB_LESSON(interleaved_strided_lesson, "interleaved addressing without divergence (and its bank conflicts)");
