// SPDX-License-Identifier: MIT
// RMSNorm launchers (2.05's shape, RmsnormLauncher) with the bugs only compute-sanitizer sees, for
// the phase 2 grader self-test (tests/grader_selftest.cpp). Never used by lessons.
#pragma once

#include <cuda_runtime_api.h>

// A block per row whose shared-memory tree ends in one warp without __syncwarp between its steps.
void planted_rmsnorm_no_syncwarp(const float* in, const float* weight, float* out, int rows, int cols, float eps,
                                 cudaStream_t stream);
// A block per row whose loads run to the row length rounded up to the block, the extra values dropped:
// the last row reads past the end of the input.
void planted_rmsnorm_reads_past_row_masked(const float* in, const float* weight, float* out, int rows, int cols,
                                           float eps, cudaStream_t stream);
