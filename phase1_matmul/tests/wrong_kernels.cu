// SPDX-License-Identifier: MIT
#include "common/check.h"
#include "common/planted_bugs.cuh"
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

// A shared-memory tiled GEMM whose block is one warp (8 x 4 threads, a 4 x 8 tile of C, 8-wide k
// steps), with the bugs only compute-sanitizer sees. Each thread loads one element of the A tile
// and two of the B tile, then computes one C element from the tiles.
enum class TileBug { None, NoBarrier, ReadsPastEndMasked };
constexpr int kTileM = 4, kTileN = 8, kTileK = 8;

template <TileBug bug>
__device__ float load_tile_element(const float* M, int row, int col, int rows, int cols) {
  if (bug == TileBug::ReadsPastEndMasked) {
    // The address is formed from an unchecked row and column: past the last row or column it lands
    // in the next row or, at the end of the matrix, past it; the value is then zeroed.
    const float x = read_even_if_masked(M, std::size_t(row) * cols + col);
    return row < rows && col < cols ? x : 0.0f;
  }
  return row < rows && col < cols ? M[std::size_t(row) * cols + col] : 0.0f;
}

template <TileBug bug>
__global__ void planted_tiled_kernel(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                                     float* C) {
  __shared__ float As[kTileM][kTileK];
  __shared__ float Bs[kTileK][kTileN];
  const int tx = threadIdx.x, ty = threadIdx.y;  // 8 x 4: one warp
  const int row = blockIdx.y * kTileM + ty, col = blockIdx.x * kTileN + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kTileK) {
    As[ty][tx] = load_tile_element<bug>(A, row, k0 + tx, M, K);
    Bs[ty][tx] = load_tile_element<bug>(B, k0 + ty, col, K, N);
    Bs[ty + kTileM][tx] = load_tile_element<bug>(B, k0 + ty + kTileM, col, K, N);
    // NoBarrier: the block is one warp, so it runs in lockstep and the tile is complete anyway; only
    // racecheck sees the reads of other threads' elements that nothing orders after their writes.
    if (bug != TileBug::NoBarrier) __syncthreads();
    for (int k = 0; k < kTileK; ++k) acc += As[ty][k] * Bs[k][tx];
    if (bug != TileBug::NoBarrier) __syncthreads();
  }
  if (row < M && col < N) {
    float* out = &C[std::size_t(row) * N + col];
    *out = beta != 0.0f ? alpha * acc + beta * *out : alpha * acc;
  }
}

template <TileBug bug>
void launch_tiled(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                  cudaStream_t stream) {
  if (M == 0 || N == 0) return;
  const dim3 block(kTileN, kTileM);
  const dim3 grid(wb::ceil_div(N, kTileN), wb::ceil_div(M, kTileM));
  planted_tiled_kernel<bug><<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
  CUDA_CHECK_KERNEL();
}

enum class Bf16Bug { None, DropsKTail, ReadsCWhenBetaZero, BAsKxN, SkipsTailCols };

template <Bf16Bug bug>
__global__ void planted_bf16_kernel(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                    float beta, float* C) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= M || col >= N) return;
  if (bug == Bf16Bug::SkipsTailCols && col >= (N / 64) * 64) return;  // the last partial tile of columns
  const int k_end = bug == Bf16Bug::DropsKTail ? K - K % 64 : K;
  float acc = 0.0f;
  for (int k = 0; k < k_end; ++k) {
    const __nv_bfloat16 b = bug == Bf16Bug::BAsKxN ? B[std::size_t(k) * N + col] : B[std::size_t(col) * K + k];
    acc = fmaf(__bfloat162float(A[std::size_t(row) * K + k]), __bfloat162float(b), acc);
  }
  float* out = &C[std::size_t(row) * N + col];
  *out = bug == Bf16Bug::ReadsCWhenBetaZero || beta != 0.0f ? alpha * acc + beta * *out : alpha * acc;
}

template <Bf16Bug bug>
void launch_bf16(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta, float* C,
                 cudaStream_t stream) {
  if (M == 0 || N == 0) return;
  const dim3 block(16, 16);
  const dim3 grid(wb::ceil_div(N, 16), wb::ceil_div(M, 16));
  planted_bf16_kernel<bug><<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
  CUDA_CHECK_KERNEL();
}

}  // namespace

void planted_bf16_correct(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                          float* C, cudaStream_t stream) {
  launch_bf16<Bf16Bug::None>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_bf16_drops_k_tail(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                               float beta, float* C, cudaStream_t stream) {
  launch_bf16<Bf16Bug::DropsKTail>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_bf16_reads_c_when_beta_zero(int M, int N, int K, float alpha, const __nv_bfloat16* A,
                                         const __nv_bfloat16* B, float beta, float* C, cudaStream_t stream) {
  launch_bf16<Bf16Bug::ReadsCWhenBetaZero>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_bf16_b_as_kxn(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                           float* C, cudaStream_t stream) {
  launch_bf16<Bf16Bug::BAsKxN>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_bf16_skips_tail_cols(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                  float beta, float* C, cudaStream_t stream) {
  launch_bf16<Bf16Bug::SkipsTailCols>(M, N, K, alpha, A, B, beta, C, stream);
}

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
void planted_tiled_correct(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                           cudaStream_t stream) {
  launch_tiled<TileBug::None>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_tiled_no_barrier(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                              cudaStream_t stream) {
  launch_tiled<TileBug::NoBarrier>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_tiled_reads_past_end_masked(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                                         float* C, cudaStream_t stream) {
  launch_tiled<TileBug::ReadsPastEndMasked>(M, N, K, alpha, A, B, beta, C, stream);
}
