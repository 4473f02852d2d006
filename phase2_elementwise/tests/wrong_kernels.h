// SPDX-License-Identifier: MIT
// Planted bugs for the phase 2 grader self-test (tests/grader_selftest.cpp), never used by lessons:
// RMSNorm launchers (2.05's shape, RmsnormLauncher) with the bugs only compute-sanitizer sees, and
// LayerNorm launchers (2.10's, LayernormLauncher) with the bugs its grader must name.
#pragma once

#include <cuda_runtime_api.h>

// A block per row whose shared-memory tree ends in one warp without __syncwarp between its steps.
void planted_rmsnorm_no_syncwarp(const float* in, const float* weight, float* out, int rows, int cols, float eps,
                                 cudaStream_t stream);
// A block per row whose loads run to the row length rounded up to the block, the extra values dropped:
// the last row reads past the end of the input.
void planted_rmsnorm_reads_past_row_masked(const float* in, const float* weight, float* out, int rows, int cols,
                                           float eps, cudaStream_t stream);

// LayerNorm, one block per row, two passes over the row in memory (a plain kernel for the bugs to hide
// in). Correct: the grader must accept it.
void planted_layernorm_correct(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                               float* rstd, int rows, int cols, float eps, cudaStream_t stream);
// The variance divided by cols - 1 (the sample variance) instead of cols.
void planted_layernorm_unbiased(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                float* rstd, int rows, int cols, float eps, cudaStream_t stream);
// var = E[x^2] - E[x]^2 in float: fine on small means, noise on a mean of 1e4.
void planted_layernorm_naive_variance(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                      float* rstd, int rows, int cols, float eps, cudaStream_t stream);
// y = (x - mean) * rstd * beta + gamma.
void planted_layernorm_swaps_gamma_beta(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                        float* rstd, int rows, int cols, float eps, cudaStream_t stream);
// Only whole packs of 4: the last cols % 4 values of each row are neither counted nor written.
void planted_layernorm_skips_tail(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                  float* rstd, int rows, int cols, float eps, cudaStream_t stream);
// y right, mean and rstd never stored.
void planted_layernorm_no_stats(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                float* rstd, int rows, int cols, float eps, cudaStream_t stream);
// Only compute-sanitizer sees these two: the row sum's shared-memory tree ends in one warp without
// __syncwarp between its steps (racecheck); the first pass reads one float past the row, the value
// dropped, which past the last row is past the end of x (memcheck with exact-size inputs).
void planted_layernorm_no_syncwarp(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                   float* rstd, int rows, int cols, float eps, cudaStream_t stream);
void planted_layernorm_reads_past_row_masked(const float* x, const float* gamma, const float* beta, float* y,
                                             float* mean, float* rstd, int rows, int cols, float eps,
                                             cudaStream_t stream);
