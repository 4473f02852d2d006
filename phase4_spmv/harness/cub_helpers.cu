// SPDX-License-Identifier: MIT
// CUB's kernels are NVIDIA's: this file is built without the workbook's -warn-spills -Werror (its
// scan kernel spills 4 bytes on sm_90 in CUDA 13.0), see CMakeLists.txt.
#include <cstddef>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "phase4_spmv/cub_helpers.h"

#define P4_TRY(expr)                                \
  do {                                              \
    const cudaError_t p4_error_ = (expr);           \
    if (p4_error_ != cudaSuccess) return p4_error_; \
  } while (0)

cudaError_t p4_inclusive_scan(const int* in, int* out, int n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  std::size_t bytes = 0;
  P4_TRY(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, out, n, stream));
  void* temp = nullptr;
  P4_TRY(cudaMallocAsync(&temp, bytes, stream));
  const cudaError_t ran = cub::DeviceScan::InclusiveSum(temp, bytes, in, out, n, stream);
  const cudaError_t freed = cudaFreeAsync(temp, stream);
  return ran != cudaSuccess ? ran : freed;
}

cudaError_t p4_sort_rows_by_column(const int* row_ptr, int rows, const int* col_in, int* col_out, const float* val_in,
                                   float* val_out, int nnz, cudaStream_t stream) {
  if (rows <= 0 || nnz <= 0) return cudaSuccess;
  std::size_t bytes = 0;
  P4_TRY(cub::DeviceSegmentedSort::SortPairs(nullptr, bytes, col_in, col_out, val_in, val_out, nnz, rows, row_ptr,
                                             row_ptr + 1, stream));
  void* temp = nullptr;
  P4_TRY(cudaMallocAsync(&temp, bytes, stream));
  const cudaError_t ran = cub::DeviceSegmentedSort::SortPairs(temp, bytes, col_in, col_out, val_in, val_out, nnz, rows,
                                                              row_ptr, row_ptr + 1, stream);
  const cudaError_t freed = cudaFreeAsync(temp, stream);
  return ran != cudaSuccess ? ran : freed;
}
