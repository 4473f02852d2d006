// SPDX-License-Identifier: MIT
// Graded tests for 1.04 blocktiling_1d: the shared phase-1 grader (shapes that are no multiple of
// any tile, K = 0 and 1, beta = 0 with NaN in C, NaN-ringed inputs, guard canaries), plus shapes
// one element around the 64x64x8 block tile and the 8 rows a thread owns.
#include <vector>

#include "common/testing.h"
#include "phase1_matmul/tests/grading.h"

TEST_CASE("matmul_blocktiling_1d computes alpha A B + beta C for every shape", "[p1][1.04][gpu]") {
  const MatmulCase c = GENERATE(Catch::Generators::from_range(standard_matmul_cases()));
  check_matmul("matmul_blocktiling_1d", matmul_blocktiling_1d, c);
}

TEST_CASE("matmul_blocktiling_1d handles shapes one element around its 64x64x8 tile", "[p1][1.04][gpu]") {
  const MatmulCase c = GENERATE(Catch::Generators::values<MatmulCase>({
      {64, 64, 8, 1.0f, 0.0f},
      {65, 64, 8, 1.0f, 0.0f},
      {64, 65, 8, 1.0f, 0.0f},
      {64, 64, 9, 1.0f, 0.0f},
      {63, 63, 7, 1.0f, 1.0f},
      {9, 129, 15, 1.0f, -1.0f},
  }));
  check_matmul("matmul_blocktiling_1d", matmul_blocktiling_1d, c);
}
