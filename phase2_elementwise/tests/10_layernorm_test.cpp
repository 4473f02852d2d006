// SPDX-License-Identifier: MIT
// Graded tests for 2.10 layernorm: rows 0, 1, 3 and 1000 against row lengths from 1 to 32768 (a warp
// and its neighbours, float4 tails, rows that break 16-byte alignment), longer rows, every pointer 4
// to 12 bytes past a 16-byte boundary, three eps values, one large matrix. Every row kind in every
// long enough shape: noise, an offset of 3, the large mean (1e4 + noise), a variance below eps, a
// constant row (y = beta exactly, rstd = 1 / sqrt(eps)). y, mean and rstd start poisoned between
// guard canaries; inputs sit between NaN canaries. The bounds and their derivation: harness/reference.cpp
// (layernorm_row_bound); the grader: tests/rowwise_grading.cpp (grade_layernorm).
#include <cstddef>

#include "common/testing.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/tests/rowwise_grading.h"

namespace {

constexpr p2::LayernormLauncher kLaunch = layernorm_forward;
constexpr const char* kName = "layernorm_forward";

}  // namespace

TEST_CASE("layernorm_forward normalizes 0, 1, 3 and 1000 rows of every length from 1 to 32768", "[p2][2.10][gpu]") {
  const p2::LayernormCase shape = GENERATE(Catch::Generators::from_range(p2::layernorm_shapes()));
  p2::check_layernorm(kName, kLaunch, shape);
}

TEST_CASE("layernorm_forward keeps every kind of row right: a mean of 1e4, a variance below eps, constant rows",
          "[p2][2.10][gpu]") {
  // Ten rows: each of the five kinds twice (the constant rows hold 0.75 and -3).
  const int cols = GENERATE(1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 1024, 4097, 32768);
  p2::check_layernorm(kName, kLaunch, p2::LayernormCase{10, cols});
}

TEST_CASE("layernorm_forward handles rows longer than 32768 and the edges of power-of-two row lengths",
          "[p2][2.10][gpu]") {
  // Every power of two from 128 to 32768, one more and (where it matters) one less; then 40000
  // (float4s), 32771 and 65537 (no multiple of 4).
  const p2::LayernormCase shape = GENERATE(
      p2::LayernormCase{5, 128}, p2::LayernormCase{5, 129}, p2::LayernormCase{5, 511}, p2::LayernormCase{5, 512},
      p2::LayernormCase{5, 513}, p2::LayernormCase{3, 1025}, p2::LayernormCase{3, 2047}, p2::LayernormCase{3, 2048},
      p2::LayernormCase{3, 2049}, p2::LayernormCase{3, 8192}, p2::LayernormCase{3, 8193}, p2::LayernormCase{2, 16384},
      p2::LayernormCase{2, 16385}, p2::LayernormCase{2, 32769}, p2::LayernormCase{2, 32771},
      p2::LayernormCase{3, 40000}, p2::LayernormCase{2, 65537});
  p2::check_layernorm(kName, kLaunch, shape);
}

TEST_CASE("layernorm_forward reads and writes through pointers that are not 16-byte aligned", "[p2][2.10][gpu]") {
  // x, gamma, beta and y 1, 2 or 3 floats past a 16-byte boundary, on rows whose length is a multiple
  // of 4 (a float4 path would be misaligned) and on rows of 33.
  const int misalign = GENERATE(1, 2, 3);
  const int cols = GENERATE(33, 256, 1024, 4096, 40000);
  p2::check_layernorm(kName, kLaunch, p2::LayernormCase{7, cols, 1e-5f, static_cast<std::size_t>(misalign)});
}

TEST_CASE("layernorm_forward adds the eps it is given: rstd = 1 / sqrt(eps) on constant rows", "[p2][2.10][gpu]") {
  const float eps = GENERATE(1e-3f, 1e-6f, 1e-12f);
  const int cols = GENERATE(1, 33, 1024, 4096);
  p2::check_layernorm(kName, kLaunch, p2::LayernormCase{10, cols, eps});
}

TEST_CASE("layernorm_forward handles a large matrix of 16384 rows of 4096", "[p2][2.10][gpu]") {
  const p2::LayernormCase shape =
      wb::test::sanitize_mode() ? p2::LayernormCase{64, 4096} : p2::LayernormCase{16384, 4096};
  p2::check_layernorm(kName, kLaunch, shape);
}
