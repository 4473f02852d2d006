// SPDX-License-Identifier: MIT
// A grader that passes a wrong kernel is the worst bug of a course: plant each bug the phase 1
// grader claims to diagnose and check that it fails, with the sentence that names the bug, while a
// correct kernel passes on exact and random inputs (including the cuBLAS-referenced 1000^3).
#include <string>
#include <vector>

#include "common/testing.h"
#include "phase1_matmul/tests/grading.h"
#include "phase1_matmul/tests/wrong_kernels.h"

namespace {

struct Plant {
  const char* what;
  MatmulLauncher launch;
  MatmulCase shape;
  bool exact;
  const char* diagnosis;  // "" = the grader must accept it
};

}  // namespace

TEST_CASE("the phase 1 grader accepts a correct kernel and names every planted bug", "[gpu][grader][p1]") {
  const std::vector<Plant> plants = {
      {"a correct kernel, exact inputs", planted_correct, {127, 129, 65, 2.0f, -1.0f}, true, ""},
      {"a correct kernel, random inputs", planted_correct, {127, 129, 65, 2.0f, -1.0f}, false, ""},
      {"a correct kernel, random inputs against cuBLAS", planted_correct, {1000, 1000, 1000, 0.5f, 2.0f}, false, ""},
      {"a correct kernel with K = 0", planted_correct, {17, 19, 0, 1.0f, 0.5f}, true, ""},
      {"skipping the last partial tile of rows",
       planted_skips_tail_rows,
       {127, 129, 65, 1.0f, 0.0f},
       true,
       "Wrong only where row >= 96"},
      {"reading C when beta = 0",
       planted_reads_c_when_beta_zero,
       {31, 33, 17, 1.0f, 0.0f},
       true,
       "beta = 0 must not read C"},
      {"ignoring beta",
       planted_ignores_beta,
       {33, 31, 65, -1.5f, 0.5f},
       true,
       "the kernel overwrote C instead of adding beta * C"},
      {"dropping the last k term (exact inputs)",
       planted_drops_last_k,
       {64, 64, 64, 1.0f, 0.0f},
       true,
       "The wrong elements are spread over C"},
      {"dropping the last k term (random inputs)",
       planted_drops_last_k,
       {64, 64, 64, 1.0f, 0.0f},
       false,
       "values are wrong"},
      {"writing one element past the end of C",
       planted_writes_past_end,
       {31, 33, 17, 1.0f, 0.0f},
       true,
       "wrote past the end"},
  };
  for (const Plant& p : plants) {
    INFO("planted: " << p.what);
    const std::string verdict =
        grade_matmul("planted", p.launch, p.shape, MatmulPrecision::FP32, p.exact, wb::test::seed());
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

// The bugs the plain grader cannot see, each its own case so that CTest can run compute-sanitizer on
// it alone (gpu.p1.sanitizer-*, workbook_sanitizer_catches). Their results are right, so the grader
// passes them: checked here; the sanitizer tests prove the grade's runs fail them.
namespace {
void check_passes_plain_grader(MatmulLauncher launch) {
  for (const MatmulCase& shape : {MatmulCase{31, 33, 17, 1.0f, 0.0f}, MatmulCase{1, 1, 1, 2.0f, 0.5f}}) {
    INFO("shape " << shape.M << "x" << shape.N << "x" << shape.K);
    CHECK(grade_matmul("planted", launch, shape, MatmulPrecision::FP32, true, wb::test::seed()).empty());
  }
}
}  // namespace

TEST_CASE("a correct one-warp tiled kernel passes the plain grader", "[gpu][grader][p1]") {
  check_passes_plain_grader(planted_tiled_correct);
}

TEST_CASE("planted race: a one-warp tile without barriers passes the plain grader", "[gpu][grader][p1][planted-race]") {
  check_passes_plain_grader(planted_tiled_no_barrier);
}

TEST_CASE("planted over-read: tile loads past the end of A and B, zeroed, pass the plain grader",
          "[gpu][grader][p1][planted-overread]") {
  check_passes_plain_grader(planted_tiled_reads_past_end_masked);
}
