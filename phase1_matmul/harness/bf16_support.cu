// SPDX-License-Identifier: MIT
// What the BF16 rungs 1.10-1.14 share and the learner does not write (matmul_bf16.cuh): the test of
// whether an input can take a 16-byte fast path, and the fallback for every input that cannot.
#include <cstdint>

#include "common/check.h"
#include "common/util.h"
#include "phase1_matmul/matmul_bf16.cuh"

namespace {

constexpr int kBlockX = 32, kBlockY = 8;

// One thread per output element, FP32 accumulation. Threads of a warp take neighbouring columns of C,
// so each reads its own row of B (rows are K apart): slow, but correct for every shape and alignment,
// which is all the fallback is for.
__global__ void matmul_bf16_fallback_kernel(int M, int N, int K, float alpha, const __nv_bfloat16* __restrict__ A,
                                            const __nv_bfloat16* __restrict__ B, float beta, float* __restrict__ C) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  const __nv_bfloat16* a = A + std::size_t(row) * K;
  const __nv_bfloat16* b = B + std::size_t(col) * K;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k) acc = fmaf(__bfloat162float(a[k]), __bfloat162float(b[k]), acc);
  float* out = C + std::size_t(row) * N + col;
  // beta == 0 never reads C: C may hold NaN (the BLAS rule).
  *out = beta != 0.0f ? alpha * acc + beta * *out : alpha * acc;
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

bool bf16_fast_path_ok(int K, const __nv_bfloat16* A, const __nv_bfloat16* B) {
  // K = 0 has no row to copy (and a TMA descriptor cannot describe an empty dimension).
  return K > 0 && K % 8 == 0 && aligned16(A) && aligned16(B);
}

void matmul_bf16_fallback(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                          float* C, cudaStream_t stream) {
  if (M == 0 || N == 0) return;  // nothing to write, and a grid with 0 blocks is an invalid launch
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid(static_cast<unsigned>(wb::ceil_div(N, kBlockX)), static_cast<unsigned>(wb::ceil_div(M, kBlockY)));
  matmul_bf16_fallback_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
  CUDA_CHECK_KERNEL();
}
