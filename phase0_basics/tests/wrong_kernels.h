// SPDX-License-Identifier: MIT
// Kernels with planted bugs for the phase 0 grader self-test (tests/grader_selftest.cpp): block
// reductions (0.08's shape, reduce_sum_atomic) with the bugs only compute-sanitizer sees, and
// histograms (0.11's shape, histogram_bins) with the bugs its grader must name. Never used by lessons.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

// The tree's last warp on volatile shared memory, without __syncwarp between its steps.
void planted_reduce_no_syncwarp(const float* in, float* result, std::size_t n, cudaStream_t stream);
// A grid-stride loop that reads in[i] up to the next whole stride past n and adds 0 for those.
void planted_reduce_reads_past_n_masked(const float* in, float* result, std::size_t n, cudaStream_t stream);

// 0.11 histogram (histogram_bins' shape) with one planted bug each, for the grader self-test.
// A correct one, so the self-test sees the grader accept what it should.
void planted_histogram_correct(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                               cudaStream_t stream);
// The launcher never zeroes bins: the blocks add onto whatever it held.
void planted_histogram_no_zeroing(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                                  cudaStream_t stream);
// No path for the bytes after the last whole 16-byte vector (n - head not a multiple of 16).
void planted_histogram_skips_tail(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                                  cudaStream_t stream);
// The global atomic adds each count to the bin above its own.
void planted_histogram_bin_off_by_one(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                                      cudaStream_t stream);
// Every thread of a 512-thread block adds counter threadIdx.x % 256: each block's partial, twice.
void planted_histogram_partial_added_twice(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                                           cudaStream_t stream);
// Bugs only compute-sanitizer sees:
// one warp per block counting into per-lane columns of shared memory, merged with no __syncwarp()
// between the counting loop and the reads of the other lanes' columns (racecheck);
void planted_histogram_merge_without_syncwarp(const unsigned char* data, std::size_t n, unsigned int* bins,
                                              int num_bins, cudaStream_t stream);
// a vector loop that loads one uint4 past the last whole vector, counting only its bytes below n, in
// place of a tail loop (exact-input memcheck).
void planted_histogram_reads_vec_past_end(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                                          cudaStream_t stream);
