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

// ---- LayerNorm (2.10) ---------------------------------------------------------------------------------
namespace {

constexpr int kLnThreads = 128;

enum class LnBug { None, Unbiased, NaiveVariance, SwapsGammaBeta, SkipsTail, NoStats, NoSyncwarp, ReadsPastRowMasked };

// The block's sum of v through a shared-memory tree in `s` (kLnThreads slots, used once). kRacy: the
// last warp finishes on its own without __syncwarp, as planted_rmsnorm's NoSyncwarp.
template <bool kRacy>
__device__ float ln_block_sum(float v, float* s) {
  const int tid = threadIdx.x;
  s[tid] = v;
  __syncthreads();
  const int last = kRacy ? 32 : 0;
  for (int half = kLnThreads / 2; half > last; half /= 2) {
    if (tid < half) s[tid] += s[tid + half];
    __syncthreads();
  }
  if (kRacy) {
    if (tid < 32) {
      s[tid] += s[tid + 32];
      warp_tree_sum_without_syncwarp(s, static_cast<unsigned int>(tid));
    }
    __syncthreads();  // s[0] complete for every warp
  }
  return s[0];
}

// One block per row, scalar loads: the mean from the row's sum, then M2 from a second read, then y.
template <LnBug bug>
__global__ void planted_layernorm(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                  float* rstd, int cols, float eps) {
  __shared__ float sums[kLnThreads];
  __shared__ float squares[kLnThreads];
  __shared__ float m2s[kLnThreads];
  const int tid = threadIdx.x;
  const float* row = x + static_cast<std::size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<std::size_t>(blockIdx.x) * cols;
  const int covered = bug == LnBug::SkipsTail ? cols / 4 * 4 : cols;
  float sum = 0.0f, sum_squares = 0.0f;
  if (bug == LnBug::ReadsPastRowMasked) {
    for (int i = tid; i < cols + 1; i += kLnThreads) {
      const float v = read_even_if_masked(row, static_cast<std::size_t>(i));
      sum += i < cols ? v : 0.0f;
    }
  } else {
    for (int i = tid; i < covered; i += kLnThreads) {
      sum += row[i];
      sum_squares += row[i] * row[i];
    }
  }
  const float mu = ln_block_sum<bug == LnBug::NoSyncwarp>(sum, sums) / static_cast<float>(cols);
  float var = 0.0f;
  if (bug == LnBug::NaiveVariance) {
    var = ln_block_sum<false>(sum_squares, squares) / static_cast<float>(cols) - mu * mu;
  } else {
    float m2 = 0.0f;
    for (int i = tid; i < covered; i += kLnThreads) m2 += (row[i] - mu) * (row[i] - mu);
    var = ln_block_sum<false>(m2, m2s) / static_cast<float>(bug == LnBug::Unbiased ? cols - 1 : cols);
  }
  const float r = rsqrtf(var + eps);
  if (tid == 0 && bug != LnBug::NoStats) {
    mean[blockIdx.x] = mu;
    rstd[blockIdx.x] = r;
  }
  for (int i = tid; i < covered; i += kLnThreads) {
    const float scale = bug == LnBug::SwapsGammaBeta ? beta[i] : gamma[i];
    const float shift = bug == LnBug::SwapsGammaBeta ? gamma[i] : beta[i];
    out[i] = (row[i] - mu) * r * scale + shift;
  }
}

template <LnBug bug>
void launch_layernorm(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                      int rows, int cols, float eps, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  planted_layernorm<bug><<<rows, kLnThreads, 0, stream>>>(x, gamma, beta, y, mean, rstd, cols, eps);
  CUDA_CHECK_KERNEL();
}

}  // namespace

void planted_layernorm_correct(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                               float* rstd, int rows, int cols, float eps, cudaStream_t stream) {
  launch_layernorm<LnBug::None>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
}
void planted_layernorm_unbiased(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                float* rstd, int rows, int cols, float eps, cudaStream_t stream) {
  launch_layernorm<LnBug::Unbiased>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
}
void planted_layernorm_naive_variance(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                      float* rstd, int rows, int cols, float eps, cudaStream_t stream) {
  launch_layernorm<LnBug::NaiveVariance>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
}
void planted_layernorm_swaps_gamma_beta(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                        float* rstd, int rows, int cols, float eps, cudaStream_t stream) {
  launch_layernorm<LnBug::SwapsGammaBeta>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
}
void planted_layernorm_skips_tail(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                  float* rstd, int rows, int cols, float eps, cudaStream_t stream) {
  launch_layernorm<LnBug::SkipsTail>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
}
void planted_layernorm_no_stats(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                float* rstd, int rows, int cols, float eps, cudaStream_t stream) {
  launch_layernorm<LnBug::NoStats>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
}
void planted_layernorm_no_syncwarp(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                   float* rstd, int rows, int cols, float eps, cudaStream_t stream) {
  launch_layernorm<LnBug::NoSyncwarp>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
}
void planted_layernorm_reads_past_row_masked(const float* x, const float* gamma, const float* beta, float* y,
                                             float* mean, float* rstd, int rows, int cols, float eps,
                                             cudaStream_t stream) {
  launch_layernorm<LnBug::ReadsPastRowMasked>(x, gamma, beta, y, mean, rstd, rows, cols, eps, stream);
}
