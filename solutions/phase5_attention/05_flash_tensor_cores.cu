// SPDX-License-Identifier: MIT
// 5.05 flash_tensor_cores: PLACEHOLDER. The exercise (FlashAttention-2's forward pass on mma.sync BF16
// tensor cores: phase5_attention/attention.cuh's 5.05 contract) replaces this file; until then its
// launcher writes nothing, so the graded test fails with "Output untouched" and the lesson with FAIL.
// The grader (tests/grading.h: check_attention_bf16), the lesson (lesson_support.h:
// run_bf16_attention_lesson), the benchmark rows (p5_bench) and the registration are in place.
// Run:   build/default/phase5_attention/p5_05_flash_tensor_cores [--size 16x4096x128]
// Check: ctest --preset learner -R '^5.05'
// Aim:   >= 2x 5.02 at 16x4096x128, >= 70% of PyTorch SDPA's flash backend (DESIGN.md). PLACEHOLDER.
// Previous: 5.04 flash_causal. Next: 5.06 flash_decoding.

#include "common/workbook.h"
#include "phase1_matmul/mma_sm80.cuh"  // the tensor-core toolkit of 1.10 the kernel will use
#include "phase5_attention/attention.cuh"
#include "phase5_attention/lesson_support.h"

// ---- launchers --------------------------------------------------------------------------------------

void attention_flash_tensor_cores(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                  __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream) {
  validate_attention_shape(shape);
  (void)Q, (void)K, (void)V, (void)O, (void)L, (void)stream;
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 4 seq^2 d FLOP per head (halved for causal), 16 x 4 x 4096^2 x 128 = 137 GFLOP at the
// default 16x4096x128: 0.14 ms at the H100's 989 TFLOP/s BF16 peak, against 4 ms for the cuBLAS path of 5.02.
int flash_tensor_cores_lesson(wb::Lesson& lesson) {
  return p5::run_bf16_attention_lesson(lesson, "attention_flash_tensor_cores", attention_flash_tensor_cores);
}

}  // namespace

WB_LESSON(flash_tensor_cores_lesson, "FlashAttention-2 on BF16 tensor cores (mma.sync): PLACEHOLDER");
