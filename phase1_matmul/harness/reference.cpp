// SPDX-License-Identifier: MIT
#include "phase1_matmul/harness/reference.h"

#include <algorithm>
#include <cmath>

#include "common/check_cublas.h"
#include "common/data.h"

namespace p1 {

void gemm_reference_cpu(int M, int N, int K, float alpha, const std::vector<float>& A, const std::vector<float>& B,
                        float beta, const std::vector<float>& C, std::vector<double>& out,
                        std::vector<double>& magnitude) {
  const std::size_t m = static_cast<std::size_t>(M), n = static_cast<std::size_t>(N), k = static_cast<std::size_t>(K);
  out.assign(m * n, 0.0);
  magnitude.assign(m * n, 0.0);
  std::vector<double> row(n), row_abs(n);
  for (std::size_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), 0.0);
    std::fill(row_abs.begin(), row_abs.end(), 0.0);
    // i-k-j order: the inner loop runs along rows of B and C, which is fast on a CPU.
    for (std::size_t p = 0; p < k; ++p) {
      const double a = A[i * k + p];
      const float* b = &B[p * n];
      for (std::size_t j = 0; j < n; ++j) {
        row[j] += a * b[j];
        row_abs[j] += std::fabs(a * b[j]);
      }
    }
    for (std::size_t j = 0; j < n; ++j) {
      const double c = beta == 0.0f ? 0.0 : static_cast<double>(C[i * n + j]);  // beta = 0 never reads C
      out[i * n + j] = static_cast<double>(alpha) * row[j] + static_cast<double>(beta) * c;
      magnitude[i * n + j] = std::fabs(static_cast<double>(alpha)) * row_abs[j] + std::fabs(beta * c);
    }
  }
}

wb::Tolerance gemm_tolerance(int K, double magnitude, MatmulPrecision precision) {
  const double k = static_cast<double>(K);
  double bound = (k + 2.0) * wb::kFloatEpsilon * magnitude;
  if (precision == MatmulPrecision::TF32) bound += 2.0 * std::ldexp(1.0, -11) * magnitude;
  // Truncating tensor-core additions (reference.h): unit roundoff 2u, one more truncation per block.
  if (precision == MatmulPrecision::BF16) bound = 2.0 * wb::kFloatEpsilon * (k + std::ceil(k / 4.0) + 2.0) * magnitude;
  return wb::Tolerance{bound + 1e-30, 0.0};
}

wb::Tolerance gemm_check_tolerance(int K, double magnitude, MatmulPrecision precision, double slack) {
  wb::Tolerance tol = gemm_tolerance(K, magnitude * slack, precision);
  tol.abs += wb::kFloatEpsilon * magnitude;
  return tol;
}

std::vector<float> random_small_integers(std::size_t n, std::uint64_t seed, int lo, int hi) {
  wb::Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(rng.integer(lo, hi));
  return v;
}

void gemm_reference_cublas(cublasHandle_t handle, int M, int N, int K, float alpha, const float* A, const float* B,
                           float beta, float* C, cudaStream_t stream) {
  if (M == 0 || N == 0) return;
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
  // cuBLAS is column-major: a row-major M x N matrix is its N x M transpose. So ask for
  // C^T (N x M) = B^T (N x K) * A^T (K x M), passing B first; leading dimensions are row lengths
  // (at least 1, which cuBLAS demands even when K = 0).
  CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, K > 0 ? K : 1, &beta, C, N));
}

void gemm_nt_reference_cpu(int M, int N, int K, float alpha, const std::vector<float>& A, const std::vector<float>& B,
                           float beta, const std::vector<float>& C, std::vector<double>& out,
                           std::vector<double>& magnitude) {
  const std::size_t m = static_cast<std::size_t>(M), n = static_cast<std::size_t>(N), k = static_cast<std::size_t>(K);
  out.assign(m * n, 0.0);
  magnitude.assign(m * n, 0.0);
  for (std::size_t i = 0; i < m; ++i) {
    const float* a = A.data() + i * k;
    for (std::size_t j = 0; j < n; ++j) {
      // Row i of A against row j of B: both contiguous.
      const float* b = B.data() + j * k;
      double sum = 0.0, sum_abs = 0.0;
      for (std::size_t p = 0; p < k; ++p) {
        const double product = double(a[p]) * double(b[p]);
        sum += product;
        sum_abs += std::fabs(product);
      }
      const double c = beta == 0.0f ? 0.0 : static_cast<double>(C[i * n + j]);  // beta = 0 never reads C
      out[i * n + j] = static_cast<double>(alpha) * sum + static_cast<double>(beta) * c;
      magnitude[i * n + j] = std::fabs(static_cast<double>(alpha)) * sum_abs + std::fabs(beta * c);
    }
  }
}

void gemm_nt_reference_cublas(cublasHandle_t handle, int M, int N, int K, float alpha, const float* A, const float* B,
                              float beta, float* C, cudaStream_t stream) {
  if (M == 0 || N == 0) return;
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH));
  // Both stored matrices have rows of K elements: leading dimension K (at least 1, as cuBLAS demands).
  const int ld = K > 0 ? K : 1;
  CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, B, ld, A, ld, &beta, C, N));
}

}  // namespace p1
