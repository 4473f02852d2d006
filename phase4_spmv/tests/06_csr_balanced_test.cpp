// SPDX-License-Identifier: MIT
// Graded tests for 4.06 csr_balanced: the phase's matrix suite, then what merge path makes risky: rows
// that span several tiles (several carries into one row), tiles that end exactly on a row's end (a
// zero carry), tiles made only of row ends (thousands of empty rows), and a workspace reused.
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase4_spmv/spmv.cuh"
#include "phase4_spmv/tests/grading.h"

namespace sp = p4::sparse;

namespace {

void run_balanced(p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t stream) {
  const CsrView a = m.csr();
  wb::DeviceBuffer<unsigned char> workspace(spmv_csr_balanced_workspace_bytes(a));
  spmv_csr_balanced(a, x, y, workspace.data(), stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the workspace dies at the end of this scope
}

// Twice on one workspace: the carries of the first call must not leak into the second.
void run_balanced_twice(p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t stream) {
  const CsrView a = m.csr();
  wb::DeviceBuffer<unsigned char> workspace(spmv_csr_balanced_workspace_bytes(a));
  spmv_csr_balanced(a, x, y, workspace.data(), stream);
  CUDA_CHECK(cudaMemsetAsync(y, 0xff, sizeof(float) * static_cast<std::size_t>(a.rows), stream));  // NaN again
  spmv_csr_balanced(a, x, y, workspace.data(), stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

// A tile is 896 merge items (row ends + entries) in the reference solution; the cases below are built
// around that size but hold for any tile size.
std::vector<SpmvCase> balanced_cases() {
  return {
      {"one row of 20000 entries between rows of 2 (one row, two dozen tiles and carries, seed 41)",
       [] {
         return rows_of_lengths(
             3000, 30000, [](int r) { return r == 1500 ? 20000 : 2; }, 41);
       }},
      {"rows of 895 entries (row ends land on tile ends, zero carries, seed 42)",
       [] {
         return rows_of_lengths(
             40, 4096, [](int) { return 895; }, 42);
       }},
      {"6000 empty rows (tiles of row ends only)",
       [] {
         return rows_of_lengths(
             6000, 10, [](int) { return 0; }, 43);
       }},
      {"rows of 0..4999 entries, longest last (seed 44)",
       [] {
         return rows_of_lengths(
             100, 5000, [](int r) { return r * 50 + (r == 99 ? 49 : 0); }, 44);
       }},
      {"a 65536-entry row first, then 10000 rows of 1 (seed 45)",
       [] {
         return rows_of_lengths(
             10001, 70000, [](int r) { return r == 0 ? 65536 : 1; }, 45);
       }},
  };
}

}  // namespace

TEST_CASE("spmv_csr_balanced matches the double reference on every matrix of the phase's suite", "[p4][4.06][gpu]") {
  const std::vector<SpmvCase> suite = spmv_suite();
  const int index = GENERATE(Catch::Generators::from_range(spmv_suite_indices()));
  check_spmv("spmv_csr_balanced", run_balanced, suite[static_cast<std::size_t>(index)]);
}

TEST_CASE("spmv_csr_balanced handles rows across many tiles, tiles ending on row ends, and tiles of empty rows",
          "[p4][4.06][gpu]") {
  const std::vector<SpmvCase> cases = balanced_cases();
  const int index = GENERATE(0, 1, 2, 3, 4);
  INFO("every row cut by a tile boundary needs the partial sums (carries) of all earlier tiles it crossed");
  check_spmv("spmv_csr_balanced", run_balanced, cases[static_cast<std::size_t>(index)]);
}

TEST_CASE("spmv_csr_balanced gives the same y when its workspace is reused for a second call", "[p4][4.06][gpu]") {
  const SpmvCase c{"powerlaw 5000x5000, alpha 2, rows up to 4000 (seed 46)",
                   [] { return sp::power_law(5000, 5000, 2.0, 4000, 46); }};
  INFO("the partition and the carries are rewritten by every call; none may be left from the last one");
  check_spmv("spmv_csr_balanced (second call on one workspace)", run_balanced_twice, c);
}
