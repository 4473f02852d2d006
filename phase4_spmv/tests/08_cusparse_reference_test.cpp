// SPDX-License-Identifier: MIT
// Graded tests for 4.08 cusparse_reference: the phase's matrix suite through the create-run-destroy
// launcher, and one plan run several times (the way a timed loop uses it) with y poisoned in between.
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase4_spmv/harness/sparse.h"
#include "phase4_spmv/harness/tolerance.h"
#include "phase4_spmv/spmv.cuh"
#include "phase4_spmv/tests/grading.h"

TEST_CASE("spmv_cusparse_csr computes y = A x on every matrix of the suite", "[p4][4.08][gpu]") {
  const std::vector<SpmvCase> suite = spmv_suite();
  const int i = GENERATE(Catch::Generators::from_range(spmv_suite_indices()));
  check_spmv(
      "spmv_cusparse_csr",
      [](p4::DeviceMatrix& a, const float* x, float* y, cudaStream_t s) { spmv_cusparse_csr(a.csr(), x, y, s); },
      suite[static_cast<std::size_t>(i)]);
}

TEST_CASE("a cuSPARSE SpMV plan made once gives the right y on every run", "[p4][4.08][gpu]") {
  const std::uint64_t seed = wb::test::seed();
  INFO("poisson 63x63 grid, x from seed " << seed << " (replay with WB_SEED=" << seed << ")");
  const p4::sparse::Csr a = p4::sparse::poisson_2d(63);
  const std::vector<float> x = wb::random_floats(static_cast<std::size_t>(a.cols), seed);
  std::vector<double> abs_sum;
  const std::vector<double> reference = p4::sparse::spmv_reference(a, x, &abs_sum);
  const std::vector<float> expected(reference.begin(), reference.end());
  p4::DeviceMatrix matrix(a);
  wb::DeviceBuffer<float> dx(x);
  wb::GuardedDeviceBuffer<float> dy(static_cast<std::size_t>(a.rows));
  CusparseSpmvPlan* plan = spmv_cusparse_plan_create(matrix.csr(), dx.data(), dy.data(), nullptr);
  for (int run = 0; run < 3; ++run) {
    INFO("run " << run + 1 << " of the same plan");
    dy.fill(wb::poison_value<float>());
    WB_RUN_LAUNCHER(spmv_cusparse_plan_run(plan));
    WB_REQUIRE_OK(dy.check_guards(), "spmv_cusparse_plan_run");
    const std::vector<float> got = dy.download();
    WB_REQUIRE_OK(wb::compare_each(expected.data(), got.data(), got.size(),
                                   [&](std::size_t r) {
                                     return p4::spmv_row_tolerance(a.row_ptr[r + 1] - a.row_ptr[r], abs_sum[r]);
                                   }),
                  "spmv_cusparse_plan_run");
  }
  spmv_cusparse_plan_destroy(plan);
}
