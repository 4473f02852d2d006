// SPDX-License-Identifier: MIT
// Graded tests for 4.02 csr_scalar: the phase's matrix suite (tests/grading.h): no rows, no entries,
// empty rows, one row with every entry, warp-size +- 1 rows, wide and tall, the five generators small and
// large and the checked-in .mtx files; x ringed with NaN canaries, y poisoned and guarded.
#include <vector>

#include "common/testing.h"
#include "phase4_spmv/spmv.cuh"
#include "phase4_spmv/tests/grading.h"

TEST_CASE("spmv_csr_scalar computes y = A x on every matrix of the suite", "[p4][4.02][gpu]") {
  const std::vector<SpmvCase> suite = spmv_suite();
  const int i = GENERATE(Catch::Generators::from_range(spmv_suite_indices()));
  check_spmv(
      "spmv_csr_scalar",
      [](p4::DeviceMatrix& a, const float* x, float* y, cudaStream_t s) { spmv_csr_scalar(a.csr(), x, y, s); },
      suite[static_cast<std::size_t>(i)]);
}
