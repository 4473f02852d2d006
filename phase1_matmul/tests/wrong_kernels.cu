// SPDX-License-Identifier: MIT
#include "common/check.h"
#include "common/util.h"
#include "phase1_matmul/tests/wrong_kernels.h"

namespace {

enum class Bug { None, SkipsTailRows, ReadsCWhenBetaZero, IgnoresBeta, DropsLastK, WritesPastEnd };

// A plain one-output-per-thread GEMM with one switchable bug.
template <Bug bug>
__global__ void planted_kernel(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  if (bug == Bug::SkipsTailRows && row >= (M / 32) * 32) return;  // the last partial tile of rows
  const int k_end = bug == Bug::DropsLastK ? K - 1 : K;
  float acc = 0.0f;
  for (int k = 0; k < k_end; ++k) acc += A[std::size_t(row) * K + k] * B[std::size_t(k) * N + col];
  float* out = &C[std::size_t(row) * N + col];
  if (bug == Bug::IgnoresBeta) {
    *out = alpha * acc;
  } else if (bug == Bug::ReadsCWhenBetaZero || beta != 0.0f) {
    *out = alpha * acc + beta * *out;
  } else {
    *out = alpha * acc;
  }
  if (bug == Bug::WritesPastEnd && row == M - 1 && col == N - 1) out[1] = 0.0f;  // one past the last
}

template <Bug bug>
void launch(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
            cudaStream_t stream) {
  if (M == 0 || N == 0) return;
  const dim3 block(16, 16);
  const dim3 grid(wb::ceil_div(N, 16), wb::ceil_div(M, 16));
  planted_kernel<bug><<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
  CUDA_CHECK_KERNEL();
}

}  // namespace

void planted_correct(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                     cudaStream_t stream) {
  launch<Bug::None>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_skips_tail_rows(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                             cudaStream_t stream) {
  launch<Bug::SkipsTailRows>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_reads_c_when_beta_zero(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                                    float* C, cudaStream_t stream) {
  launch<Bug::ReadsCWhenBetaZero>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_ignores_beta(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                          cudaStream_t stream) {
  launch<Bug::IgnoresBeta>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_drops_last_k(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                          cudaStream_t stream) {
  launch<Bug::DropsLastK>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_writes_past_end(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                             cudaStream_t stream) {
  launch<Bug::WritesPastEnd>(M, N, K, alpha, A, B, beta, C, stream);
}
