// SPDX-License-Identifier: MIT
// A grader that passes a wrong kernel is the worst bug of a course: plant each bug the phase 3
// grader claims to catch (reading past n, missing the tail, a missing __syncthreads, a dropped last
// warp step, an add during load that counts elements twice, writing into the input) and check that
// it fails with the sentence that names it, while a correct kernel passes.
#include <string>
#include <vector>

#include "common/testing.h"
#include "phase3_reduction/tests/grading.h"
#include "phase3_reduction/tests/wrong_kernels.h"

namespace {

struct Plant {
  const char* what;
  ReduceLauncher<float> launch;
  std::size_t n;
  SumInput input;
  const char* diagnosis;  // "" = the grader must accept it
};

}  // namespace

TEST_CASE("the phase 3 grader accepts a correct reduction and names every planted bug", "[gpu][grader][p3]") {
  const std::size_t big = (std::size_t(1) << 24) + 7;
  const std::vector<Plant> plants = {
      {"a correct kernel, exact inputs", planted_correct, big, SumInput::Exact, ""},
      {"a correct kernel, mixed inputs", planted_correct, 1025, SumInput::Mixed, ""},
      {"a correct kernel, constant inputs", planted_correct, big, SumInput::Constant, ""},
      {"a correct kernel, n = 0", planted_correct, 0, SumInput::Exact, ""},
      // Two passes: the second reads past the 5 partial sums into the workspace's NaN poison, which the
      // NaN message attributes to reading past the end of a pass's input.
      {"reading past n (no bound on the load), two passes", planted_reads_past_n, 1025, SumInput::Exact,
       "past the end"},
      {"reading past n (no bound on the load), one pass", planted_reads_past_n, 200, SumInput::Exact,
       "past the end of the input"},
      {"reading past n, mixed inputs", planted_reads_past_n, 33, SumInput::Mixed, "past the end of the input"},
      {"missing the tail (a grid rounded down)", planted_misses_tail, 1025, SumInput::Exact, "missed the last 1 "},
      {"missing the tail of a large input", planted_misses_tail, big, SumInput::Exact, "missed the last 7 "},
      {"no __syncthreads between the tree's steps", planted_no_syncthreads, big, SumInput::Exact, "Wrong sum"},
      {"dropping the last warp step", planted_drops_last_warp_step, 1025, SumInput::Exact, "Wrong sum"},
      {"dropping the last warp step, all negative", planted_drops_last_warp_step, 1024, SumInput::AllNegative,
       "Wrong sum"},
      {"double counting in an add during load", planted_double_counts_load, 1025, SumInput::Exact, "Wrong sum"},
      {"writing partial sums into the input", planted_writes_input, 1025, SumInput::Exact, "input was modified"},
  };
  for (const Plant& p : plants) {
    INFO("planted: " << p.what << " (n = " << p.n << ", " << describe(p.input) << ")");
    const std::vector<float> input = make_float_input(p.input, p.n, wb::test::seed());
    const std::string verdict = grade_reduce("planted", p.launch, input, p.input == SumInput::Exact);
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

// The two bugs the plain grader cannot see, each its own case so that CTest can run compute-sanitizer
// on it alone (gpu.p3.sanitizer-*, cmake workbook_sanitizer_catches). On their own the sums are
// right, so the grader passes them: that it does is checked here, and the sanitizer tests prove the
// grade's racecheck and exact-input memcheck runs fail them.
TEST_CASE("planted race: 3.05's last warp without __syncwarp passes the plain grader",
          "[gpu][grader][p3][planted-race]") {
  for (const std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(1025), std::size_t(4099)}) {
    INFO("n = " << n);
    const std::vector<float> input = make_float_input(SumInput::Exact, n, wb::test::seed());
    CHECK(grade_reduce("planted", planted_no_syncwarp, input, true).empty());
  }
}

TEST_CASE("planted over-read: a masked load past n passes the plain grader", "[gpu][grader][p3][planted-overread]") {
  for (const std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(1025), std::size_t(4099)}) {
    INFO("n = " << n);
    const std::vector<float> input = make_float_input(SumInput::Exact, n, wb::test::seed());
    CHECK(grade_reduce("planted", planted_reads_past_n_masked, input, true).empty());
  }
}
