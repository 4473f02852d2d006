// SPDX-License-Identifier: MIT
// The two CUB algorithms 4.01 coo_to_csr uses, wrapped so the CUB headers are compiled once, in
// harness/cub_helpers.cu, outside the exercise. Each allocates its temporary storage stream-ordered
// (cudaMallocAsync / cudaFreeAsync on `stream`) and returns the first CUDA error, or cudaSuccess.
#pragma once

#include <cuda_runtime_api.h>

// out[i] = in[0] + ... + in[i] for i < n (cub::DeviceScan::InclusiveSum). in and out must not overlap.
cudaError_t p4_inclusive_scan(const int* in, int* out, int n, cudaStream_t stream);

// Sorts each row [row_ptr[r], row_ptr[r + 1]) of (col_in, val_in) by column into (col_out, val_out)
// (cub::DeviceSegmentedSort::SortPairs): the order CSR wants inside a row.
cudaError_t p4_sort_rows_by_column(const int* row_ptr, int rows, const int* col_in, int* col_out, const float* val_in,
                                   float* val_out, int nnz, cudaStream_t stream);
