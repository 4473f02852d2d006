// SPDX-License-Identifier: MIT
// 1.11 wgmma: PLACEHOLDER written with the harness, so that the build, the registry, the grader and
// the lesson work before the rung exists. The rung's author replaces this file (and its stub/solution
// twin) with the real one: wgmma on swizzled shared tiles fed by cp.async.
//
// Task: matmul_wgmma_bf16: C = alpha * A * B^T + beta * C, BF16 A (M x K) and B (N x K), FP32 C
// (phase1_matmul/matmul_bf16.cuh). Inputs the 16-byte fast path cannot take go to the fallback.
// Needs a Hopper GPU (sm_90): on another GPU the lesson and the test skip (exit 77) with one line.
// Run:   build/default/phase1_matmul/p1_11_wgmma [--size 4096 | --size MxNxK]
// Check: ctest --preset learner -R '^1.11' (or workbook check 1.11)
// Aim:   on the way from 1.10 to 1.12 (DESIGN.md sets no bar for 1.11).

#include "common/workbook.h"
#include "phase1_matmul/lesson_support.h"
#include "phase1_matmul/matmul_bf16.cuh"

// ---- launcher ---------------------------------------------------------------------------------------

void matmul_wgmma_bf16(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
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
int wgmma_lesson(wb::Lesson& lesson) { return run_bf16_matmul_lesson(lesson, "matmul_wgmma_bf16", matmul_wgmma_bf16); }

}  // namespace

WB_LESSON(wgmma_lesson, "BF16 tensor cores: wgmma on swizzled shared tiles fed by cp.async (placeholder)");
