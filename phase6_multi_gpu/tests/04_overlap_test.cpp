// SPDX-License-Identifier: MIT
// Graded tests for 6.04 overlap (tests/overlap_grading.h): virtual groups of 2 to 8 ranks on one GPU, then
// real groups of 2 up to every visible GPU; one layer of one float, five layers with an empty one and
// tails, twelve layers of 1 to 70000 floats; buckets of one float, 4096 floats, the file's own choice and
// everything at once; 70 one-float buckets, more than the 64 events a rank has. Every gradient of every
// rank compared exactly with the sum (exact-sum inputs), gradients poisoned per rank, guards checked; every
// layer held in one run (a bucket reduced before its layers finished is caught every time), every
// all-reduce held in another (a step that ends before its last all-reduce is caught every time). What this
// cannot see: an ordering bug these holds do not expose, and the speed (the lesson measures the overlap on
// real GPUs).
#include "common/testing.h"
#include "phase6_multi_gpu/multi_gpu.cuh"
#include "phase6_multi_gpu/tests/overlap_grading.h"

TEST_CASE("overlap_step sums every layer's gradient over the ranks, any bucket size, 2 to 8 ranks", "[p6][6.04][gpu]") {
  const p6::test::OverlapCase c = GENERATE(Catch::Generators::from_range(p6::test::overlap_cases()));
  p6::test::check_overlap("overlap_step", overlap_step, c);
}

TEST_CASE("overlap_step on a single rank leaves its own gradients", "[p6][6.04][gpu]") {
  p6::RankGroup group = p6::RankGroup::virtual_ranks(1, 0);
  const std::string verdict =
      p6::test::grade_overlap("overlap_step", overlap_step, group, {3, 0, 4099, 33, 1}, 0, wb::test::seed());
  if (!verdict.empty()) FAIL(verdict);
}
