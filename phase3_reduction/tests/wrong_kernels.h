// SPDX-License-Identifier: MIT
// Reductions with one planted bug each, for the grader's self-test (tests/grader_selftest.cpp).
// Same shape as every phase 3 launcher (ReduceLauncher<float>). Then 3.11's inclusive scans of ints
// (ScanLauncher<int>) with one planted bug each.
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

// ---- 3.11 scan ------------------------------------------------------------------------------------
// A single-pass scan with tiles of 512 elements (128 threads, one int4 each), numbered by an atomic
// counter, and a look-back by one lane over the predecessors' 64-bit status words: correct, or with one
// bug. None of them can hang: every tile waits only on tiles that took their number before it, and those
// publish their aggregate without waiting.
void planted_scan_correct(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                          cudaStream_t stream);
// The tile counter zeroed only the first time the launcher sees a workspace (for a given n), as if it
// were set-up work: on the second call every block draws a number past the last tile and returns.
void planted_scan_counter_not_reset(const int* in, int* out, std::size_t n, void* workspace,
                                    std::size_t workspace_bytes, cudaStream_t stream);
// out[i] = in[0] + ... + in[i - 1].
void planted_scan_exclusive(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                            cudaStream_t stream);
// A grid of n / 512 tiles, rounded down: the last, partial tile is never scanned.
void planted_scan_drops_partial_tile(const int* in, int* out, std::size_t n, void* workspace,
                                     std::size_t workspace_bytes, cudaStream_t stream);
// Each tile takes whatever its predecessor published as its prefix and never publishes an inclusive
// prefix itself (tile 0 aside): right for tiles 0 and 1, wrong from the third tile on.
void planted_scan_aggregate_as_prefix(const int* in, int* out, std::size_t n, void* workspace,
                                      std::size_t workspace_bytes, cudaStream_t stream);
// Every tile scanned on its own: no carry from the tiles before it.
void planted_scan_no_carry(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                           cudaStream_t stream);
// Bugs only compute-sanitizer sees: each warp's lane totals scanned in shared memory, warp-synchronously,
// without __syncwarp between the steps (racecheck);
void planted_scan_no_syncwarp(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                              cudaStream_t stream);
// the last tile's threads read one int4 past the end of the data, the values masked (exact-input memcheck).
void planted_scan_reads_vec_past_n(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                                   cudaStream_t stream);
