// SPDX-License-Identifier: MIT
// Graded tests for 1.05 blocktiling_2d: the shared SGEMM grader (tails in M, N and K around the
// 128 x 128 x 8 tile, K = 0 and 1, beta = 0 over a NaN-filled C, exact-integer inputs).
#include "common/testing.h"
#include "phase1_matmul/tests/grading.h"

TEST_CASE("matmul_blocktiling_2d computes alpha A B + beta C for every shape", "[p1][1.05][gpu]") {
  const MatmulCase c = GENERATE(Catch::Generators::from_range(standard_matmul_cases()));
  check_matmul("matmul_blocktiling_2d", matmul_blocktiling_2d, c);
}
