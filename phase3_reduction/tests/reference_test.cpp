// SPDX-License-Identifier: MIT
// Host tests of phase 3's references: the pass plan (reduction.cuh's for_each_reduce_pass, which
// passes.h launches) and the workspace bound that holds for every rung's plan, and judge_sum names
// each kind of wrong sum the way the graded tests promise.
#include "phase3_reduction/reference.h"

#include <cstddef>
#include <string>
#include <vector>

#include "common/data.h"
#include "common/testing.h"
#include "common/verify.h"
#include "phase3_reduction/reduction.cuh"

namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("the pass plan goes 256M -> 1M -> 4096 -> 16 -> 1 at 256 elements a block", "[host][p3]") {
  std::vector<ReducePass> passes;
  for_each_reduce_pass(std::size_t(1) << 28, 256, 0, [&passes](const ReducePass& p) { passes.push_back(p); });
  REQUIRE(passes.size() == 4);
  CHECK(passes[0].count == std::size_t(1) << 28);
  CHECK(passes[0].blocks == std::size_t(1) << 20);
  CHECK(passes[0].offset == 0);  // each pass's partial sums follow the previous pass's in the workspace
  CHECK(passes[1].count == std::size_t(1) << 20);
  CHECK(passes[1].offset == std::size_t(1) << 20);
  CHECK(passes[2].count == 4096);
  CHECK(passes[2].offset == (std::size_t(1) << 20) + 4096);
  CHECK(passes[3].count == 16);
  CHECK(passes[3].blocks == 1);  // the last pass writes the sum
  // A capped grid: 1M elements in at most 1056 blocks of 256, then the 1056 partial sums.
  passes.clear();
  for_each_reduce_pass(std::size_t(1) << 20, 256, 1056, [&passes](const ReducePass& p) { passes.push_back(p); });
  REQUIRE(passes.size() == 3);
  CHECK(passes[0].blocks == 1056);
  CHECK(passes[1].count == 1056);
  CHECK(passes[1].blocks == 5);
  CHECK(passes[1].offset == 1056);
  CHECK(passes[2].count == 5);
  CHECK(passes[2].blocks == 1);
}

TEST_CASE("reduce_workspace_elements covers the partial sums of every pass plan the rungs use", "[host][p3]") {
  for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(129), std::size_t(65537),
                        (std::size_t(1) << 24) + 7, (std::size_t(1) << 28) + 3, (std::size_t(1) << 32) + 5}) {
    for (std::size_t per_block : {128, 256, 512, 1024, 4096, 8192}) {
      for (std::size_t max_blocks : {0, 1056, 16383}) {
        INFO("n = " << n << ", " << per_block << " elements a block, at most " << max_blocks << " blocks");
        CHECK(reduce_plan_workspace(n, per_block, max_blocks) + kFixedWorkspaceElements <=
              reduce_workspace_elements(n));
      }
    }
  }
  // Under 1% of the input for large n: the workspace costs no real memory.
  CHECK(reduce_workspace_elements(std::size_t(1) << 28) < (std::size_t(1) << 28) / 100);
}

TEST_CASE("judge_sum accepts the exact sum and a float sum within its tolerance", "[host][p3]") {
  const std::vector<float> exact = wb::random_dyadic_floats(10000, 7);
  CHECK(judge_sum(exact, static_cast<float>(reference_sum(exact)), 0.0).empty());
  CHECK(float_sum_tolerance(exact, true) == 0.0);
  const std::vector<float> mixed = wb::random_floats(10000, 7);
  const double tol = float_sum_tolerance(mixed, false);
  CHECK(tol == wb::sum_tolerance(mixed.size(), wb::sum_abs(mixed)).abs);
  // Any order of float additions lands within (n-1) u sum|x|: a sequential float sum does.
  float sequential = 0;
  for (float v : mixed) sequential += v;
  CHECK(judge_sum(mixed, sequential, tol).empty());
  const std::vector<int> ints = wb::random_ints(1000, 3, -7, 7);
  CHECK(judge_sum(ints, static_cast<int>(reference_sum(ints))).empty());
  CHECK(judge_sum(std::vector<float>{}, 0.0f, 0.0).empty());
}

TEST_CASE("judge_sum names an untouched output, a NaN, a read past n, a missed tail and a doubled sum", "[host][p3]") {
  const std::vector<float> x = wb::random_dyadic_floats(1025, 11);
  const float sum = static_cast<float>(reference_sum(x));
  CHECK(has(judge_sum(x, wb::poison_value<float>(), 0.0), "Output untouched"));
  CHECK(has(judge_sum(x, std::nanf(""), 0.0), "is NaN"));
  CHECK(has(judge_sum(x, std::nanf(""), 0.0), "past the end"));  // the grader self-test relies on it
  CHECK(has(judge_sum(x, sum + 2 * kFloatGuardValue, 0.0), "past the end of the input"));
  CHECK(has(judge_sum(x, sum - x[1024], 0.0), "missed the last 1 element"));
  const float without_tail = static_cast<float>(reference_sum(std::vector<float>(x.begin(), x.begin() + 1024)));
  CHECK(has(judge_sum(x, without_tail, 0.0), "missed the last 1 element"));
  CHECK(has(judge_sum(x, 2 * sum, 0.0), "counted twice"));
  CHECK(has(judge_sum(x, sum == 0 ? 1.0f : 0.0f, 0.0), "Wrong sum"));
  CHECK(has(judge_sum(x, sum + 0.5f, 0.0), "Wrong sum"));
  const std::vector<int> ints = wb::random_ints(1025, 5, 1, 7);
  const int isum = static_cast<int>(reference_sum(ints));
  CHECK(has(judge_sum(ints, wb::poison_value<int>()), "Output untouched"));
  CHECK(has(judge_sum(ints, isum + 3 * kIntGuardValue), "past the end of the input"));
  CHECK(has(judge_sum(ints, isum - ints[1024] - ints[1023]), "missed the last 2 element"));
  CHECK(has(judge_sum(ints, isum + 1), "Wrong sum"));
}
