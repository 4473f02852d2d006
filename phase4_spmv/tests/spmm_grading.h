// SPDX-License-Identifier: MIT
// The grader of 4.09 spmm (Y = A X, X and Y dense row-major with k columns): the phase's matrix suite
// (tests/grading.h) plus rows around the lengths a kernel might split at, a power-law matrix with rows
// of 40000 to 65536 entries at the start, middle and end, a long row among empty ones, primes and
// larger generated matrices; X ringed with NaN canaries (a read out of range gives NaN), Y poisoned (an
// unwritten element shows) and guarded (a write past the end shows), and the per-element bound of
// harness/spmm_reference.h. A failure ends with a sentence that names the likely bug: empty rows not stored,
// columns of Y no lane covers, the last rows skipped, X read column-major, the pieces of long rows lost
// or added onto poison.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "phase4_spmv/harness/sparse.h"
#include "phase4_spmv/harness/spmm_reference.h"

struct SpmmCase {
  std::string name;  // says what the matrix is and its seed
  std::function<p4::sparse::Csr()> make;
  bool large = false;  // dropped under WB_SANITIZE
};

// The whole suite (large cases dropped under WB_SANITIZE), and its indices for GENERATE.
std::vector<SpmmCase> spmm_suite();
std::vector<int> spmm_suite_indices();

// Runs `run` `calls` times on `a` (Y poisoned before the first call only) with X random in [-1, 1)
// from `seed`; returns "" when Y is right after the last call, else the failure report with a sentence
// on the likely cause. check_spmm FAILs with it.
std::string grade_spmm(const std::string& launcher, const p4::SpmmRun& run, const p4::sparse::Csr& a, int k,
                       std::uint64_t seed, int calls = 1);

// Builds the case's matrix and grades `run` on it at this k, with the case, k, the seed and a replay
// hint in the failure message.
void check_spmm(const std::string& launcher, const p4::SpmmRun& run, const SpmmCase& c, int k, int calls = 1);
