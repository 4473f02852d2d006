// SPDX-License-Identifier: MIT
// Graded tests for 0.08 block_reduce: exactly summable inputs (one lost or doubled element shows),
// random, negative and constant inputs, a poisoned and guarded one-float result, a guarded input
// (reading past n adds a NaN canary), and two calls in a row (each must start from 0).
#include <string>
#include <vector>

#include "common/testing.h"
#include "phase0_basics/basics.cuh"
#include "phase0_basics/tests/block_reduce_grading.h"

namespace {

// 0 (no launch, but *result = 0) and 1; around a warp and a block (the tree and the last block's
// empty slots); a prime; past the grid cap (132 SMs * 8 blocks * 256 threads = 270K), so the
// grid-stride loop must run; 64M, several hundred elements per thread.
std::vector<std::size_t> reduce_sizes() {
  return wb::test::sizes(
      {0, 1, 2, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 100003, (std::size_t(1) << 24) + 7, std::size_t(1) << 26});
}

}  // namespace

TEST_CASE("reduce_sum_atomic sums exactly summable inputs exactly, for any n", "[p0][0.08][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(reduce_sizes()));
  const std::uint64_t seed = wb::test::seed();
  INFO("reduce_sum_atomic with n = " << n << ", seed " << seed << " (replay with WB_SEED=" << seed << ")");
  // Multiples of 1/256 with random signs: every partial sum a correct kernel forms (a thread's, a
  // block's, the running total of the atomics) wanders like a random walk, about 0.58 * sqrt(m) after
  // m terms (4700 at 2^26), far below 2^16, where float still holds every 1/256 step. So every order
  // of adds is exact, and the test can demand the exact sum: one lost or doubled element shows.
  check_reduce(reduce_sum_atomic, "reduce_sum_atomic on multiples of 1/256", wb::random_dyadic_floats(n, seed), true);
}

TEST_CASE("reduce_sum_atomic sums random floats within the rounding bound of any summation order", "[p0][0.08][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(reduce_sizes()));
  const std::uint64_t seed = wb::test::seed();
  INFO("reduce_sum_atomic with n = " << n << ", seed " << seed << " (replay with WB_SEED=" << seed << ")");
  // Atomics add the blocks' sums in a different order every run: the result may differ from the
  // sequential sum by rounding, at most (n - 1) * 2^-24 * sum|x| (wb::sum_tolerance).
  check_reduce(reduce_sum_atomic, "reduce_sum_atomic on random floats in [-1, 1)", wb::random_floats(n, seed), false);
}

TEST_CASE("reduce_sum_atomic sums all-negative and constant arrays", "[p0][0.08][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(reduce_sizes()));
  const std::uint64_t seed = wb::test::seed();
  INFO("reduce_sum_atomic with n = " << n << ", seed " << seed << " (replay with WB_SEED=" << seed << ")");
  // All terms of one sign: no cancellation, so sum|x| = |sum| and the bound is relative.
  check_reduce(reduce_sum_atomic, "reduce_sum_atomic on random floats in [-1, 0)",
               wb::random_floats(n, seed, -1.0f, 0.0f), false);
  // Every partial sum of 0.5s is a multiple of 0.5 below 2^23 up to n = 2^24: exact in any order.
  const bool exact = n <= (std::size_t(1) << 24);
  check_reduce(reduce_sum_atomic, "reduce_sum_atomic on n copies of 0.5", std::vector<float>(n, 0.5f), exact);
}

TEST_CASE("reduce_sum_atomic starts from zero on every call", "[p0][0.08][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(wb::test::sizes({1, 1000, 100003})));
  const std::uint64_t seed = wb::test::seed();
  INFO("reduce_sum_atomic called twice in a row with n = " << n << ", seed " << seed << " (replay with WB_SEED=" << seed
                                                           << ")");
  check_reduce(reduce_sum_atomic, "reduce_sum_atomic, second call", wb::random_dyadic_floats(n, seed), true, 2);
}
