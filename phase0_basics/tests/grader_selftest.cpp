// SPDX-License-Identifier: MIT
// The phase 0 grader self-test: the bugs that 0.08's grader (block_reduce_grading) cannot see, a race
// inside the tree's last warp and a masked read past n. Their sums are right, so the plain grader
// passes them (checked here); CTest's gpu.p0.sanitizer-* tests run this binary, one case at a time,
// under the grade's racecheck and exact-input memcheck runs and pass only when those catch the bug.
#include <cstddef>
#include <vector>

#include "common/data.h"
#include "common/testing.h"
#include "phase0_basics/tests/block_reduce_grading.h"
#include "phase0_basics/tests/wrong_kernels.h"

namespace {
// 1, 31, 33 (around a warp), a prime, and past one stride of the grid (64 blocks of 256 threads).
const std::vector<std::size_t> kSizes = {1, 31, 33, 4099, 16411};
}  // namespace

TEST_CASE("planted race: the last warp without __syncwarp passes the plain grader", "[gpu][grader][p0][planted-race]") {
  for (const std::size_t n : kSizes)
    check_reduce(planted_reduce_no_syncwarp, "planted_reduce_no_syncwarp", wb::random_dyadic_floats(n, 7), true);
}

TEST_CASE("planted over-read: a masked read past n passes the plain grader", "[gpu][grader][p0][planted-overread]") {
  for (const std::size_t n : kSizes)
    check_reduce(planted_reduce_reads_past_n_masked, "planted_reduce_reads_past_n_masked",
                 wb::random_dyadic_floats(n, 7), true);
}
