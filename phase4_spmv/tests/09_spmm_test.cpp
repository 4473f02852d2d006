// SPDX-License-Identifier: MIT
// Graded tests for 4.09 spmm: Y = A X at k = 64 and k = 128 on the SpMM suite (tests/spmm_grading.h):
// the phase's matrices (no rows, no entries, empty rows, a dense row, one row holding every entry, 31
// and 33 rows, wide and tall, the five generators near 1000 rows, .mtx files), primes, rows around the
// lengths a kernel splits at, a power-law matrix with rows of 40000 to 65536 entries at the start,
// middle and end, a long row among empty ones, and the generators at 262144 rows. X is ringed with NaN
// canaries, Y poisoned and guarded, each element of Y within its derived bound; a second call on the
// same Y must give Y again; a k other than 64 and 128, or a misaligned X or Y, is refused.
#include <stdexcept>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase4_spmv/harness/device_matrix.h"
#include "phase4_spmv/spmv.cuh"
#include "phase4_spmv/tests/spmm_grading.h"

namespace {

void spmm_csr_run(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t s) {
  spmm_csr(a.csr(), x, y, k, s);
}

}  // namespace

TEST_CASE("spmm_csr computes Y = A X with k = 64 and k = 128 on every matrix of the SpMM suite", "[p4][4.09][gpu]") {
  const std::vector<SpmmCase> suite = spmm_suite();
  const int i = GENERATE(Catch::Generators::from_range(spmm_suite_indices()));
  for (int k : {64, 128}) check_spmm("spmm_csr", spmm_csr_run, suite[static_cast<std::size_t>(i)], k);
}

TEST_CASE("spmm_csr leaves Y = A X after two calls on the same Y (nothing accumulates across calls)",
          "[p4][4.09][gpu]") {
  // The split rows and empty rows of the suite's hard cases; Y is poisoned before the first call only.
  const std::vector<SpmmCase> suite = spmm_suite();
  for (const SpmmCase& c : suite) {
    if (c.name.find("seed 54") == std::string::npos && c.name.find("seed 55") == std::string::npos &&
        c.name.find("every third row empty") == std::string::npos)
      continue;
    for (int k : {64, 128}) check_spmm("spmm_csr", spmm_csr_run, c, k, 2);
  }
}

TEST_CASE("spmm_csr refuses a k other than 64 and 128, and an X or Y off a 16-byte boundary", "[p4][4.09][gpu]") {
  p4::DeviceMatrix a(p4::sparse::random_uniform(33, 40, 5, 61));
  wb::DeviceBuffer<float> x(40 * 128 + 4), y(33 * 128 + 4);
  for (int k : {-64, 0, 1, 32, 63, 65, 96, 127, 129, 256})
    CHECK_THROWS_AS(spmm_csr(a.csr(), x.data(), y.data(), k, nullptr), std::invalid_argument);
  CHECK_THROWS_AS(spmm_csr(a.csr(), x.data() + 1, y.data(), 64, nullptr), std::invalid_argument);
  CHECK_THROWS_AS(spmm_csr(a.csr(), x.data(), y.data() + 2, 128, nullptr), std::invalid_argument);
}
