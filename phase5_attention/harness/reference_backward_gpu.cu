// SPDX-License-Identifier: MIT
#include <cmath>

#include "common/bf16.h"
#include "common/buffer.h"
#include "common/check_cublas.h"
#include "phase5_attention/harness/reference_backward_gpu.h"
#include "phase5_attention/harness/reference_gpu.h"

namespace p5 {

namespace {

constexpr int kThreads = 256;

// blockIdx.x is a row of all heads' scores (head * seq_q + i): S becomes P = exp(S - L_i), 0 past the
// row's visible keys.
__global__ void recompute_p_kernel(float* __restrict__ S, const float* __restrict__ L, int seq_q, int seq_k,
                                   bool causal) {
  const std::size_t row = blockIdx.x;
  const int i = static_cast<int>(row % static_cast<std::size_t>(seq_q));
  const int visible = causal ? min(i + 1 + (seq_k - seq_q), seq_k) : seq_k;
  const float l = L[row];
  float* s = S + row * static_cast<std::size_t>(seq_k);
  for (int j = threadIdx.x; j < seq_k; j += blockDim.x) s[j] = j < visible ? expf(s[j] - l) : 0.0f;
}

// One warp per row: D_i = sum_c dO_ic O_ic.
__global__ void row_dot_kernel(const float* __restrict__ dO, const float* __restrict__ O, float* __restrict__ D,
                               std::size_t rows, int d) {
  const std::size_t row = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int c = lane; c < d; c += 32) sum += dO[row * d + c] * O[row * d + c];
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (lane == 0) D[row] = sum;
}

// dP becomes dS = P o (dP - D_i), or P o (dP + D_i) for the magnitudes.
__global__ void ds_kernel(float* __restrict__ dP, const float* __restrict__ P, const float* __restrict__ D, int seq_k,
                          float sign) {
  const std::size_t row = blockIdx.x;
  const float d = sign * D[row];
  for (int j = threadIdx.x; j < seq_k; j += blockDim.x) {
    const std::size_t at = row * static_cast<std::size_t>(seq_k) + j;
    dP[at] = P[at] * (dP[at] - d);
  }
}

// Row-major X (r x c) is column-major X^T with leading dimension c; one strided batch per head.
void backward_pipeline(cublasHandle_t handle, const float* Qs, const float* Ks, const float* V, const float* O,
                       const float* dO, const float* Qg, const float* Kg, const float* L, float* dQ, float* dK,
                       float* dV, const AttentionShape& shape, float* workspace, cudaStream_t stream, float sign) {
  validate_attention_shape(shape);
  if (shape.heads == 0) return;
  const int sq = shape.seq_q, sk = shape.seq_k, d = shape.d;
  if (sq == 0) {  // no query: no gradient reaches K or V
    CUDA_CHECK(cudaMemsetAsync(dK, 0, shape.k_elements() * sizeof(float), stream));
    CUDA_CHECK(cudaMemsetAsync(dV, 0, shape.k_elements() * sizeof(float), stream));
    return;
  }
  const float scale = attention_scale(d), one = 1.0f, zero = 0.0f;
  const long long q_stride = static_cast<long long>(sq) * d, k_stride = static_cast<long long>(sk) * d;
  const long long s_stride = static_cast<long long>(sq) * sk;
  const std::size_t rows = shape.l_elements();
  float* P = workspace;
  float* dS = workspace + attention_scores_elements(shape);
  float* D = dS + attention_scores_elements(shape);
  const int heads = shape.heads;
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
  // S^T (sk x sq, column-major) = K Q^T, scaled; then P in place.
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, sk, sq, d, &scale, Ks, CUDA_R_32F, d,
                                          k_stride, Qs, CUDA_R_32F, d, q_stride, &zero, P, CUDA_R_32F, sk, s_stride,
                                          heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  recompute_p_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(P, L, sq, sk, shape.causal);
  CUDA_CHECK_KERNEL();
  // dV^T (d x sk) = dO^T P.
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_T, d, sk, sq, &one, dO, CUDA_R_32F, d,
                                          q_stride, P, CUDA_R_32F, sk, s_stride, &zero, dV, CUDA_R_32F, d, k_stride,
                                          heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  // dP^T (sk x sq) = V dO^T, then D and dS in place.
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, sk, sq, d, &one, V, CUDA_R_32F, d, k_stride,
                                          dO, CUDA_R_32F, d, q_stride, &zero, dS, CUDA_R_32F, sk, s_stride, heads,
                                          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  row_dot_kernel<<<static_cast<unsigned>((rows + kThreads / 32 - 1) / (kThreads / 32)), kThreads, 0, stream>>>(dO, O, D,
                                                                                                               rows, d);
  CUDA_CHECK_KERNEL();
  ds_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(dS, P, D, sk, sign);
  CUDA_CHECK_KERNEL();
  // dQ^T (d x sq) = K^T dS^T, scaled; dK^T (d x sk) = Q^T dS, scaled.
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, d, sq, sk, &scale, Kg, CUDA_R_32F, d,
                                          k_stride, dS, CUDA_R_32F, sk, s_stride, &zero, dQ, CUDA_R_32F, d, q_stride,
                                          heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  CUBLAS_CHECK(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_N, CUBLAS_OP_T, d, sk, sq, &scale, Qg, CUDA_R_32F, d,
                                          q_stride, dS, CUDA_R_32F, sk, s_stride, &zero, dK, CUDA_R_32F, d, k_stride,
                                          heads, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

cublasHandle_t process_handle() {
  static wb::CublasHandle handle;  // created on first use, outside the timed repeats
  return handle.get();
}

}  // namespace

std::size_t attention_backward_cublas_workspace_elements(const AttentionShape& shape) {
  return 2 * attention_scores_elements(shape) + shape.l_elements();
}

void attention_backward_cublas(cublasHandle_t handle, const float* Q, const float* K, const float* V, const float* O,
                               const float* dO, const float* L, float* dQ, float* dK, float* dV,
                               const AttentionShape& shape, float* workspace, cudaStream_t stream) {
  backward_pipeline(handle, Q, K, V, O, dO, Q, K, L, dQ, dK, dV, shape, workspace, stream, 1.0f);
}

void attention_backward_reference(const float* Q, const float* K, const float* V, const float* O, const float* dO,
                                  const float* L, float* dQ, float* dK, float* dV, const AttentionShape& shape,
                                  float* workspace, cudaStream_t stream) {
  attention_backward_cublas(process_handle(), Q, K, V, O, dO, L, dQ, dK, dV, shape, workspace, stream);
}

void attention_backward_magnitudes(const float* Q, const float* K, const float* Q_abs, const float* K_abs,
                                   const float* V_abs, const float* O_abs, const float* dO_abs, const float* L,
                                   float* mQ, float* mK, float* mV, const AttentionShape& shape, float* workspace,
                                   cudaStream_t stream) {
  backward_pipeline(process_handle(), Q, K, V_abs, O_abs, dO_abs, Q_abs, K_abs, L, mQ, mK, mV, shape, workspace, stream,
                    -1.0f);
}

void backward_forward_gpu(const AttentionShape& shape, BackwardInputs& in) {
  const wb::DeviceBuffer<float> q(in.q), k(in.k), v(in.v);
  wb::DeviceBuffer<float> o(shape.q_elements()), l(shape.l_elements()), scores(attention_scores_elements(shape));
  attention_reference(q.data(), k.data(), v.data(), o.data(), l.data(), shape, scores.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  in.o = wb::rounded_to_bf16(o.download());
  in.l = l.download();
}

void backward_forward(const AttentionShape& shape, BackwardInputs& in) {
  if (2.0 * shape.heads * double(shape.seq_q) * shape.seq_k * shape.d <= double(1 << 28)) {
    backward_forward_cpu(shape, in);
  } else {
    backward_forward_gpu(shape, in);
  }
}

}  // namespace p5
