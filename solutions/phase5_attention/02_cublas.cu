// SPDX-License-Identifier: MIT
// 5.02 cublas: attention as two batched GEMMs from cuBLAS around a softmax kernel.
//
// You learn: that attention is two matrix products per head, S = Q K^T and O = P V, which cuBLAS runs
// for all heads in one strided-batched call each; how row-major [heads][rows][cols] arrays map to
// cuBLAS's column-major world (a transpose flag, swapped operands, leading dimensions); and that the
// GEMMs are not the whole cost: the seq x seq scores still travel to DRAM and back between them.
// Task: finish attention_cublas: bind the stream and the math mode, then the two
// cublasGemmStridedBatchedEx calls (the softmax between them is given: it is 5.01's, masked).
// Source: cuBLAS documentation, "Data Layout" and cublasGemmStridedBatchedEx: a row-major matrix read
// column-major is its transpose.
// Holds 5.01's answer: solve 5.01 first (harness/row_softmax.cuh, which it includes, holds the row softmax and L).
// Run:   ./workbook run 5.02 [-- --size 16x4096x64]
// Check: ./workbook check 5.02
// Aim:   1.00x of 5.02 (it is the yardstick: the other lessons report their speed against this path).
// Previous: 5.01 naive. Next: 5.03 flash_fp32.

#include "common/check_cublas.h"
#include "common/workbook.h"
#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/lesson_support.h"
#include "phase5_attention/harness/row_softmax.cuh"

// ---- kernels ----------------------------------------------------------------------------------------

// cuBLAS's GEMMs, and masked_row_softmax from harness/row_softmax.cuh: one block per row of S, in place,
// keys j > i of a causal row given probability 0 (cuBLAS computed their logits anyway), L written.

// ---- launchers --------------------------------------------------------------------------------------

// Each head's Q is a row-major seq_q x d matrix; read column-major with leading dimension d it is Q^T
// (d x seq_q), and likewise K is K^T (d x seq_k) and S is S^T (seq_k x seq_q, leading dimension seq_k).
// So ask cuBLAS for S^T = K Q^T: the first operand is the stored K^T transposed (CUBLAS_OP_T), the
// second Q^T as stored; then O^T (d x seq_q) = V^T P^T, both as stored. Head h's matrices start
// h * rows * cols floats after head 0's: that is the batch stride. alpha carries the scale for free.
// FP32 in and out, CUBLAS_COMPUTE_32F, and the handle's default math mode: no TF32 tensor cores, the
// same arithmetic as 5.01 and 5.03, so the race is fair.
void attention_cublas(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape,
                      float* workspace, cudaStream_t stream) {
  validate_attention_shape(shape);
  if (shape.heads == 0 || shape.seq_q == 0) return;
  // One handle for the process, created on the first call (it costs milliseconds; the lesson's first,
  // untimed call pays it).
  static wb::CublasHandle handle;
  CUBLAS_CHECK(cublasSetStream(handle.get(), stream));
  CUBLAS_CHECK(cublasSetMathMode(handle.get(), CUBLAS_DEFAULT_MATH));
  const int sq = shape.seq_q, sk = shape.seq_k, d = shape.d;
  const float scale = attention_scale(d), one = 1.0f, zero = 0.0f;
  const long long q_stride = static_cast<long long>(sq) * d, k_stride = static_cast<long long>(sk) * d;
  const long long s_stride = static_cast<long long>(sq) * sk;
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle.get(), CUBLAS_OP_T, CUBLAS_OP_N, sk, sq, d, &scale, K, CUDA_R_32F, d,
                                          k_stride, Q, CUDA_R_32F, d, q_stride, &zero, workspace, CUDA_R_32F, sk,
                                          s_stride, shape.heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  masked_row_softmax(workspace, L, shape, stream);
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, d, sq, sk, &one, V, CUDA_R_32F, d,
                                          k_stride, workspace, CUDA_R_32F, sk, s_stride, &zero, O, CUDA_R_32F, d,
                                          q_stride, shape.heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: the two GEMMs are 4 seq^2 d FLOP per head (4.3 GFLOP at 4096 x 64), about 0.1 ms per
// head at cuBLAS's ~45 TFLOP/s FP32. But with d = 64 each GEMM does only 64 (or 2 x 64) multiply-adds
// per score it writes or reads, and the scores (64 MiB per head) go to DRAM four times: 256 MiB at
// ~3 TB/s is another ~0.09 ms per head. Half the time moves a matrix nobody asked for.
int cublas_lesson(wb::Lesson& lesson) {
  return p5::run_attention_lesson(lesson, "attention_cublas", {nullptr, attention_cublas}, false);
}

}  // namespace

WB_LESSON(cublas_lesson, "two strided-batched cuBLAS GEMMs around a softmax kernel");
