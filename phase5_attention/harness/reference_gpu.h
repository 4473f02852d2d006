// SPDX-License-Identifier: MIT
// The unfused cuBLAS path on the GPU, outside the files learners edit: the yardstick every lesson times
// in the same run ("x of 5.02"), and the reference of the graded tests at sizes too large for the CPU
// (it is itself checked against the CPU reference at small sizes, in gpu.p5.grader).
#pragma once

#include <cublas_v2.h>

#include "phase5_attention/attention.cuh"

namespace p5 {

// 5.02's computation: S = scale Q K^T and O = P V by cublasGemmStridedBatchedEx (FP32, default math),
// the masked row softmax between them. `workspace`: attention_scores_elements(shape) floats. Takes the
// causal decoding shapes of 5.06 as well (seq_q < seq_k: validate_decoding_shape).
void attention_reference_cublas(cublasHandle_t handle, const float* Q, const float* K, const float* V, float* O,
                                float* L, const AttentionShape& shape, float* workspace, cudaStream_t stream);

// The same through a process-wide handle, with the signature of 5.01 and 5.02.
void attention_reference(const float* Q, const float* K, const float* V, float* O, float* L,
                         const AttentionShape& shape, float* workspace, cudaStream_t stream);

}  // namespace p5
