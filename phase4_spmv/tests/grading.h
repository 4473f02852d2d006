// SPDX-License-Identifier: MIT
// One grader for every SpMV kernel of phase 4: a suite of matrices that break sparse kernels (no rows,
// no entries, empty rows, one row holding every entry, non-square, warp-size +- 1 rows, the five
// generators small and large, and small Matrix Market files checked in under tests/data/), x ringed
// with NaN canaries (a read out of range shows as NaN), y poisoned and guarded, and the per-row
// tolerance of harness/tolerance.h against the double reference.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "phase4_spmv/harness/lesson_support.h"
#include "phase4_spmv/harness/sparse.h"

struct SpmvCase {
  std::string name;  // says what the matrix is and its seed, e.g. "powerlaw 2000x2000 alpha 2 (seed 11)"
  std::function<p4::sparse::Csr()> make;
  bool large = false;         // dropped under WB_SANITIZE
  bool ell_explodes = false;  // rows * longest row is too big for ELL (4.04 skips it, and says so)
};

// The whole suite (large cases dropped under WB_SANITIZE).
std::vector<SpmvCase> spmv_suite();

// Runs `run` once on `a` with x random in [-1, 1) from `seed` and returns "" when y is right, else the
// failure report with a sentence on the likely cause. check_spmv FAILs with it.
std::string grade_spmv(const std::string& launcher, const p4::SpmvRun& run, const p4::sparse::Csr& a,
                       std::uint64_t seed);

// Builds the case's matrix and grades `run` on it, with the case, the seed and a replay hint in the
// failure message.
void check_spmv(const std::string& launcher, const p4::SpmvRun& run, const SpmvCase& c);

// `in` with only the rows for which keep(r) is true; the others become empty.
p4::sparse::Csr empty_some_rows(const p4::sparse::Csr& in, const std::function<bool(int)>& keep);

// Rows of `length(r)` entries at consecutive columns (wrapping), values in [-1, 1) from `seed`: the
// row-length patterns that stress one kernel's way of splitting the work (4.05, 4.06).
p4::sparse::Csr rows_of_lengths(int rows, int cols, const std::function<int(int)>& length, std::uint64_t seed);

// Indices 0 .. spmv_suite().size() - 1, for GENERATE.
std::vector<int> spmv_suite_indices(bool skip_ell_explosions = false);
