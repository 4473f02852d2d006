// SPDX-License-Identifier: MIT
// Graded test for 1.07 warptiling: the shared SGEMM grader on the standard shapes, plus shapes that
// take the whole-tile fast path (with beta != 0, so its float4 read of C is checked) and shapes whose
// only tail lies in one dimension (the guarded kernel must handle each alone), K = 0 with whole M and
// N tiles (a fast path that loads its first K tile unconditionally would read a zero-size A: memcheck),
// more than 8 tile rows but not a multiple of 8 (a last group of tile rows shorter than the others, on
// both kernels), and whole tiles at A + 1, B + 1 or C + 1 (only the address keeps float4 off them).
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
      // 9 tile rows of 128: the grouped order's last group holds 1 tile row, not 8, after a full group,
      // so its row count must subtract the rows before it (the other shapes have 1-8 or 32 tile rows).
      {1025, 256, 8, 1.0f, 0.0f},  // the guarded kernel (M is no multiple of the tile)
      {1152, 256, 8, 1.0f, 0.5f},  // the fast kernel (whole tiles)
  };
}

// Whole 128 x 128 x 8 tiles at addresses one float past 16 bytes: the shape alone would take the fast
// kernel, whose float4 accesses fault there ("misaligned address"), so the launcher must check each
// pointer and send these to the guarded one.
std::vector<MatmulCase> misaligned_cases() {
  return {
      {128, 128, 8, 1.0f, 0.0f, 1, 0, 0},   // A + 1
      {128, 256, 16, 2.0f, 0.0f, 0, 1, 0},  // B + 1
      {256, 128, 8, 1.0f, -1.0f, 0, 0, 1},  // C + 1, beta != 0: C is read and written
  };
}

}  // namespace

TEST_CASE("matmul_warptiling handles whole tiles with beta != 0, a tail in only one of M, N, K and a short last group",
          "[p1][1.07][gpu]") {
  const MatmulCase c = GENERATE(Catch::Generators::from_range(tile_edge_cases()));
  check_matmul("matmul_warptiling", matmul_warptiling, c);
}

TEST_CASE("matmul_warptiling takes the guarded kernel for whole tiles at misaligned addresses", "[p1][1.07][gpu]") {
  const MatmulCase c = GENERATE(Catch::Generators::from_range(misaligned_cases()));
  check_matmul("matmul_warptiling", matmul_warptiling, c);
}
