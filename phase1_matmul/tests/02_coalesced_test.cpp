// SPDX-License-Identifier: MIT
// Graded test for 1.02 coalesced: the shared SGEMM grader on the standard shapes (tails around 32, K = 0,
// M or N = 0, alpha/beta other than 1/0, beta == 0 with a NaN-poisoned C, one 4096^3 run).
#include "common/testing.h"
#include "phase1_matmul/tests/grading.h"

TEST_CASE("matmul_coalesced computes alpha A B + beta C for every shape", "[p1][1.02][gpu]") {
  const MatmulCase c = GENERATE(Catch::Generators::from_range(standard_matmul_cases()));
  check_matmul("matmul_coalesced", matmul_coalesced, c);
}
