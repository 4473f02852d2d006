// SPDX-License-Identifier: MIT
// The only phase 3 file that includes CUB's scan (built without the workbook warning flags: see
// CMakeLists.txt).
#include <cub/device/device_scan.cuh>

#include "phase3_reduction/harness/cub_scan.h"

namespace p3 {

cudaError_t cub_inclusive_sum(void* temp, std::size_t& temp_bytes, const int* in, int* out, int n,
                              cudaStream_t stream) {
  return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n, stream);
}

cudaError_t cub_inclusive_sum(void* temp, std::size_t& temp_bytes, const float* in, float* out, int n,
                              cudaStream_t stream) {
  return cub::DeviceScan::InclusiveSum(temp, temp_bytes, in, out, n, stream);
}

}  // namespace p3
