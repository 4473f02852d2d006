// SPDX-License-Identifier: MIT
// Reductions with one planted bug each, for the grader's self-test (tests/grader_selftest.cpp).
// Same shape as every phase 3 launcher (ReduceLauncher<float>).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

void planted_correct(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);
void planted_reads_past_n(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);
void planted_misses_tail(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);
void planted_no_syncthreads(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);
void planted_drops_last_warp_step(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);
void planted_double_counts_load(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);
void planted_writes_input(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);
// Bugs only compute-sanitizer sees (the grade's racecheck and exact-input memcheck runs):
// 3.05's last warp on volatile shared memory without __syncwarp between its steps;
void planted_no_syncwarp(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);
// a load of in[i] past n whose value is masked to 0.
void planted_reads_past_n_masked(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);
