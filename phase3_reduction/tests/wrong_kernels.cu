// SPDX-License-Identifier: MIT
#include "common/planted_bugs.cuh"
#include "phase3_reduction/passes.h"
#include "phase3_reduction/tests/wrong_kernels.h"

namespace {

constexpr unsigned int kThreads = 256;

enum class Bug {
  None,
  ReadsPastN,
  MissesTail,
  NoSyncthreads,
  DropsLastWarpStep,
  DoubleCountsLoad,
  WritesInput,
  NoSyncwarp,
  ReadsPastNMasked
};

// A sequential-addressing block sum (3.03, with 3.05's warp finish) with one switchable bug.
template <Bug bug>
__global__ void planted_kernel(const float* in, float* out, std::size_t n, bool first_pass) {
  __shared__ float partial[kThreads];
  const unsigned int tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  float v = 0.0f;
  if (bug == Bug::ReadsPastN) {
    v = in[i];  // no bound: the last block reads up to 255 elements past n
  } else if (bug == Bug::ReadsPastNMasked) {
    const float x = read_even_if_masked(in, i);  // reads up to 255 elements past n ...
    v = i < n ? x : 0.0f;                        // ... but adds none of them: only memcheck sees it
  } else if (bug == Bug::MissesTail && first_pass && i >= n / blockDim.x * blockDim.x) {
    v = 0.0f;  // a loop bound of n rounded down to whole blocks: the last partial block adds nothing
  } else if (i < n) {
    v = in[i];
    // The second load of an add during load, but the blocks still cover only blockDim.x elements.
    if (bug == Bug::DoubleCountsLoad && i + blockDim.x < n) v += in[i + blockDim.x];
  }
  partial[tid] = v;
  __syncthreads();
  // The missing-barrier bug, made to show on every run: warps 2-7 are held back 10 us, so warps 0-1
  // read their slots before they are updated (real code loses the race only now and then).
  if (bug == Bug::NoSyncthreads && tid >= 64) __nanosleep(10000);
  for (unsigned int s = blockDim.x / 2; s > 32; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];
    if (bug != Bug::NoSyncthreads) __syncthreads();
  }
  if (bug == Bug::NoSyncwarp) {
    // 3.05's unrolled last warp on volatile shared memory, without __syncwarp between its steps.
    if (tid < 32) {
      partial[tid] += partial[tid + 32];
      const float sum = warp_tree_sum_without_syncwarp(partial, tid);
      if (tid == 0) out[blockIdx.x] = sum;
    }
    return;
  }
  if (tid < 32) {
    float sum = partial[tid] + partial[tid + 32];
    const unsigned int last = bug == Bug::DropsLastWarpStep ? 2 : 1;  // stops before the final pair
    for (unsigned int offset = 16; offset >= last; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (tid == 0) {
      out[blockIdx.x] = sum;
      if (bug == Bug::WritesInput && i < n) const_cast<float*>(in)[i] = sum;  // "reuses" the input as scratch
    }
  }
}

template <Bug bug>
void launch(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream) {
  reduce_in_passes(in, out, n, workspace, stream, kThreads, 0,
                   [&](const float* src, float* dst, std::size_t count, unsigned int blocks) {
                     planted_kernel<bug><<<blocks, kThreads, 0, stream>>>(src, dst, count, src == in);
                     CUDA_CHECK_KERNEL();
                   });
}

}  // namespace

void planted_correct(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::None>(in, out, n, ws, s);
}
void planted_reads_past_n(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::ReadsPastN>(in, out, n, ws, s);
}
void planted_misses_tail(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::MissesTail>(in, out, n, ws, s);
}
void planted_no_syncthreads(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::NoSyncthreads>(in, out, n, ws, s);
}
void planted_drops_last_warp_step(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::DropsLastWarpStep>(in, out, n, ws, s);
}
void planted_double_counts_load(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::DoubleCountsLoad>(in, out, n, ws, s);
}
void planted_writes_input(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::WritesInput>(in, out, n, ws, s);
}
void planted_no_syncwarp(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::NoSyncwarp>(in, out, n, ws, s);
}
void planted_reads_past_n_masked(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::ReadsPastNMasked>(in, out, n, ws, s);
}
