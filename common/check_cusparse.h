// SPDX-License-Identifier: MIT
// CUSPARSE_CHECK: like CUDA_CHECK, for cuSPARSE status codes. Include only where cuSPARSE is used.
#pragma once

#include <cusparse.h>

#include "common/check.h"

namespace wb {

inline std::string format_cusparse_error(cusparseStatus_t status, const char* call, const char* file, int line) {
  return std::string("cuSPARSE error ") + cusparseGetErrorName(status) + " (" + cusparseGetErrorString(status) +
         ") in `" + call + "` at " + file + ":" + std::to_string(line);
}

inline void check_cusparse(cusparseStatus_t status, const char* call, const char* file, int line) {
  if (status != CUSPARSE_STATUS_SUCCESS) throw std::runtime_error(format_cusparse_error(status, call, file, line));
}

}  // namespace wb

#define CUSPARSE_CHECK(expr) ::wb::check_cusparse((expr), #expr, __FILE__, __LINE__)
