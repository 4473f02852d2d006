// SPDX-License-Identifier: MIT
// cuSPARSE SpMM, 4.09's yardstick: Y = A X with cusparseSpMM on CSR, X and Y dense and row-major
// (CUSPARSE_ORDER_ROW), FP32. Handle, descriptors and work buffer are made in the constructor; run()
// only enqueues the product on the stream given there, so a timed loop times cuSPARSE's kernels alone.
// Only the lesson and p4_bench link it: the exercise file never calls cuSPARSE.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include "phase4_spmv/spmv.cuh"

namespace p4 {

// The algorithms the lesson tries (the faster one is the yardstick).
enum class SpmmAlgorithm { Default, CsrAlg2 };
// "CUSPARSE_SPMM_ALG_DEFAULT", "CUSPARSE_SPMM_CSR_ALG2".
const char* spmm_algorithm_name(SpmmAlgorithm algorithm);

class CusparseCsrSpmm {
 public:
  // Throws std::runtime_error (with cuSPARSE's status) when the library refuses the problem, e.g. an
  // algorithm that does not support row-major X and Y on this version.
  CusparseCsrSpmm(const CsrView& a, const float* x, float* y, int k, SpmmAlgorithm algorithm, cudaStream_t stream);
  ~CusparseCsrSpmm();
  CusparseCsrSpmm(const CusparseCsrSpmm&) = delete;
  CusparseCsrSpmm& operator=(const CusparseCsrSpmm&) = delete;
  void run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace p4
