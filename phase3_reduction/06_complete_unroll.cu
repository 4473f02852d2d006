// SPDX-License-Identifier: MIT
// 3.06 complete_unroll: the whole tree unrolled for a block size known at compile time.
//
// You learn: to make the block size a template parameter, so the tree can become straight-line code
// with no loop counter; the launcher that turns a runtime choice (64 .. 256 threads) into one of three
// instantiations with a switch is given: read it.
// Task: in reduce_complete_unroll_kernel, write the block-wide steps of the tree, from kThreads
// partial sums (up to 256 from the given launcher) down to 64, as straight-line code; 3.05's
// warp_sum_last_64 (given: it is 3.05's answer, and the loads are 3.04's: solve those first) finishes.
// You decide: how the steps are written so that each exists only for the block sizes that need it,
//             and where each step's barrier goes.
// Source: Mark Harris, "Optimizing Parallel Reduction in CUDA" (NVIDIA), reduction #6:
// the whole tree unrolled with a template.
// Holds 3.04's and 3.05's answers: solve them first (the two loads and the last warp's steps).
// Run:   ./workbook run 3.06 [-- --size 256M]
// Check: ./workbook check 3.06
// Aim:   a little better than 3.05: about 75% of CUB on an H100 (2228 GB/s on 1 GiB); the next big
//        step is 3.07's many elements per thread.
// Previous: 3.05 unroll_last_warp. Next: 3.07 many_per_thread.

#include "common/workbook.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/passes.h"
#include "phase3_reduction/reduction.cuh"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

// 3.05's last-warp steps, ordered with __syncwarp (see 3.05 for why volatile is not enough).
template <typename T>
__device__ void warp_sum_last_64(T* partial, unsigned int lane) {
#pragma unroll
  for (unsigned int offset = 32; offset > 0; offset /= 2) {
    const T v = partial[lane] + partial[lane + offset];
    __syncwarp();
    partial[lane] = v;
    __syncwarp();
  }
}

template <unsigned int kThreads, typename T>
__global__ void __launch_bounds__(kThreads)
    reduce_complete_unroll_kernel(const T* __restrict__ in, T* __restrict__ out, std::size_t n) {
  static_assert(kThreads >= 64 && kThreads <= 1024 && (kThreads & (kThreads - 1)) == 0,
                "the unrolled tree needs a power-of-two block of 64 to 1024 threads");
  __shared__ T partial[kThreads];
  const unsigned int tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * (2 * kThreads) + tid;
  T sum = i < n ? in[i] : T(0);
  if (i + kThreads < n) sum += in[i + kThreads];
  partial[tid] = sum;
  __syncthreads();
  // TODO(3.06): fold the kThreads partial sums down to 64 with no loop, for every block size the
  //             launcher picks (64, 128, 256).
  if (tid < 32) warp_sum_last_64(partial, tid);
  if (tid == 0) out[blockIdx.x] = partial[0];
}

template <unsigned int kThreads>
void launch_complete_unroll(const float* src, float* dst, std::size_t count, unsigned int blocks, cudaStream_t stream) {
  reduce_complete_unroll_kernel<kThreads><<<blocks, kThreads, 0, stream>>>(src, dst, count);
  CUDA_CHECK_KERNEL();
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

// The block size is a runtime choice (small inputs get small blocks, so fewer threads idle) turned
// into a compile-time constant by one switch. The whole multi-pass plan uses the size chosen for n.
void reduce_complete_unroll(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream) {
  const unsigned int threads = n <= 128 ? 64 : n <= 256 ? 128 : 256;
  reduce_in_passes(in, out, n, workspace, stream, 2 * threads, 0,
                   [&](const float* src, float* dst, std::size_t count, unsigned int blocks) {
                     switch (threads) {
                       case 64:
                         launch_complete_unroll<64>(src, dst, count, blocks, stream);
                         break;
                       case 128:
                         launch_complete_unroll<128>(src, dst, count, blocks, stream);
                         break;
                       default:
                         launch_complete_unroll<256>(src, dst, count, blocks, stream);
                         break;
                     }
                   });
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 1 GiB read once, 0.36 ms at CUB's speed. Same loads as 3.05; what changes is the
// instruction count per block (no loop counter, no compare per step), worth a few %.
int complete_unroll_lesson(wb::Lesson& lesson) {
  return p3::run_reduce_lesson(lesson, {{"reduce_complete_unroll", reduce_complete_unroll}});
}

}  // namespace

WB_LESSON(complete_unroll_lesson, "complete unrolling with a compile-time block size");
