// SPDX-License-Identifier: MIT
// Block reductions (0.08's shape, reduce_sum_atomic) with the bugs only compute-sanitizer sees, for
// the phase 0 grader self-test (tests/grader_selftest.cpp). Never used by lessons.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

// The tree's last warp on volatile shared memory, without __syncwarp between its steps.
void planted_reduce_no_syncwarp(const float* in, float* result, std::size_t n, cudaStream_t stream);
// A grid-stride loop that reads in[i] up to the next whole stride past n and adds 0 for those.
void planted_reduce_reads_past_n_masked(const float* in, float* result, std::size_t n, cudaStream_t stream);
