// SPDX-License-Identifier: MIT
#include "phase4_spmv/harness/cusparse_spmm.h"

#include <cstddef>

#include "common/buffer.h"
#include "common/check_cusparse.h"

namespace p4 {

const char* spmm_algorithm_name(SpmmAlgorithm algorithm) {
  return algorithm == SpmmAlgorithm::CsrAlg2 ? "CUSPARSE_SPMM_CSR_ALG2" : "CUSPARSE_SPMM_ALG_DEFAULT";
}

namespace {

cusparseSpMMAlg_t to_cusparse(SpmmAlgorithm algorithm) {
  return algorithm == SpmmAlgorithm::CsrAlg2 ? CUSPARSE_SPMM_CSR_ALG2 : CUSPARSE_SPMM_ALG_DEFAULT;
}

// Y = 1 * A X + 0 * Y: beta 0 never reads the old Y.
const float kAlpha = 1.0f;
const float kBeta = 0.0f;

}  // namespace

struct CusparseCsrSpmm::Impl {
  cusparseHandle_t handle = nullptr;
  cusparseConstSpMatDescr_t matrix = nullptr;
  cusparseConstDnMatDescr_t x = nullptr;
  cusparseDnMatDescr_t y = nullptr;
  void* work = nullptr;
  cusparseSpMMAlg_t algorithm = CUSPARSE_SPMM_ALG_DEFAULT;
  float* y_data = nullptr;
  std::size_t y_elements = 0;
  bool no_entries = false;  // no entries: Y = 0 without cuSPARSE (it refuses null index arrays)
  cudaStream_t stream = nullptr;

  ~Impl() {
    // Destructors must not throw: statuses are ignored here.
    if (y) cusparseDestroyDnMat(y);
    if (x) cusparseDestroyDnMat(x);
    if (matrix) cusparseDestroySpMat(matrix);
    if (handle) cusparseDestroy(handle);
    wb::device_free(work);
  }
};

CusparseCsrSpmm::CusparseCsrSpmm(const CsrView& a, const float* x, float* y, int k, SpmmAlgorithm algorithm,
                                 cudaStream_t stream)
    : impl_(new Impl) {
  Impl& p = *impl_;
  p.algorithm = to_cusparse(algorithm);
  p.y_data = y;
  p.y_elements = static_cast<std::size_t>(a.rows) * static_cast<std::size_t>(k);
  p.stream = stream;
  p.no_entries = a.nnz == 0 || a.rows == 0 || a.cols == 0;
  if (p.no_entries) return;
  CUSPARSE_CHECK(cusparseCreate(&p.handle));
  CUSPARSE_CHECK(cusparseSetStream(p.handle, stream));
  CUSPARSE_CHECK(cusparseCreateConstCsr(&p.matrix, a.rows, a.cols, a.nnz, a.row_ptr, a.col, a.val, CUSPARSE_INDEX_32I,
                                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  // Row-major: element (i, j) at i * ld + j, ld = k.
  CUSPARSE_CHECK(cusparseCreateConstDnMat(&p.x, a.cols, k, k, x, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  CUSPARSE_CHECK(cusparseCreateDnMat(&p.y, a.rows, k, k, y, CUDA_R_32F, CUSPARSE_ORDER_ROW));
  std::size_t work_bytes = 0;
  CUSPARSE_CHECK(cusparseSpMM_bufferSize(p.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                         &kAlpha, p.matrix, p.x, &kBeta, p.y, CUDA_R_32F, p.algorithm, &work_bytes));
  if (work_bytes > 0) p.work = wb::device_alloc(work_bytes);
}

CusparseCsrSpmm::~CusparseCsrSpmm() = default;

void CusparseCsrSpmm::run() {
  Impl& p = *impl_;
  if (p.no_entries) {
    if (p.y_elements > 0) CUDA_CHECK(cudaMemsetAsync(p.y_data, 0, sizeof(float) * p.y_elements, p.stream));
    return;
  }
  CUSPARSE_CHECK(cusparseSpMM(p.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &kAlpha,
                              p.matrix, p.x, &kBeta, p.y, CUDA_R_32F, p.algorithm, p.work));
}

}  // namespace p4
