// SPDX-License-Identifier: MIT
// 3.09 single_launch: the whole sum in one kernel launch, by the last block or by atomics.
//
// You learn: how blocks of one grid hand results to each other without a second launch: each block
// publishes its sum, makes it visible device-wide (__threadfence), takes a ticket (atomicAdd on a
// counter), and the block with the last ticket adds the published sums; and the simpler,
// non-deterministic alternative, one float atomicAdd per block.
// Task: in reduce_last_block_kernel, let the block that finishes last add every block's sum and write
// the total. In reduce_block_atomics_kernel, add the block's sum into *out with one atomic per block.
// Block sums and loads are 3.07's and 3.08's answers (given: solve those first).
// You decide: which thread publishes and takes a ticket, and how the rest of its block learns the
//             answer; how the last block reads the published sums; when the counter is reset.
// Source: CUDA C++ Programming Guide, "Memory Fence Functions" (its example: the last block to finish sums
// the partial sums) and "Atomic Functions": the two passes of 3.08 folded into one launch.
// Holds 3.07's and 3.08's answers: solve them first (thread_sum, the warp and block sums).
// Run:   ./workbook run 3.09 [-- --size 256M]
// Check: ./workbook check 3.09
// Aim:   both at CUB's speed on 1 GiB (>= 95%); the last-block version is deterministic.
// Previous: 3.08 shuffle. Next: 3.10 cub_reference.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/workbook.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/reduction.cuh"

namespace {

constexpr int kBlockSize = 256;
constexpr int kWarps = kBlockSize / 32;
constexpr int kBlocksPerSm = 8;
constexpr std::size_t kElementsPerBlock = std::size_t(kBlockSize) * 16;
constexpr unsigned int kFullMask = 0xffffffffu;

// ---- kernels ----------------------------------------------------------------------------------------

__device__ __forceinline__ float lane_sum(float4 q) {
  return (q.x + q.y) + (q.z + q.w);
}

__device__ __forceinline__ float warp_reduce_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullMask, v, offset);
  return v;
}

// 3.08's block level: the block's sum, valid in thread 0. Every thread of the block must call it.
// It starts with a __syncthreads() so that calling it twice in a row is safe (warp_sums is reused).
__device__ float block_reduce_sum(float sum) {
  __shared__ float warp_sums[kWarps];
  const unsigned int lane = threadIdx.x % 32;
  const unsigned int warp = threadIdx.x / 32;
  sum = warp_reduce_sum(sum);
  __syncthreads();
  if (lane == 0) warp_sums[warp] = sum;
  __syncthreads();
  sum = warp == 0 && lane < kWarps ? warp_sums[lane] : 0.0f;
  return warp == 0 ? warp_reduce_sum(sum) : 0.0f;
}

// 3.07's loads: this thread's share of in[0, n), grid-stride, four float4s in flight.
__device__ float thread_sum(const float* __restrict__ in, std::size_t n) {
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const float4* in4 = reinterpret_cast<const float4*>(in);
  const std::size_t vectors = n / 4;
  float sum = 0.0f;
  std::size_t v = first;
  for (; v + 3 * stride < vectors; v += 4 * stride) {
    const float4 a = in4[v];
    const float4 b = in4[v + stride];
    const float4 c = in4[v + 2 * stride];
    const float4 d = in4[v + 3 * stride];
    sum += (lane_sum(a) + lane_sum(b)) + (lane_sum(c) + lane_sum(d));
  }
  for (; v < vectors; v += stride) sum += lane_sum(in4[v]);
  for (std::size_t i = 4 * vectors + first; i < n; i += stride) sum += in[i];
  return sum;
}

// partials[b] receives block b's sum; *counter counts finished blocks (0 at launch).
__global__ void __launch_bounds__(kBlockSize)
    reduce_last_block_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                             float* __restrict__ partials, unsigned int* __restrict__ counter) {
  const float block_sum = block_reduce_sum(thread_sum(in, n));
  // The block that learns it finished last must be sure to see every other block's sum. Two facts:
  // __threadfence() makes a thread's earlier stores visible device-wide before its later ones, and an
  // SM's L1 is not coherent with the others (__ldcg reads from L2). Without the right order the last
  // block could read a stale partial; without a reset the next launch starts from a wrong count.
  __shared__ bool is_last;
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_sum;
    __threadfence();  // the sum is visible device-wide before the ticket is taken
    const unsigned int ticket = atomicAdd(counter, 1u);
    is_last = ticket == gridDim.x - 1;
  }
  __syncthreads();  // every thread sees is_last
  if (is_last) {    // the same for the whole block, so the barriers in block_reduce_sum are safe
    __threadfence();
    float sum = 0.0f;
    for (unsigned int i = threadIdx.x; i < gridDim.x; i += blockDim.x) sum += __ldcg(&partials[i]);
    sum = block_reduce_sum(sum);
    if (threadIdx.x == 0) {
      *out = sum;
      *counter = 0;  // ready for the next launch
    }
  }
}

__global__ void __launch_bounds__(kBlockSize)
    reduce_block_atomics_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  const float block_sum = block_reduce_sum(thread_sum(in, n));
  // One atomic per block (1056 on an H100), not per thread: the L2's atomic units add them in
  // whatever order blocks finish, so the last bits of the sum change from run to run.
  if (threadIdx.x == 0) atomicAdd(out, block_sum);
}

unsigned int single_launch_blocks(std::size_t n) {
  const std::size_t wanted = (n + kElementsPerBlock - 1) / kElementsPerBlock;
  const std::size_t cap = static_cast<std::size_t>(wb::current_sm_count()) * kBlocksPerSm;
  return static_cast<unsigned int>(wanted < cap ? wanted : cap);
}

void require_aligned(const float* in, const char* launcher) {
  if (reinterpret_cast<std::uintptr_t>(in) % 16 != 0)
    throw std::invalid_argument(std::string(launcher) + ": in must be 16-byte aligned for float4 loads");
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

// Workspace layout: [0] the counter (as unsigned int), [4, 4 + blocks) the block sums. The counter is
// zeroed by a 4-byte memset on the stream before each launch (the kernel also leaves it at 0), so a
// fresh or reused workspace both work.
void reduce_single_pass_last_block(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream) {
  require_aligned(in, "reduce_single_pass_last_block");
  if (n == 0) {
    CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
    return;
  }
  const unsigned int blocks = single_launch_blocks(n);
  if (blocks + 4 > kFixedWorkspaceElements) throw std::logic_error("reduce_single_pass_last_block: grid too large");
  unsigned int* counter = reinterpret_cast<unsigned int*>(workspace);
  CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(unsigned int), stream));
  reduce_last_block_kernel<<<blocks, kBlockSize, 0, stream>>>(in, out, n, workspace + 4, counter);
  CUDA_CHECK_KERNEL();
}

// out is zeroed on the stream first: the blocks add into it.
void reduce_block_atomics(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream) {
  (void)workspace;  // no scratch needed: out itself collects the sum
  require_aligned(in, "reduce_block_atomics");
  CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream));
  if (n == 0) return;
  reduce_block_atomics_kernel<<<single_launch_blocks(n), kBlockSize, 0, stream>>>(in, out, n);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 1 GiB read once, 0.36 ms at CUB's speed. Compared with 3.08's two passes this saves
// the second launch (a few microseconds, about 1% at 1 GiB, far more for small inputs, where launch
// latency is the whole cost), at the price of a memset node and a fence per block.
int single_launch_lesson(wb::Lesson& lesson) {
  return p3::run_reduce_lesson(lesson, {{"reduce_single_pass_last_block", reduce_single_pass_last_block},
                                        {"reduce_block_atomics", reduce_block_atomics}});
}

}  // namespace

WB_LESSON(single_launch_lesson, "one launch for the whole array: last block or atomics");
