// SPDX-License-Identifier: MIT
// A grader that passes a wrong kernel is the worst bug of a course: plant each bug the phase 4 graders
// (grade_spmv, and 4.09's grade_spmm) claim to diagnose and check that it fails, with the sentence that
// names the bug, while a correct kernel passes on every matrix of the suite.
#include <string>
#include <vector>

#include "common/testing.h"
#include "phase4_spmv/harness/sparse.h"
#include "phase4_spmv/tests/grading.h"
#include "phase4_spmv/tests/spmm_grading.h"
#include "phase4_spmv/tests/wrong_kernels.h"

namespace {

using CsrLauncher = void (*)(const CsrView&, const float*, float*, cudaStream_t);

p4::SpmvRun as_run(CsrLauncher launch) {
  return [launch](p4::DeviceMatrix& a, const float* x, float* y, cudaStream_t s) { launch(a.csr(), x, y, s); };
}

struct Plant {
  const char* what;
  CsrLauncher launch;
  p4::sparse::Csr matrix;
  const char* diagnosis;  // "" = the grader must accept it
};

// 1000 x 1000, 9 per row, every third row empty.
p4::sparse::Csr with_empty_rows() {
  return empty_some_rows(p4::sparse::random_uniform(1000, 1000, 9, 41), [](int r) { return r % 3 != 0; });
}

}  // namespace

TEST_CASE("the phase 4 grader accepts a correct kernel on the whole suite", "[gpu][grader][p4]") {
  for (const SpmvCase& c : spmv_suite()) check_spmv("planted_spmv_correct", as_run(planted_spmv_correct), c);
}

TEST_CASE("the phase 4 grader names every planted bug", "[gpu][grader][p4]") {
  const p4::sparse::Csr uniform = p4::sparse::random_uniform(1000, 1000, 16, 42);
  const p4::sparse::Csr long_rows = p4::sparse::random_uniform(300, 4000, 200, 43);
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
  const p4::sparse::Csr a = p4::sparse::random_uniform(33, 100, 37, 44);
  CHECK(grade_spmv("planted", as_run(planted_spmv_vector_no_syncwarp), a, wb::test::seed()).empty());
}

TEST_CASE("planted over-read: val and col read past each row, values dropped, pass the plain grader",
          "[gpu][grader][p4][planted-overread]") {
  const p4::sparse::Csr a = p4::sparse::random_uniform(33, 100, 37, 44);
  CHECK(grade_spmv("planted", as_run(planted_spmv_vector_reads_past_row_masked), a, wb::test::seed()).empty());
}

// ---- 4.09 spmm ---------------------------------------------------------------------------------------

namespace {

using SpmmLauncher = void (*)(p4::DeviceMatrix&, const float*, float*, int, cudaStream_t);

struct SpmmPlant {
  const char* what;
  SpmmLauncher launch;
  p4::sparse::Csr matrix;
  int k;
  const char* diagnosis;  // "" = the grader must accept it
};

// 3000 x 6000: ten rows of 1000 to 1333 entries (four to six segments of the planted kernels' 256),
// every 300th row, among rows of 0 to 8 entries.
p4::sparse::Csr with_long_rows() {
  return rows_of_lengths(
      3000, 6000, [](int r) { return r % 300 == 11 ? 1000 + 37 * (r / 300) : r % 9; }, 45);
}

}  // namespace

TEST_CASE("the 4.09 grader accepts a correct SpMM kernel on the whole SpMM suite", "[gpu][grader][p4]") {
  for (const SpmmCase& c : spmm_suite())
    for (int k : {64, 128}) check_spmm("planted_spmm_correct", planted_spmm_correct, c, k);
}

TEST_CASE("the 4.09 grader names every planted SpMM bug", "[gpu][grader][p4]") {
  const p4::sparse::Csr uniform = p4::sparse::random_uniform(1000, 1000, 16, 42);
  const std::vector<SpmmPlant> plants = {
      {"X read column-major", planted_spmm_reads_x_column_major, uniform, 64, "Y is A times X read column-major"},
      {"X read column-major, k = 128", planted_spmm_reads_x_column_major, uniform, 128,
       "Y is A times X read column-major"},
      {"the last segment of each long row lost", planted_spmm_loses_last_segment, with_long_rows(), 64,
       "Every wrong row is longer than every right one"},
      {"the lanes skip the last float4 of a row at k = 128", planted_spmm_skips_last_float4, uniform, 128,
       "(from column 124 to 127) were never written, in any row"},
      {"Y not written for empty rows", planted_spmm_skips_empty_rows, with_empty_rows(), 64,
       "Only rows with no entries are wrong"},
      {"long rows added onto a Y never zeroed", planted_spmm_adds_onto_poison, with_long_rows(), 128,
       "Only the longest rows are wrong"},
      {"a correct kernel on long rows", planted_spmm_correct, with_long_rows(), 128, ""},
      {"a correct kernel on empty rows", planted_spmm_correct, with_empty_rows(), 64, ""},
  };
  for (const SpmmPlant& p : plants) {
    INFO("planted: " << p.what << ", k = " << p.k);
    const std::string verdict = grade_spmm("planted", p.launch, p.matrix, p.k, wb::test::seed());
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

// 4.09's bugs the plain grader cannot see, each its own case so that CTest can run compute-sanitizer on
// it alone (gpu.p4.sanitizer-spmm-race / -overread). Their results are right, so the grader passes them:
// checked here; the sanitizer tests prove the grade's runs fail them.
TEST_CASE("planted race: SpMM's (col, val) staging reused without __syncwarp passes the plain grader",
          "[gpu][grader][p4][planted-spmm-race]") {
  // 33 rows of 37 entries: two rounds of staging per row, and every warp takes two rows.
  const p4::sparse::Csr a = p4::sparse::random_uniform(33, 100, 37, 44);
  CHECK(grade_spmm("planted", planted_spmm_staging_without_syncwarp, a, 128, wb::test::seed()).empty());
}

TEST_CASE("planted over-read: SpMM reads col[row_end] and val[row_end], values dropped, passes the plain grader",
          "[gpu][grader][p4][planted-spmm-overread]") {
  // The last row ends at nnz = 33 x 37: its col[nnz] and val[nnz] lie past the arrays' 4884 bytes.
  const p4::sparse::Csr a = p4::sparse::random_uniform(33, 100, 37, 44);
  CHECK(grade_spmm("planted", planted_spmm_reads_col_past_row, a, 64, wb::test::seed()).empty());
}
