// SPDX-License-Identifier: MIT
// Deliberately wrong GEMM launchers (and one right one) that prove the phase 1 grader fails each
// planted bug with the right diagnosis. Never used by lessons.
#pragma once

#include "phase1_matmul/matmul.cuh"

void planted_correct(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                     cudaStream_t stream);
void planted_skips_tail_rows(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                             cudaStream_t stream);
void planted_reads_c_when_beta_zero(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                                    float* C, cudaStream_t stream);
void planted_ignores_beta(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                          cudaStream_t stream);
void planted_drops_last_k(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                          cudaStream_t stream);
void planted_writes_past_end(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                             cudaStream_t stream);
// A one-warp shared-memory tiled GEMM: right, and with the bugs only compute-sanitizer sees (the
// grade's racecheck and exact-input memcheck runs): no barrier around the tile, and tile loads that
// read past the end of A and B and zero the values.
void planted_tiled_correct(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                           cudaStream_t stream);
void planted_tiled_no_barrier(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                              float* C, cudaStream_t stream);
void planted_tiled_reads_past_end_masked(int M, int N, int K, float alpha, const float* A, const float* B,
                                         float beta, float* C, cudaStream_t stream);
