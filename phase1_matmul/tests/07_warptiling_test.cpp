// SPDX-License-Identifier: MIT
// Graded test for 1.07 warptiling: the shared SGEMM grader on the standard shapes, plus shapes that
// take the whole-tile fast path (with beta != 0, so its float4 read of C is checked) and shapes whose
// only tail lies in one dimension (the guarded kernel must handle each alone), and K = 0 with whole M and
// N tiles (a fast path that loads its first K tile unconditionally would read a zero-size A: memcheck).
#include <vector>

#include "common/testing.h"
#include "phase1_matmul/tests/grading.h"

TEST_CASE("matmul_warptiling computes alpha A B + beta C for every shape", "[p1][1.07][gpu]") {
  const MatmulCase c = GENERATE(Catch::Generators::from_range(standard_matmul_cases()));
  check_matmul("matmul_warptiling", matmul_warptiling, c);
}

namespace {

// M and N multiples of 256 and K of 64 are whole tiles for any power-of-two tiling up to 256 x 256 x 64.
std::vector<MatmulCase> tile_edge_cases() {
  return {
      {256, 256, 64, 0.5f, 2.0f},   // whole tiles: the fast path, reading C
      {512, 256, 128, 1.0f, 0.0f},  // whole tiles, beta = 0 (C holds NaN)
      {256, 256, 100, 1.0f, 0.0f},  // a tail in K only
      {256, 250, 64, -1.0f, 0.5f},  // a tail in N only
      {250, 256, 64, 1.0f, 1.0f},   // a tail in M only
      {256, 256, 0, 1.0f, 0.5f},    // K = 0 with whole M and N tiles: C = beta C, and A and B are never read
  };
}

}  // namespace

TEST_CASE("matmul_warptiling handles whole tiles with beta != 0 and a tail in only one of M, N, K", "[p1][1.07][gpu]") {
  const MatmulCase c = GENERATE(Catch::Generators::from_range(tile_edge_cases()));
  check_matmul("matmul_warptiling", matmul_warptiling, c);
}
