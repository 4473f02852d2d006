// SPDX-License-Identifier: MIT
#include <algorithm>

#include "common/check.h"
#include "common/planted_bugs.cuh"
#include "common/util.h"
#include "phase0_basics/tests/wrong_kernels.h"

namespace {

constexpr unsigned int kThreads = 256;
constexpr unsigned int kBlocks = 64;

enum class Bug { NoSyncwarp, ReadsPastNMasked };

// 0.08's kernel: a grid-stride sum per thread, a shared-memory tree per block, one atomicAdd.
template <Bug bug>
__global__ void planted_block_reduce(const float* in, float* result, std::size_t n) {
  __shared__ float partial[kThreads];
  const unsigned int tid = threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  // ReadsPastNMasked: every thread runs as many strides as the busiest one.
  const std::size_t end = bug == Bug::ReadsPastNMasked ? (n + stride - 1) / stride * stride : n;
  float sum = 0.0f;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid; i < end; i += stride) {
    if (bug == Bug::ReadsPastNMasked) {
      const float x = read_even_if_masked(in, i);
      sum += i < n ? x : 0.0f;
    } else {
      sum += in[i];
    }
  }
  partial[tid] = sum;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 32; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid >= 32) return;
  partial[tid] += partial[tid + 32];
  if (bug == Bug::NoSyncwarp) {
    const float total = warp_tree_sum_without_syncwarp(partial, tid);
    if (tid == 0) atomicAdd(result, total);
  } else {
    // The right finish: each step's reads, then __syncwarp, then its writes, then __syncwarp.
    for (unsigned int offset = 16; offset > 0; offset /= 2) {
      __syncwarp();
      const float other = partial[tid + offset];
      __syncwarp();
      partial[tid] += other;
    }
    if (tid == 0) atomicAdd(result, partial[0]);
  }
}

template <Bug bug>
void launch(const float* in, float* result, std::size_t n, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(result, 0, sizeof(float), stream));
  if (n == 0) return;
  const unsigned int blocks = static_cast<unsigned int>(std::min<std::size_t>(kBlocks, (n + kThreads - 1) / kThreads));
  planted_block_reduce<bug><<<blocks, kThreads, 0, stream>>>(in, result, n);
  CUDA_CHECK_KERNEL();
}

}  // namespace

void planted_reduce_no_syncwarp(const float* in, float* result, std::size_t n, cudaStream_t stream) {
  launch<Bug::NoSyncwarp>(in, result, n, stream);
}
void planted_reduce_reads_past_n_masked(const float* in, float* result, std::size_t n, cudaStream_t stream) {
  launch<Bug::ReadsPastNMasked>(in, result, n, stream);
}
