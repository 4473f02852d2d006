// SPDX-License-Identifier: MIT
#include <cstddef>

#include "common/check.h"
#include "common/planted_bugs.cuh"
#include "phase2_elementwise/tests/wrong_kernels.h"

namespace {

constexpr int kThreads = 128;

enum class Bug { NoSyncwarp, ReadsPastRowMasked };

// 2.05's kernel, scalar loads: sum of squares per thread, a shared-memory tree, then the scaled row.
template <Bug bug>
__global__ void planted_rmsnorm(const float* in, const float* weight, float* out, int cols, float eps) {
  __shared__ float partial[kThreads];
  const int tid = threadIdx.x;
  const float* row = in + static_cast<std::size_t>(blockIdx.x) * cols;
  float sum = 0.0f;
  if (bug == Bug::ReadsPastRowMasked) {
    const int padded_cols = (cols + kThreads - 1) / kThreads * kThreads;
    for (int i = tid; i < padded_cols; i += kThreads) {
      const float x = read_even_if_masked(row, static_cast<std::size_t>(i));
      sum += i < cols ? x * x : 0.0f;
    }
  } else {
    for (int i = tid; i < cols; i += kThreads) sum += row[i] * row[i];
  }
  partial[tid] = sum;
  __syncthreads();
  const int last = bug == Bug::NoSyncwarp ? 32 : 0;  // NoSyncwarp: the last warp finishes on its own
  for (int half = kThreads / 2; half > last; half /= 2) {
    if (tid < half) partial[tid] += partial[tid + half];
    __syncthreads();
  }
  if (bug == Bug::NoSyncwarp) {
    if (tid < 32) {
      partial[tid] += partial[tid + 32];
      warp_tree_sum_without_syncwarp(partial, static_cast<unsigned int>(tid));
    }
    __syncthreads();  // partial[0] complete for every warp
  }
  const float inv_rms = rsqrtf(partial[0] / static_cast<float>(cols) + eps);
  float* out_row = out + static_cast<std::size_t>(blockIdx.x) * cols;
  for (int i = tid; i < cols; i += kThreads) out_row[i] = row[i] * inv_rms * weight[i];
}

template <Bug bug>
void launch(const float* in, const float* weight, float* out, int rows, int cols, float eps, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  planted_rmsnorm<bug><<<rows, kThreads, 0, stream>>>(in, weight, out, cols, eps);
  CUDA_CHECK_KERNEL();
}

}  // namespace

void planted_rmsnorm_no_syncwarp(const float* in, const float* weight, float* out, int rows, int cols, float eps,
                                 cudaStream_t stream) {
  launch<Bug::NoSyncwarp>(in, weight, out, rows, cols, eps, stream);
}
void planted_rmsnorm_reads_past_row_masked(const float* in, const float* weight, float* out, int rows, int cols,
                                           float eps, cudaStream_t stream) {
  launch<Bug::ReadsPastRowMasked>(in, weight, out, rows, cols, eps, stream);
}
