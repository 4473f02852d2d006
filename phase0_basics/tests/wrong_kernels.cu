// SPDX-License-Identifier: MIT
#include <algorithm>
#include <cstdint>

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

// ---- 0.11 histogram ---------------------------------------------------------------------------------

namespace {

constexpr unsigned int kHistogramThreads = 512;
constexpr unsigned int kHistogramBlocks = 64;
constexpr unsigned int kLanes = 32;

enum class HistogramBug { None, NoZeroing, SkipsTail, BinOffByOne, PartialAddedTwice, ReadsVecPastEnd };

// 0.11's shape: a private histogram per block in shared memory, a head and a tail counted byte by byte
// by block 0, whole 16-byte vectors with a grid-stride loop, the block's counts added to bins at the end.
template <HistogramBug bug>
__global__ void planted_histogram_kernel(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins) {
  __shared__ unsigned int hist[256];
  for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x) hist[b] = 0;
  __syncthreads();
  const std::size_t to_boundary = (16 - reinterpret_cast<std::uintptr_t>(data) % 16) % 16;
  const std::size_t head = to_boundary < n ? to_boundary : n;
  const std::size_t num_vecs = (n - head) / 16;
  const std::size_t tail_start = head + num_vecs * 16;
  if (blockIdx.x == 0) {
    if (threadIdx.x < head) atomicAdd(&hist[data[threadIdx.x]], 1u);
    // SkipsTail: nothing counts the bytes after the last whole vector. ReadsVecPastEnd: its vector loop
    // covers them instead.
    constexpr bool tail_loop = bug != HistogramBug::SkipsTail && bug != HistogramBug::ReadsVecPastEnd;
    if (tail_loop && tail_start + threadIdx.x < n) atomicAdd(&hist[data[tail_start + threadIdx.x]], 1u);
  }
  // From the first 16-byte boundary (not data + head, which is unaligned when n is shorter than the head).
  const uint4* vecs = reinterpret_cast<const uint4*>(data + to_boundary);
  // ReadsVecPastEnd: one vector more than fits in n, read whole, its bytes at or past n thrown away.
  const std::size_t vec_count = bug == HistogramBug::ReadsVecPastEnd ? num_vecs + 1 : num_vecs;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vec_count; i += stride) {
    const uint4 v = vecs[i];
    const unsigned int words[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
    for (unsigned int k = 0; k < 16; ++k) {
      if (bug == HistogramBug::ReadsVecPastEnd && to_boundary + i * 16 + k >= n) continue;
      atomicAdd(&hist[(words[k / 4] >> (8 * (k % 4))) & 0xFFu], 1u);
    }
  }
  __syncthreads();
  const unsigned int bins_u = static_cast<unsigned int>(num_bins);
  if (bug == HistogramBug::PartialAddedTwice) {
    // One counter per thread, as if the block had 256 threads: with 512, two threads add each one.
    const unsigned int b = threadIdx.x % 256;
    if (hist[b] != 0) atomicAdd(&bins[b * bins_u / 256], hist[b]);
  } else {
    for (unsigned int b = threadIdx.x; b < 256; b += blockDim.x) {
      const unsigned int count = hist[b];
      if (count == 0) continue;
      const unsigned int bin = b * bins_u / 256;
      atomicAdd(&bins[bug == HistogramBug::BinOffByOne ? bin + 1 : bin], count);
    }
  }
}

template <HistogramBug bug>
void launch_planted_histogram(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                              cudaStream_t stream) {
  if (bug != HistogramBug::NoZeroing)
    CUDA_CHECK(cudaMemsetAsync(bins, 0, static_cast<std::size_t>(num_bins) * sizeof(unsigned int), stream));
  if (n == 0) return;
  const std::size_t wanted = (n / 16 + kHistogramThreads - 1) / kHistogramThreads;
  const unsigned int blocks =
      static_cast<unsigned int>(std::max<std::size_t>(1, std::min<std::size_t>(kHistogramBlocks, wanted)));
  planted_histogram_kernel<bug><<<blocks, kHistogramThreads, 0, stream>>>(data, n, bins, num_bins);
  CUDA_CHECK_KERNEL();
}

// One warp per block; lane l counts its bytes into column l of a table in shared memory (no two lanes
// ever write the same word), then lane l sums rows l, l + 32, ... across all 32 columns. The reads of
// the other lanes' columns need a __syncwarp() after the counting loop; without it nothing orders them
// after those lanes' last writes. A warp that runs in lockstep still gets the right sums, so plain runs
// pass; racecheck reports the hazard (as a warning: a hazard within one warp).
__global__ void planted_histogram_lane_columns(const unsigned char* data, std::size_t n, unsigned int* bins,
                                               int num_bins) {
  __shared__ unsigned int counts[256][kLanes + 1];  // +1: lane l reads row v in bank (v + l) % 32
  const unsigned int lane = threadIdx.x;
  for (unsigned int v = 0; v < 256; ++v) counts[v][lane] = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kLanes;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * kLanes + lane; i < n; i += stride)
    ++counts[data[i]][lane];
  // The planted bug: the __syncwarp() that belongs here is missing.
  for (unsigned int v = lane; v < 256; v += kLanes) {
    unsigned int total = 0;
    for (unsigned int l = 0; l < kLanes; ++l) total += counts[v][l];
    if (total != 0) atomicAdd(&bins[v * static_cast<unsigned int>(num_bins) / 256], total);
  }
}

}  // namespace

void planted_histogram_correct(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                               cudaStream_t stream) {
  launch_planted_histogram<HistogramBug::None>(data, n, bins, num_bins, stream);
}
void planted_histogram_no_zeroing(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                                  cudaStream_t stream) {
  launch_planted_histogram<HistogramBug::NoZeroing>(data, n, bins, num_bins, stream);
}
void planted_histogram_skips_tail(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                                  cudaStream_t stream) {
  launch_planted_histogram<HistogramBug::SkipsTail>(data, n, bins, num_bins, stream);
}
void planted_histogram_bin_off_by_one(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                                      cudaStream_t stream) {
  launch_planted_histogram<HistogramBug::BinOffByOne>(data, n, bins, num_bins, stream);
}
void planted_histogram_partial_added_twice(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                                           cudaStream_t stream) {
  launch_planted_histogram<HistogramBug::PartialAddedTwice>(data, n, bins, num_bins, stream);
}
void planted_histogram_reads_vec_past_end(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                                          cudaStream_t stream) {
  launch_planted_histogram<HistogramBug::ReadsVecPastEnd>(data, n, bins, num_bins, stream);
}
void planted_histogram_merge_without_syncwarp(const unsigned char* data, std::size_t n, unsigned int* bins,
                                              int num_bins, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(bins, 0, static_cast<std::size_t>(num_bins) * sizeof(unsigned int), stream));
  if (n == 0) return;
  const unsigned int blocks =
      static_cast<unsigned int>(std::min<std::size_t>(kHistogramBlocks, (n + kLanes - 1) / kLanes));
  planted_histogram_lane_columns<<<blocks, kLanes, 0, stream>>>(data, n, bins, num_bins);
  CUDA_CHECK_KERNEL();
}
