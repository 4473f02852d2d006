// SPDX-License-Identifier: MIT
// Host tests of phase 3's references: the pass plan (reduction.cuh's for_each_reduce_pass, which
// passes.h launches) and the workspace bound that holds for every rung's plan, judge_sum names each
// kind of wrong sum the way the graded tests promise, and judge_scan (3.11) each kind of wrong scan.
#include "phase3_reduction/harness/reference.h"

#include <cstddef>
#include <cstdint>
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
  CHECK(p3::judge_sum(exact, static_cast<float>(p3::reference_sum(exact)), 0.0).empty());
  CHECK(p3::float_sum_tolerance(exact, true) == 0.0);
  const std::vector<float> mixed = wb::random_floats(10000, 7);
  const double tol = p3::float_sum_tolerance(mixed, false);
  CHECK(tol == wb::sum_tolerance(mixed.size(), wb::sum_abs(mixed)).abs);
  // Any order of float additions lands within (n-1) u sum|x|: a sequential float sum does.
  float sequential = 0;
  for (float v : mixed) sequential += v;
  CHECK(p3::judge_sum(mixed, sequential, tol).empty());
  const std::vector<int> ints = wb::random_ints(1000, 3, -7, 7);
  CHECK(p3::judge_sum(ints, static_cast<int>(p3::reference_sum(ints))).empty());
  CHECK(p3::judge_sum(std::vector<float>{}, 0.0f, 0.0).empty());
}

TEST_CASE("judge_sum names an untouched output, a NaN, a read past n, a missed tail and a doubled sum", "[host][p3]") {
  const std::vector<float> x = wb::random_dyadic_floats(1025, 11);
  const float sum = static_cast<float>(p3::reference_sum(x));
  CHECK(has(p3::judge_sum(x, wb::poison_value<float>(), 0.0), "Output untouched"));
  CHECK(has(p3::judge_sum(x, std::nanf(""), 0.0), "is NaN"));
  CHECK(has(p3::judge_sum(x, std::nanf(""), 0.0), "past the end"));  // the grader self-test relies on it
  CHECK(has(p3::judge_sum(x, sum + 2 * p3::kFloatGuardValue, 0.0), "past the end of the input"));
  CHECK(has(p3::judge_sum(x, sum - x[1024], 0.0), "missed the last 1 element"));
  const float without_tail = static_cast<float>(p3::reference_sum(std::vector<float>(x.begin(), x.begin() + 1024)));
  CHECK(has(p3::judge_sum(x, without_tail, 0.0), "missed the last 1 element"));
  CHECK(has(p3::judge_sum(x, 2 * sum, 0.0), "counted twice"));
  CHECK(has(p3::judge_sum(x, sum == 0 ? 1.0f : 0.0f, 0.0), "Wrong sum"));
  CHECK(has(p3::judge_sum(x, sum + 0.5f, 0.0), "Wrong sum"));
  const std::vector<int> ints = wb::random_ints(1025, 5, 1, 7);
  const int isum = static_cast<int>(p3::reference_sum(ints));
  CHECK(has(p3::judge_sum(ints, wb::poison_value<int>()), "Output untouched"));
  CHECK(has(p3::judge_sum(ints, isum + 3 * p3::kIntGuardValue), "past the end of the input"));
  CHECK(has(p3::judge_sum(ints, isum - ints[1024] - ints[1023]), "missed the last 2 element"));
  CHECK(has(p3::judge_sum(ints, isum + 1), "Wrong sum"));
}

namespace {

// A scan of x computed the way a GPU with tiles of `tile` elements computes it, with the bug named:
// "" (none), "exclusive", "no carry" (each tile scanned alone), "aggregate" (each tile adds only its
// predecessor's own sum, as if it were the inclusive prefix), "drop tail" (the last partial tile never
// written), "one wrong" (one element inside a tile off by one).
std::vector<int> gpu_like_scan(const std::vector<int>& x, std::size_t tile, const std::string& bug) {
  const std::size_t n = x.size();
  std::vector<int> out(n, wb::poison_value<int>());
  std::uint32_t carry = 0, previous_tile = 0;
  for (std::size_t start = 0; start < n; start += tile) {
    const std::size_t end = start + tile < n ? start + tile : n;
    if (bug == "drop tail" && end - start < tile) break;
    std::uint32_t prefix = carry;
    if (bug == "no carry") prefix = 0;
    if (bug == "aggregate") prefix = start == 0 ? 0 : previous_tile;
    std::uint32_t local = 0;
    for (std::size_t i = start; i < end; ++i) {
      const std::uint32_t before = local;
      local += static_cast<std::uint32_t>(x[i]);
      out[i] = static_cast<int>(prefix + (bug == "exclusive" ? before : local));
    }
    carry += local;
    previous_tile = local;
  }
  if (bug == "one wrong" && n > 100) out[100] += 1;
  return out;
}

}  // namespace

TEST_CASE("reference_scan wraps modulo 2^32 like uint32 arithmetic", "[host][p3]") {
  CHECK(p3::reference_scan({}).empty());
  CHECK(p3::reference_scan({1, 1, 1}) == std::vector<int>{1, 2, 3});
  const int big = 2147483647;  // 2^31 - 1
  const std::vector<int> wrapped = p3::reference_scan({big, 1, big, 2});
  CHECK(wrapped[1] == -2147483647 - 1);  // 2^31 wraps to -2^31
  CHECK(wrapped[2] == -1);
  CHECK(wrapped[3] == 1);
}

TEST_CASE("judge_scan accepts right scans: ints bit for bit, floats within i u sum|x[0..i]|", "[host][p3]") {
  const std::vector<int> ints = wb::random_ints(10000, 3, 1 << 30, 2147483647);  // wraps every few elements
  CHECK(p3::judge_scan(ints, p3::reference_scan(ints)).empty());
  CHECK(p3::judge_scan(ints, gpu_like_scan(ints, 512, "")).empty());
  CHECK(p3::judge_scan(std::vector<int>{}, std::vector<int>{}).empty());
  // A right answer that happens to have the poison's bits is right, not untouched.
  const std::vector<int> to_poison = {wb::poison_value<int>(), 0};
  CHECK(p3::judge_scan(to_poison, p3::reference_scan(to_poison)).empty());
  // A sequential float scan and a blocked one (tiles of 4096, each tile's sum added to a running carry)
  // both stay within the bound.
  const std::vector<float> x = wb::random_floats(100000, 5);
  std::vector<float> sequential(x.size()), blocked(x.size());
  float run = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sequential[i] = run += x[i];
  float carry = 0;
  for (std::size_t start = 0; start < x.size(); start += 4096) {
    float local = 0;
    for (std::size_t i = start; i < x.size() && i < start + 4096; ++i) blocked[i] = carry + (local += x[i]);
    carry += local;
  }
  CHECK(p3::judge_scan(x, sequential, false).empty());
  CHECK(p3::judge_scan(x, blocked, false).empty());
  CHECK(p3::float_prefix_tolerance(9, 2.0) == wb::sum_tolerance(10, 2.0).abs);
  // Small integers: every association is exact, so exact mode accepts it.
  std::vector<float> small(5000), small_scan(5000);
  float s = 0;
  for (std::size_t i = 0; i < small.size(); ++i) small_scan[i] = s += small[i] = static_cast<float>(i % 17) - 8.0f;
  CHECK(p3::judge_scan(small, small_scan, true).empty());
}

TEST_CASE("judge_scan names an untouched output, an exclusive scan, a dropped tail, a wrong carry and a wrong tile",
          "[host][p3]") {
  const std::vector<int> ones(4097, 1);
  const std::vector<int> ints = wb::random_ints(4097, 9, -1000, 1000);
  CHECK(has(p3::judge_scan(ones, std::vector<int>(4097, wb::poison_value<int>())), "Output untouched"));
  CHECK(has(p3::judge_scan(ones, gpu_like_scan(ones, 512, "exclusive")), "Exclusive scan"));
  CHECK(has(p3::judge_scan(ints, gpu_like_scan(ints, 512, "exclusive")), "Exclusive scan"));
  const std::string tail = p3::judge_scan(ones, gpu_like_scan(ones, 512, "drop tail"));
  CHECK(has(tail, "The last 1 elements were never written"));
  CHECK(has(tail, "partial tile"));
  const std::string no_carry = p3::judge_scan(ints, gpu_like_scan(ints, 512, "no carry"));
  CHECK(has(no_carry, "Wrong carry between tiles"));
  CHECK(has(no_carry, "right up to index 511"));
  CHECK(has(no_carry, "multiples of 512"));
  const std::string aggregate = p3::judge_scan(ones, gpu_like_scan(ones, 512, "aggregate"));
  CHECK(has(aggregate, "Wrong carry between tiles"));
  CHECK(has(aggregate, "right up to index 1023"));  // tiles 0 and 1 are right
  CHECK(has(aggregate, "inclusive prefix"));
  // Two tiles of 4096 are right even so (the first tile's aggregate is its inclusive prefix).
  CHECK(p3::judge_scan(ints, gpu_like_scan(ints, 4096, "aggregate")).empty());
  const std::vector<int> four_tiles = wb::random_ints(3 * 4096 + 1, 9, -1000, 1000);  // two steps: 8192, 12288
  CHECK(has(p3::judge_scan(four_tiles, gpu_like_scan(four_tiles, 4096, "aggregate")), "multiples of 4096"));
  CHECK(has(p3::judge_scan(ints, gpu_like_scan(ints, 512, "one wrong")), "Wrong values inside the tiles"));
  std::vector<int> holes = p3::reference_scan(ints);
  holes[7] = wb::poison_value<int>();
  CHECK(has(p3::judge_scan(ints, holes), "1 elements were never written: still poison, the first at index 7"));
  const std::string listed = p3::judge_scan(ones, gpu_like_scan(ones, 512, "exclusive"));
  CHECK(has(listed, "4097 of 4097 elements wrong"));
  CHECK(has(listed, "out[0] = 0, expected 1"));
  // Floats: exclusive, NaN, and a wrong carry larger than the bound.
  const std::vector<float> x = wb::random_floats(5000, 13);
  std::vector<float> scan(x.size()), exclusive(x.size());
  float run = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    exclusive[i] = run;
    scan[i] = run += x[i];
  }
  CHECK(p3::judge_scan(x, scan, false).empty());
  CHECK(has(p3::judge_scan(x, exclusive, false), "Exclusive scan"));
  std::vector<float> nan = scan;
  nan[4000] = std::nanf("");
  CHECK(has(p3::judge_scan(x, nan, false), "(NaN) in 1 elements"));
  std::vector<float> shifted = scan;
  for (std::size_t i = 2048; i < x.size(); ++i) shifted[i] += 100.0f;
  CHECK(has(p3::judge_scan(x, shifted, false), "Wrong carry between tiles"));
  CHECK(has(p3::judge_scan(x, std::vector<float>(x.size(), wb::poison_value<float>()), false), "Output untouched"));
}
