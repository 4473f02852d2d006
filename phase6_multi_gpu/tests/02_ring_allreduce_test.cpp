// SPDX-License-Identifier: MIT
// Graded tests for 6.02 ring_allreduce (tests/grading.h): virtual groups of 2 to 8 ranks on one GPU, then
// real groups of 2 up to every visible GPU; counts 0, 1, 3, 5, 31, 33, 1000, 4099, 65537 and 1M + 3 (not
// divisible by the rank count or by 4), out of place and in place, and 5 and 4099 with every buffer one
// float past 16 bytes (any float offset is allowed); exact-sum inputs whose base-8 digits
// tell whose contribution was lost or doubled; outputs poisoned per rank; one rank's inputs late and
// another rank held after the barrier, so a missing wait reads stale data every time; guards checked.
// What this cannot see: a race that the hold does not expose (two steps of the same rank on different
// streams), and any race inside one GPU's kernel (racecheck sees shared memory only, never across GPUs).
#include "common/testing.h"
#include "phase6_multi_gpu/multi_gpu.cuh"
#include "phase6_multi_gpu/tests/grading.h"

TEST_CASE("ring_allreduce sums every rank's buffer on every rank, for any count and 2 to 8 ranks", "[p6][6.02][gpu]") {
  const p6::test::AllreduceCase c = GENERATE(Catch::Generators::from_range(p6::test::allreduce_cases()));
  p6::test::check_allreduce("ring_allreduce", ring_allreduce, c);
}

TEST_CASE("ring_allreduce on a single rank copies its input", "[p6][6.02][gpu]") {
  p6::RankGroup group = p6::RankGroup::virtual_ranks(1, 0);
  for (std::size_t count : {std::size_t(0), std::size_t(5), std::size_t(4099)}) {
    const std::string verdict =
        p6::test::grade_allreduce("ring_allreduce", ring_allreduce, group, count, false, wb::test::seed());
    if (!verdict.empty()) FAIL(verdict);
  }
}
