// SPDX-License-Identifier: MIT
// Graded tests for 4.01 coo_to_csr: every matrix of the phase's suite, as COO entries in a seeded random
// order, converted on the GPU and compared exactly (values, columns, row pointers) with the host
// converter p4::sparse::coo_to_csr; outputs poisoned and guarded, inputs guarded.
#include <algorithm>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/data.h"
#include "common/testing.h"
#include "phase4_spmv/harness/sparse.h"
#include "phase4_spmv/spmv.cuh"
#include "phase4_spmv/tests/grading.h"

namespace {

p4::sparse::Coo shuffled_coo(const p4::sparse::Csr& a, std::uint64_t seed) {
  p4::sparse::Coo coo = p4::sparse::csr_to_coo(a);
  wb::Rng rng(seed);
  for (std::size_t i = coo.nnz(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(i - 1)));
    std::swap(coo.row[i - 1], coo.row[j]);
    std::swap(coo.col[i - 1], coo.col[j]);
    std::swap(coo.val[i - 1], coo.val[j]);
  }
  return coo;
}

}  // namespace

TEST_CASE("coo_to_csr_gpu builds the same CSR as the host converter from shuffled entries", "[p4][4.01][gpu]") {
  const std::vector<SpmvCase> suite = spmv_suite();
  const SpmvCase& c = suite[static_cast<std::size_t>(GENERATE(Catch::Generators::from_range(spmv_suite_indices())))];
  const std::uint64_t seed = wb::test::seed();
  INFO("coo_to_csr_gpu on " << c.name << ", entries shuffled with seed " << seed << " (replay with WB_SEED=" << seed
                            << ")");
  const p4::sparse::Csr expected = c.make();
  INFO("the matrix: " << p4::describe_matrix(expected));
  const p4::sparse::Coo coo = shuffled_coo(expected, seed);
  const std::size_t nnz = coo.nnz(), rows = static_cast<std::size_t>(coo.rows);

  wb::GuardedDeviceBuffer<int> d_row(nnz), d_col(nnz);
  wb::GuardedDeviceBuffer<float> d_val(nnz);
  d_row.upload(coo.row);
  d_col.upload(coo.col);
  d_val.upload(coo.val);
  CooView view;
  view.rows = coo.rows;
  view.cols = coo.cols;
  view.nnz = static_cast<int>(nnz);
  view.row = d_row.data();
  view.col = d_col.data();
  view.val = d_val.data();
  wb::GuardedDeviceBuffer<int> out_row_ptr(rows + 1), out_col(nnz);  // poisoned: unwritten slots show
  wb::GuardedDeviceBuffer<float> out_val(nnz);
  WB_RUN_LAUNCHER(coo_to_csr_gpu(view, out_row_ptr.data(), out_col.data(), out_val.data(), nullptr));
  WB_REQUIRE_OK(out_val.check_guards(), "coo_to_csr_gpu val");
  WB_REQUIRE_OK(out_col.check_guards(), "coo_to_csr_gpu col");
  WB_REQUIRE_OK(out_row_ptr.check_guards(), "coo_to_csr_gpu row_ptr");
  WB_REQUIRE_OK(d_row.check_guards(), "coo_to_csr_gpu (its input coo.row)");
  // Values first: an entry never scattered leaves poison, the clearest sign of a missing kernel.
  INFO(
      "CSR is exact: row r's entries sit in [row_ptr[r], row_ptr[r + 1]), columns ascending, values moved "
      "with their columns");
  WB_REQUIRE_OK(wb::compare(expected.val, out_val.download(), wb::Tolerance{}), "coo_to_csr_gpu val");
  WB_REQUIRE_OK(wb::compare(expected.col, out_col.download(), wb::Tolerance{}), "coo_to_csr_gpu col");
  WB_REQUIRE_OK(wb::compare(expected.row_ptr, out_row_ptr.download(), wb::Tolerance{}), "coo_to_csr_gpu row_ptr");
}
