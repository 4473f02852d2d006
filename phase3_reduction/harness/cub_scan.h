// SPDX-License-Identifier: MIT
// CUB's DeviceScan::InclusiveSum, 3.11's yardstick, wrapped so that the CUB scan headers are compiled
// once, in cub_scan.cu (library p3_cub_scan). Same calling convention as CUB: with temp == nullptr it
// only writes the bytes of temporary storage it needs to temp_bytes. n is an int, CUB's fastest offset
// type (32-bit); returns the first CUDA error, or cudaSuccess.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace p3 {

cudaError_t cub_inclusive_sum(void* temp, std::size_t& temp_bytes, const int* in, int* out, int n, cudaStream_t stream);
cudaError_t cub_inclusive_sum(void* temp, std::size_t& temp_bytes, const float* in, float* out, int n,
                              cudaStream_t stream);

}  // namespace p3
