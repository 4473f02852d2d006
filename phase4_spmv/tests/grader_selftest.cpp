// SPDX-License-Identifier: MIT
// A grader that passes a wrong kernel is the worst bug of a course: plant each bug the phase 4 grader
// claims to diagnose and check that it fails, with the sentence that names the bug, while a correct
// kernel passes on every matrix of the suite.
#include <string>
#include <vector>

#include "common/sparse.h"
#include "common/testing.h"
#include "phase4_spmv/tests/grading.h"
#include "phase4_spmv/tests/wrong_kernels.h"

namespace {

using CsrLauncher = void (*)(const CsrView&, const float*, float*, cudaStream_t);

SpmvRun as_run(CsrLauncher launch) {
  return [launch](DeviceMatrix& a, const float* x, float* y, cudaStream_t s) { launch(a.csr(), x, y, s); };
}

struct Plant {
  const char* what;
  CsrLauncher launch;
  wb::sparse::Csr matrix;
  const char* diagnosis;  // "" = the grader must accept it
};

// 1000 x 1000, 9 per row, every third row empty.
wb::sparse::Csr with_empty_rows() {
  return empty_some_rows(wb::sparse::random_uniform(1000, 1000, 9, 41), [](int r) { return r % 3 != 0; });
}

}  // namespace

TEST_CASE("the phase 4 grader accepts a correct kernel on the whole suite", "[gpu][grader][p4]") {
  for (const SpmvCase& c : spmv_suite()) check_spmv("planted_spmv_correct", as_run(planted_spmv_correct), c);
}

TEST_CASE("the phase 4 grader names every planted bug", "[gpu][grader][p4]") {
  const wb::sparse::Csr uniform = wb::sparse::random_uniform(1000, 1000, 16, 42);
  const wb::sparse::Csr long_rows = wb::sparse::random_uniform(300, 4000, 200, 43);
  const std::vector<Plant> plants = {
      {"skipping the last row", planted_spmv_skips_last_row, uniform,
       "were never written: the grid or the row loop stops short"},
      {"storing nothing for empty rows", planted_spmv_skips_empty_rows, with_empty_rows(),
       "Only rows with no entries are wrong"},
      {"gathering x[col + 1]", planted_spmv_reads_x_out_of_range, uniform, "read x out of range"},
      {"writing one element past the end of y", planted_spmv_writes_past_y, uniform, "wrote past the end"},
      {"dropping each row's first entry", planted_spmv_drops_first_entry, uniform, "values are wrong"},
      {"keeping only lane 0's share of a long row", planted_spmv_warp_lane0_only, long_rows, "values are wrong"},
      {"a correct kernel on empty rows", planted_spmv_correct, with_empty_rows(), ""},
  };
  for (const Plant& p : plants) {
    INFO("planted: " << p.what);
    const std::string verdict = grade_spmv("planted", as_run(p.launch), p.matrix, wb::test::seed());
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

// The bugs the plain grader cannot see, each its own case so that CTest can run compute-sanitizer on
// it alone (gpu.p4.sanitizer-*, workbook_sanitizer_catches). Their results are right, so the grader
// passes them: checked here; the sanitizer tests prove the grade's runs fail them.
TEST_CASE("planted race: csr_vector's warp tree without __syncwarp passes the plain grader",
          "[gpu][grader][p4][planted-race]") {
  // 33 rows of 37 entries: longer than a warp and no multiple of 32, so every warp runs a partial stride.
  const wb::sparse::Csr a = wb::sparse::random_uniform(33, 100, 37, 44);
  CHECK(grade_spmv("planted", as_run(planted_spmv_vector_no_syncwarp), a, wb::test::seed()).empty());
}

TEST_CASE("planted over-read: val and col read past each row, values dropped, pass the plain grader",
          "[gpu][grader][p4][planted-overread]") {
  const wb::sparse::Csr a = wb::sparse::random_uniform(33, 100, 37, 44);
  CHECK(grade_spmv("planted", as_run(planted_spmv_vector_reads_past_row_masked), a, wb::test::seed()).empty());
}
