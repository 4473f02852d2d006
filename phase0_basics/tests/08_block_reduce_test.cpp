// SPDX-License-Identifier: MIT
// Graded tests for 0.08 block_reduce: exactly summable inputs (one lost or doubled element shows),
// random, negative and constant inputs, a poisoned and guarded one-float result, a guarded input
// (reading past n adds a NaN canary), and two calls in a row (each must start from 0).
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase0_basics/basics.cuh"

namespace {

// One sentence on the likely cause, read from what *result holds.
std::string diagnose(double expected, float got, std::size_t n, int calls) {
  std::ostringstream out;
  if (wb::same_bits(got, wb::poison_value<float>())) {
    if (n == 0) {
      out << "n = 0: *result still holds the test's poison. The sum of nothing is 0: the launcher must zero "
             "*result (cudaMemsetAsync) even when it launches no kernel.";
    } else {
      out << "*result still holds the test's poison: the launcher must zero it (cudaMemsetAsync) before the "
             "kernel, and thread 0 of each block must atomicAdd the block's sum into it.";
    }
  } else if (std::isnan(got)) {
    out << "*result is NaN: either atomicAdd added onto a result that was never zeroed (the test fills it with "
           "NaN first: zero it with cudaMemsetAsync before the kernel), or the kernel read past in[n-1] (the "
           "input is followed by NaN canaries): the loop condition must be i < n.";
  } else if (got == 0.0f && expected != 0.0) {
    out << "got 0: *result was zeroed, but no block added its sum. Did thread 0 of each block "
           "atomicAdd(result, partial[0]) after the tree loop?";
  } else if (calls > 1 && std::fabs(got - calls * expected) <= 1e-6 * std::fabs(calls * expected) + 1e-30) {
    out << "got " << calls << " times the sum after " << calls
        << " calls: each call added to the last one's result. Zero *result at the start of every call.";
  } else {
    out << "the sum is off by " << (static_cast<double>(got) - expected)
        << ": some elements were skipped or added twice. Check that the grid-stride loop visits every i < n "
           "once (start at the global index, step by gridDim.x * blockDim.x), that the tree loop runs down to "
           "s = 1 with a __syncthreads() after every step, and that only thread 0 calls atomicAdd.";
  }
  return out.str() + "\n";
}

// Sums x on the GPU `calls` times in a row into one poisoned, guarded float and checks the last sum,
// the result's guards, and that x came through unchanged. The input sits in a guarded buffer too,
// so a read past in[n-1] picks up a NaN canary instead of a harmless 0.
void check_reduce(const std::string& what, const std::vector<float>& x, bool exact, int calls = 1) {
  const std::size_t n = x.size();
  double sum = 0;  // exact in double for every input here (at most 2^26 terms of 24-bit floats)
  for (float v : x) sum += v;
  wb::Tolerance tol{0, 0};
  if (!exact) {
    tol = wb::sum_tolerance(n, wb::sum_abs(x));
    tol.abs += wb::kFloatEpsilon * std::fabs(sum);  // the reference itself is rounded to float once
  }

  wb::GuardedDeviceBuffer<float> din(n);
  din.upload(x);
  wb::GuardedDeviceBuffer<float> result(1);  // poisoned, with canaries on both sides
  for (int c = 0; c < calls; ++c) WB_RUN_LAUNCHER(reduce_sum_atomic(din.data(), result.data(), n, nullptr));

  WB_REQUIRE_OK(result.check_guards(), what + ": *result");
  const std::vector<float> got = result.download();
  const wb::CompareReport report = wb::compare(std::vector<float>{static_cast<float>(sum)}, got, tol);
  if (!report.ok()) FAIL(report.describe(what + ": *result") << diagnose(sum, got[0], n, calls));
  WB_REQUIRE_OK(din.check_guards(), what + ": the input's guards");
  WB_REQUIRE_OK(wb::compare(x, din.download(), wb::Tolerance{0, 0}), what + ": the input (must stay unchanged)");
}

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
  check_reduce("reduce_sum_atomic on multiples of 1/256", wb::random_dyadic_floats(n, seed), true);
}

TEST_CASE("reduce_sum_atomic sums random floats within the rounding bound of any summation order", "[p0][0.08][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(reduce_sizes()));
  const std::uint64_t seed = wb::test::seed();
  INFO("reduce_sum_atomic with n = " << n << ", seed " << seed << " (replay with WB_SEED=" << seed << ")");
  // Atomics add the blocks' sums in a different order every run: the result may differ from the
  // sequential sum by rounding, at most (n - 1) * 2^-24 * sum|x| (wb::sum_tolerance).
  check_reduce("reduce_sum_atomic on random floats in [-1, 1)", wb::random_floats(n, seed), false);
}

TEST_CASE("reduce_sum_atomic sums all-negative and constant arrays", "[p0][0.08][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(reduce_sizes()));
  const std::uint64_t seed = wb::test::seed();
  INFO("reduce_sum_atomic with n = " << n << ", seed " << seed << " (replay with WB_SEED=" << seed << ")");
  // All terms of one sign: no cancellation, so sum|x| = |sum| and the bound is relative.
  check_reduce("reduce_sum_atomic on random floats in [-1, 0)", wb::random_floats(n, seed, -1.0f, 0.0f), false);
  // Every partial sum of 0.5s is a multiple of 0.5 below 2^23 up to n = 2^24: exact in any order.
  const bool exact = n <= (std::size_t(1) << 24);
  check_reduce("reduce_sum_atomic on n copies of 0.5", std::vector<float>(n, 0.5f), exact);
}

TEST_CASE("reduce_sum_atomic starts from zero on every call", "[p0][0.08][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(wb::test::sizes({1, 1000, 100003})));
  const std::uint64_t seed = wb::test::seed();
  INFO("reduce_sum_atomic called twice in a row with n = " << n << ", seed " << seed << " (replay with WB_SEED=" << seed
                                                           << ")");
  check_reduce("reduce_sum_atomic, second call", wb::random_dyadic_floats(n, seed), true, 2);
}
