// SPDX-License-Identifier: MIT
// Deliberately wrong GEMM launchers (and one right one) that prove the phase 1 grader fails each
// planted bug with the right diagnosis. Never used by lessons.
#pragma once

#include <vector>

#include "phase1_matmul/matmul.cuh"
#include "phase1_matmul/matmul_bf16.cuh"
#include "phase1_matmul/tests/grading.h"

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
void planted_tiled_no_barrier(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                              cudaStream_t stream);
void planted_tiled_reads_past_end_masked(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
                                         float* C, cudaStream_t stream);

// ---- BF16 (matmul_bf16.cuh: C = alpha A B^T + beta C, B stored N x K) ------------------------------
// One thread per output with one switchable bug, on any shape (no fast path: the grader's verdict on
// the kernel alone).
void planted_bf16_correct(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                          float* C, cudaStream_t stream);
// Loops k < K - K % 64 only: the partial last K tile dropped.
void planted_bf16_drops_k_tail(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                               float beta, float* C, cudaStream_t stream);
void planted_bf16_reads_c_when_beta_zero(int M, int N, int K, float alpha, const __nv_bfloat16* A,
                                         const __nv_bfloat16* B, float beta, float* C, cudaStream_t stream);
// Indexes B as the FP32 ladder's K x N (B[k N + j]) instead of N x K.
void planted_bf16_b_as_kxn(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                           float* C, cudaStream_t stream);
// Leaves the columns past the last whole 64-wide tile unwritten.
void planted_bf16_skips_tail_cols(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                  float beta, float* C, cudaStream_t stream);

// A planted BF16 bug and the words the grader must say about it ("" = it must pass).
struct Bf16Plant {
  const char* what;
  Bf16MatmulLauncher launch;
  Bf16MatmulCase shape;
  bool exact;
  const char* diagnosis;
};

// The Hopper rungs' own planted bugs (a wrong swizzle, a stage released early, a missing fence), from
// tests/wrong_kernels_hopper.cu, compiled for sm_90a only (workbook_grader_selftest SOURCES_90A): the
// self-test's [hopper] case runs them on a Hopper GPU. Add a kernel there and a row to this list.
std::vector<Bf16Plant> hopper_bf16_plants();
// One of them, also measured by the self-test's [.race] case: a stage refilled right after the wgmma
// that read it were committed, before waiting for them (a race: how often does a graded run see it?).
void planted_hopper_early_refill(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                 float beta, float* C, cudaStream_t stream);

// 1.14's planted bugs (tests/wrong_kernels_cluster.cu, sm_90a): a compact cluster kernel, correct or with
// one bug. cluster_bf16_plants: the ones a graded run names (with two correct rows). cluster_stopping_plants:
// the ones whose bounded wait stops the kernel ("failed while running"), which loses the GPU context:
// each runs in a process of its own (hidden cases, CTest gpu.p1.grader-cluster-*).
std::vector<Bf16Plant> cluster_bf16_plants();
std::vector<Bf16Plant> cluster_stopping_plants();
// No cluster barrier before exit: a race (the source check fails it); the [.race] case measures it.
void planted_cluster_no_exit_sync(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                  float beta, float* C, cudaStream_t stream);
