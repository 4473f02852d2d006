// SPDX-License-Identifier: MIT
// Phase 1 tensor-core rungs 1.10-1.14: C = alpha * A * B^T + beta * C with
//   A  M x K, BF16, row-major (each row of A is one input vector),
//   B  N x K, BF16, row-major (each row of B is one output's weights: the layout of a Linear layer's
//      weight matrix, so both operands are K-major, the layout tensor cores read natively),
//   C  M x N, FP32, row-major; FP32 accumulation.
// The same rules as matmul.cuh otherwise: any M, N, K >= 0; beta == 0 never reads C (C may hold NaN);
// K = 0 gives C = beta * C; M = 0 or N = 0 launches nothing; every launcher enqueues on `stream` and
// checks its launch.
// The fast paths copy 16 bytes at a time (cp.async, TMA), which needs every row of A and B to start
// 16-byte aligned: K % 8 == 0 and 16-byte aligned A and B. Any other input takes the documented
// fallback, matmul_bf16_fallback (correct for every shape, not fast). Host code only here.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

// One signature for the tensor-core rungs, so tests, lessons and the ladder take any of them.
using Bf16MatmulLauncher = void (*)(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                    float beta, float* C, cudaStream_t stream);

// 1.10 mma.sync m16n8k16 through inline PTX, ldmatrix from swizzled shared memory, cp.async
// multistage pipeline: the Ampere way (sm_80 and newer).
void matmul_mma_sync_bf16(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                          float* C, cudaStream_t stream);
// 1.11 wgmma.mma_async (warpgroup MMA) on 128-byte-swizzled shared tiles described by matrix
// descriptors, fed by cp.async (sm_90a).
void matmul_wgmma_bf16(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                       float* C, cudaStream_t stream);
// 1.12 TMA (cp.async.bulk.tensor) into a multistage ring guarded by mbarriers, wgmma on it (sm_90a).
void matmul_tma_bf16(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                     float* C, cudaStream_t stream);
// 1.13 warp specialization: a TMA producer warpgroup, wgmma consumer warpgroups, persistent blocks
// over grouped tiles, setmaxnreg (sm_90a).
void matmul_warp_specialized_bf16(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                  float beta, float* C, cudaStream_t stream);
// 1.14 thread-block clusters: 1.13 launched as clusters of two blocks that share each B tile through
// TMA multicast, with the epilogue through shared memory and TMA stores (sm_90a).
void matmul_cluster_bf16(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                         float* C, cudaStream_t stream);

// Whether the 16-byte fast paths can take these inputs (K > 0, K % 8 == 0, A and B 16-byte aligned):
// K = 0 takes the fallback too (C = beta * C; a TMA descriptor cannot describe an empty dimension).
bool bf16_fast_path_ok(int K, const __nv_bfloat16* A, const __nv_bfloat16* B);
// The fallback for everything else: one thread per output, FP32 accumulation (any shape, any alignment).
void matmul_bf16_fallback(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                          float* C, cudaStream_t stream);
