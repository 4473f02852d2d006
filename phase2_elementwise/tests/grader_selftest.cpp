// SPDX-License-Identifier: MIT
// The phase 2 grader self-test: the bugs that the RMSNorm grader (rowwise_grading) cannot see, a
// race inside the tree's last warp and a masked read past the last row. Their outputs are right, so
// the plain grader passes them (checked here); CTest's gpu.p2.sanitizer-* tests run this binary, one
// case at a time, under the grade's racecheck and exact-input memcheck runs and pass only when those
// catch the bug.
#include <vector>

#include "common/testing.h"
#include "phase2_elementwise/tests/rowwise_grading.h"
#include "phase2_elementwise/tests/wrong_kernels.h"

namespace {
// Rows of 1, 31, 33 and 1000 (a tail of every block size), 3 and 7 rows (the last row's tail is the
// end of the input).
const std::vector<p2::RowShape> kShapes = {{3, 1}, {7, 31}, {3, 33}, {7, 1000}};

void check_passes(const char* name, p2::RmsnormLauncher launch) {
  for (const p2::RowShape& shape : kShapes) {
    INFO(name << " on " << shape.rows << " x " << shape.cols);
    p2::check_rmsnorm(name, launch, p2::rmsnorm_input(shape.rows, shape.cols, 5), shape.rows, shape.cols, 1e-5f, 5);
  }
}
}  // namespace

TEST_CASE("planted race: RMSNorm's last warp without __syncwarp passes the plain grader",
          "[gpu][grader][p2][planted-race]") {
  check_passes("planted_rmsnorm_no_syncwarp", planted_rmsnorm_no_syncwarp);
}

TEST_CASE("planted over-read: RMSNorm loads past the row, values dropped, pass the plain grader",
          "[gpu][grader][p2][planted-overread]") {
  check_passes("planted_rmsnorm_reads_past_row_masked", planted_rmsnorm_reads_past_row_masked);
}
