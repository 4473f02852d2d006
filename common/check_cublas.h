// SPDX-License-Identifier: MIT
// CUBLAS_CHECK: like CUDA_CHECK, for cuBLAS status codes. Include only where cuBLAS is used.
#pragma once

#include <cublas_v2.h>

#include "common/check.h"

namespace wb {

inline std::string format_cublas_error(cublasStatus_t status, const char* call, const char* file, int line) {
  return std::string("cuBLAS error ") + cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ") in `" +
         call + "` at " + file + ":" + std::to_string(line);
}

inline void check_cublas(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(format_cublas_error(status, call, file, line));
}

// An owned cuBLAS handle. Create it outside timed regions: creation takes milliseconds.
class CublasHandle {
 public:
  CublasHandle() {
    const cublasStatus_t status = cublasCreate(&handle_);
    if (status != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error(format_cublas_error(status, "cublasCreate", __FILE__, __LINE__));
  }
  ~CublasHandle() { cublasDestroy(handle_); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace wb

#define CUBLAS_CHECK(expr) ::wb::check_cublas((expr), #expr, __FILE__, __LINE__)
