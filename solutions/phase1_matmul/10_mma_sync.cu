// SPDX-License-Identifier: MIT
// 1.10 mma_sync: PLACEHOLDER written with the harness, so that the build, the registry, the grader and
// the lesson work before the rung exists. The rung's author replaces this file (and its stub/solution
// twin) with the real one: mma.sync m16n8k16, ldmatrix, cp.async pipeline.
//
// Task: matmul_mma_sync_bf16: C = alpha * A * B^T + beta * C, BF16 A (M x K) and B (N x K), FP32 C
// (phase1_matmul/matmul_bf16.cuh). Inputs the 16-byte fast path cannot take go to the fallback.
// Needs sm_80 or newer: on another GPU the lesson and the test skip (exit 77) with one line.
// Run:   build/default/phase1_matmul/p1_10_mma_sync [--size 4096 | --size MxNxK]
// Check: ctest --preset learner -R '^1.10' (or workbook check 1.10)
// Aim:   >= 50% of the cuBLAS BF16 best (the faster of cublasGemmEx and cublasLtMatmul) at 4096.

#include "common/workbook.h"
#include "phase1_matmul/lesson_support.h"
#include "phase1_matmul/matmul_bf16.cuh"

// ---- launcher ---------------------------------------------------------------------------------------

void matmul_mma_sync_bf16(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                          float* C, cudaStream_t stream) {
  // K % 8 != 0, K = 0 or a misaligned A or B: the documented fallback (matmul_bf16.cuh).
  if (!bf16_fast_path_ok(K, A, B)) {
    matmul_bf16_fallback(M, N, K, alpha, A, B, beta, C, stream);
    return;
  }
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 2 M N K = 137 GFLOP at 4096^3; an H100 SXM's dense BF16 peak is 989 TFLOP/s at
// NVIDIA's 1830 MHz (0.14 ms), and 2 x 4096^2 x 2 B of inputs + 4096^2 x 4 B of C = 134 MB.
int mma_sync_lesson(wb::Lesson& lesson) {
  return run_bf16_matmul_lesson(lesson, "matmul_mma_sync_bf16", matmul_mma_sync_bf16);
}

}  // namespace

WB_LESSON(mma_sync_lesson, "BF16 tensor cores: mma.sync m16n8k16, ldmatrix, cp.async pipeline (placeholder)");
