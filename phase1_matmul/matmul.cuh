// SPDX-License-Identifier: MIT
// Phase 1 launchers: C = alpha * A * B + beta * C with A (M x K), B (K x N), C (M x N), all row-major
// FP32 device pointers, any M, N, K >= 0 (not only multiples of a tile). beta != 0 reads C, so C must
// hold valid data; beta == 0 must not read it (C may hold NaN). M, N or K = 0 follow the math: K = 0
// gives C = beta * C; M = 0 or N = 0 launches nothing. Shapes whose grid would pass gridDim.y's limit
// of 65535 blocks (over 2 million rows for most rungs) fail loudly (a CUDA error or
// std::invalid_argument), never silently. Pointers need only float alignment: a launcher that uses
// 16-byte vector accesses checks alignment and row lengths first (A + 1 is a valid matrix). Every launcher enqueues on
// `stream` and checks its launch (CUDA_CHECK_KERNEL). Host code only here: tests include it.
#pragma once

#include <cuda_runtime_api.h>

// One signature for the whole ladder, so tests, lessons and the ladder benchmark can take any rung.
using MatmulLauncher = void (*)(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                                cudaStream_t stream);

// 1.01 one thread per output element; threadIdx.x walks down a column of C (uncoalesced on purpose).
void matmul_naive(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                  cudaStream_t stream);
// 1.02 the same work, threadIdx.x along a row of C: a warp reads one row of B coalesced.
void matmul_coalesced(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                      cudaStream_t stream);
// 1.03 32x32 tiles of A and B staged in shared memory.
void matmul_smem_tiled(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream);
// 1.04 each thread computes a column of TM outputs (1D blocktiling).
void matmul_blocktiling_1d(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                           cudaStream_t stream);
// 1.05 each thread computes a TM x TN register tile (outer products of register fragments).
void matmul_blocktiling_2d(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                           cudaStream_t stream);
// 1.06 float4 global loads and a transposed A tile in shared memory.
void matmul_vectorized(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream);
// 1.07 block -> warp -> thread tiles: the fastest FP32 kernel of the ladder.
void matmul_warptiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream);
// 1.08 cublasSgemm on row-major data (C^T = B^T A^T), FP32 without tensor cores (pedantic math).
void matmul_cublas(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                   cudaStream_t stream);
// 1.09 tensor cores: TF32 inputs, FP32 accumulation (WMMA or mma.sync).
void matmul_tensor_core_tf32(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                             cudaStream_t stream);
