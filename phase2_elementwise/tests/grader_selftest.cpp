// SPDX-License-Identifier: MIT
// The phase 2 grader self-test. LayerNorm (2.10): every bug its grader claims to catch (the sample
// variance, E[x^2] - E[x]^2 on a large mean, gamma and beta swapped, a skipped tail, mean and rstd
// never stored) fails with the sentence that names it, while a correct kernel passes. The bugs that
// the RMSNorm and LayerNorm graders cannot see, a race inside a tree's last warp and a masked read
// past the last row: their outputs are right, so the plain grader passes them (checked here); CTest's
// gpu.p2.sanitizer-* tests run this binary, one case at a time, under the grade's racecheck and
// exact-input memcheck runs and pass only when those catch the bug.
#include <string>
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

namespace {

struct LayernormPlant {
  const char* what;
  p2::LayernormLauncher launch;
  p2::LayernormCase shape;
  const char* diagnosis;  // "" = the grader must accept it
};

// Shapes the two sanitizer-only LayerNorm bugs must pass: a tail in every row, the last row's tail at
// the end of x, all five row kinds.
const std::vector<p2::LayernormCase> kLayernormShapes = {{3, 1}, {7, 31}, {3, 33}, {10, 257}, {7, 1000}};

void check_layernorm_passes(const char* name, p2::LayernormLauncher launch) {
  for (const p2::LayernormCase& shape : kLayernormShapes) {
    INFO(name << " on " << shape.rows << " x " << shape.cols);
    const std::string verdict = p2::grade_layernorm(name, launch, shape, 5);
    INFO("grader said: " << verdict);
    CHECK(verdict.empty());
  }
}

}  // namespace

TEST_CASE("the LayerNorm grader accepts a correct kernel and names every planted bug", "[gpu][grader][p2]") {
  // Ten rows hold every kind twice (row 2 and 7 have a mean of 1e4, rows 4 and 9 are constant).
  const std::vector<LayernormPlant> plants = {
      {"a correct kernel", planted_layernorm_correct, {10, 33}, ""},
      {"a correct kernel, one column", planted_layernorm_correct, {10, 1}, ""},
      {"a correct kernel, 4097 columns", planted_layernorm_correct, {10, 4097}, ""},
      {"a correct kernel, x, gamma, beta and y misaligned", planted_layernorm_correct, {7, 1024, 1e-5f, 1}, ""},
      {"a correct kernel, no rows", planted_layernorm_correct, {0, 33}, ""},
      {"the sample variance, M2 / (cols - 1)", planted_layernorm_unbiased, {10, 33}, "population variance"},
      {"the sample variance, 257 columns", planted_layernorm_unbiased, {10, 257}, "population variance"},
      {"E[x^2] - E[x]^2 in float", planted_layernorm_naive_variance, {10, 33}, "cancels"},
      {"E[x^2] - E[x]^2 in float, 256 columns", planted_layernorm_naive_variance, {10, 256}, "cancels"},
      {"gamma and beta swapped", planted_layernorm_swaps_gamma_beta, {10, 33}, "swapped"},
      {"gamma and beta swapped, 1000 columns", planted_layernorm_swaps_gamma_beta, {3, 1000}, "swapped"},
      {"the last partial pack skipped", planted_layernorm_skips_tail, {10, 33}, "never written"},
      {"the last partial pack skipped, one row", planted_layernorm_skips_tail, {1, 1023}, "never written"},
      {"mean and rstd never stored", planted_layernorm_no_stats, {10, 33}, "Output untouched"},
      {"mean and rstd never stored, 4096 columns", planted_layernorm_no_stats, {3, 4096}, "Output untouched"},
  };
  for (const LayernormPlant& p : plants) {
    INFO("planted: " << p.what << " (" << p.shape.rows << " x " << p.shape.cols << ")");
    const std::string verdict = p2::grade_layernorm("planted", p.launch, p.shape, wb::test::seed());
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

TEST_CASE("planted race: LayerNorm's row sum ends in one warp without __syncwarp, passes the plain grader",
          "[gpu][grader][p2][planted-race-layernorm]") {
  check_layernorm_passes("planted_layernorm_no_syncwarp", planted_layernorm_no_syncwarp);
}

TEST_CASE("planted over-read: LayerNorm reads one float past each row, value dropped, passes the plain grader",
          "[gpu][grader][p2][planted-overread-layernorm]") {
  check_layernorm_passes("planted_layernorm_reads_past_row_masked", planted_layernorm_reads_past_row_masked);
}
