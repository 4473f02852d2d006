// SPDX-License-Identifier: MIT
// The unfused cuBLAS backward on the GPU, outside the files learners edit: the yardstick 5.07's lesson
// times in the same run, and the reference of its graded tests at sizes too large for the CPU (itself
// checked against the CPU reference at small sizes, in gpu.p5.grader). FP32 throughout, on the BF16
// inputs widened.
#pragma once

#include <cublas_v2.h>

#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/reference_backward.h"

namespace p5 {

// heads x (2 seq_q seq_k + seq_q) floats: P, dP (then dS) and D.
std::size_t attention_backward_cublas_workspace_elements(const AttentionShape& shape);

// The backward in seven steps: S = scale Q K^T and dP = dO V^T by cublasGemmStridedBatchedEx (FP32,
// default math), P = exp(S - L) with the mask, D = rowsum(dO o O), dS = P o (dP - D) by small kernels,
// then dV = P^T dO, dQ = scale dS K and dK = scale dS^T Q by cuBLAS. Square causal or non-causal shapes
// (validate_attention_shape). `workspace`: attention_backward_cublas_workspace_elements(shape) floats.
void attention_backward_cublas(cublasHandle_t handle, const float* Q, const float* K, const float* V, const float* O,
                               const float* dO, const float* L, float* dQ, float* dK, float* dV,
                               const AttentionShape& shape, float* workspace, cudaStream_t stream);
// The same through a process-wide handle.
void attention_backward_reference(const float* Q, const float* K, const float* V, const float* O, const float* dO,
                                  const float* L, float* dQ, float* dK, float* dV, const AttentionShape& shape,
                                  float* workspace, cudaStream_t stream);
// The magnitudes of reference_backward.h (mq, mk, mv) on the GPU: the same pipeline with P from the
// signed Q and K, the absolute values |V|, |O|, |dO|, |Q|, |K| everywhere else, and dP + D in place of
// dP - D. Where the CPU reference is too slow, the graders' per-element bounds come from it.
void attention_backward_magnitudes(const float* Q, const float* K, const float* Q_abs, const float* K_abs,
                                   const float* V_abs, const float* O_abs, const float* dO_abs, const float* L,
                                   float* mQ, float* mK, float* mV, const AttentionShape& shape, float* workspace,
                                   cudaStream_t stream);

// O and L of `in` from its Q, K and V by the cuBLAS forward (attention_reference, FP32), O rounded to
// BF16: the inputs of a backward too large for backward_forward_cpu.
void backward_forward_gpu(const AttentionShape& shape, BackwardInputs& in);
// backward_forward_cpu where the CPU reference is quick (2 heads x seq_q x seq_k x d below 2^28), else
// backward_forward_gpu.
void backward_forward(const AttentionShape& shape, BackwardInputs& in);

}  // namespace p5
