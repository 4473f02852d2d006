// SPDX-License-Identifier: MIT
// Holds 5.02's answer (its two GEMM calls) and 5.06's causal bound (DecodingCausalMask); no exercise
// includes it.
#include "common/check_cublas.h"
#include "phase5_attention/harness/reference_gpu.h"
#include "phase5_attention/harness/row_softmax.cuh"

namespace p5 {

namespace {

// The causal mask of every shape validate_decoding_shape accepts: the seq_q queries are the newest of
// the seq_k tokens (attention.cuh), so row i sees keys j <= i + seq_k - seq_q; every row sees key 0.
struct DecodingCausalMask {
  int seq_q, seq_k;
  bool causal;
  __device__ int operator()(int i) const { return causal ? min(i + 1 + (seq_k - seq_q), seq_k) : seq_k; }
};

}  // namespace

// Row-major X (r x c) is column-major X^T with leading dimension c. S^T (seq_k x seq_q, column-major)
// = K (op T of the stored K^T) times Q^T; O^T (d x seq_q) = V^T P^T. One strided batch per head.
void attention_reference_cublas(cublasHandle_t handle, const float* Q, const float* K, const float* V, float* O,
                                float* L, const AttentionShape& shape, float* workspace, cudaStream_t stream) {
  validate_decoding_shape(shape);  // causal decoding (seq_q < seq_k) too: DecodingCausalMask
  if (shape.heads == 0 || shape.seq_q == 0) return;
  const int sq = shape.seq_q, sk = shape.seq_k, d = shape.d;
  const float scale = attention_scale(d), one = 1.0f, zero = 0.0f;
  const long long q_stride = static_cast<long long>(sq) * d, k_stride = static_cast<long long>(sk) * d;
  const long long s_stride = static_cast<long long>(sq) * sk;
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, sk, sq, d, &scale, K, CUDA_R_32F, d,
                                          k_stride, Q, CUDA_R_32F, d, q_stride, &zero, workspace, CUDA_R_32F, sk,
                                          s_stride, shape.heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  masked_row_softmax_with(workspace, L, shape, DecodingCausalMask{sq, sk, shape.causal}, stream);
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, d, sq, sk, &one, V, CUDA_R_32F, d, k_stride,
                                          workspace, CUDA_R_32F, sk, s_stride, &zero, O, CUDA_R_32F, d, q_stride,
                                          shape.heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

void attention_reference(const float* Q, const float* K, const float* V, float* O, float* L,
                         const AttentionShape& shape, float* workspace, cudaStream_t stream) {
  static wb::CublasHandle handle;  // created on first use, outside the timed repeats
  attention_reference_cublas(handle.get(), Q, K, V, O, L, shape, workspace, stream);
}

}  // namespace p5
