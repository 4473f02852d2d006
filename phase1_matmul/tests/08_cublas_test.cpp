// SPDX-License-Identifier: MIT
// 1.08 cublas: the shared grader (exact-integer and random inputs, tail shapes, K = 0, beta = 0 on a
// NaN-filled C). cuBLAS in pedantic math is held to the same FP32 bound as the hand-written rungs.
#include "common/testing.h"
#include "phase1_matmul/tests/grading.h"

TEST_CASE("matmul_cublas computes alpha A B + beta C for every shape", "[p1][1.08][gpu]") {
  const MatmulCase c = GENERATE(Catch::Generators::from_range(standard_matmul_cases()));
  check_matmul("matmul_cublas", matmul_cublas, c);
}

TEST_CASE("matmul_cublas handles K = 0 with beta = 0 (lda must still be at least 1)", "[p1][1.08][gpu]") {
  // K = 0 and beta = 0: C = 0 exactly, without reading the NaN-filled C; a leading dimension of
  // K = 0 for A is rejected by cuBLAS (CUBLAS_STATUS_INVALID_VALUE).
  const MatmulCase c = GENERATE(MatmulCase{7, 5, 0, 1.0f, 0.0f}, MatmulCase{1, 33, 0, 2.0f, 0.0f});
  check_matmul("matmul_cublas", matmul_cublas, c);
}
