// SPDX-License-Identifier: MIT
// Graded tests for 4.04 ell: the phase's matrix suite (tests/grading.h) converted to column-major ELL,
// except the large power-law matrix, whose padding would not fit (that is the lesson's point, checked
// in the second test); x ringed with NaN canaries (a padding slot read as x[-1] shows as NaN), y
// poisoned and guarded.
#include <string>
#include <vector>

#include "common/testing.h"
#include "phase4_spmv/harness/sparse.h"
#include "phase4_spmv/spmv.cuh"
#include "phase4_spmv/tests/grading.h"

TEST_CASE("spmv_ell computes y = A x on every matrix of the suite whose padding fits", "[p4][4.04][gpu]") {
  const std::vector<SpmvCase> suite = spmv_suite();
  const int i = GENERATE(Catch::Generators::from_range(spmv_suite_indices(true)));
  check_spmv(
      "spmv_ell", [](p4::DeviceMatrix& a, const float* x, float* y, cudaStream_t s) { spmv_ell(a.ell(), x, y, s); },
      suite[static_cast<std::size_t>(i)]);
}

TEST_CASE("ELL refuses a power-law matrix whose padding explodes, and says how big it would be", "[p4][4.04][gpu]") {
  // 64K rows, one of up to 65536 entries: ELL would store 64K x (longest row) slots, more than 2^28.
  const p4::sparse::Csr a = p4::sparse::power_law(1 << 16, 1 << 16, 1.2, 1 << 16, 31);
  INFO("the matrix: " << p4::describe_matrix(a));
  p4::DeviceMatrix matrix(a);
  try {
    matrix.ell();
    FAIL("the conversion accepted " << a.rows << " rows padded to the longest row");
  } catch (const p4::sparse::SparseError& e) {
    INFO("the converter said: " << e.what());
    CHECK(std::string(e.what()).find("pad") != std::string::npos);
  }
}
