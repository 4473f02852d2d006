// SPDX-License-Identifier: MIT
// Graded tests for 4.05 csr_adaptive: the phase's matrix suite, then the cases its row blocks make
// risky: a last row far longer than a chunk (summed by the whole block), rows ending exactly on chunk
// boundaries, chunks that hold thousands of empty rows, and a plan reused across calls.
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase4_spmv/spmv.cuh"
#include "phase4_spmv/tests/grading.h"

namespace sp = p4::sparse;

namespace {

// The launcher as a learner would call it: plan once for the matrix, then SpMV.
void run_adaptive(p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t stream) {
  const CsrView a = m.csr();
  wb::DeviceBuffer<int> plan(static_cast<std::size_t>(spmv_csr_adaptive_plan_entries(a)));
  spmv_csr_adaptive_plan(a, plan.data(), stream);
  spmv_csr_adaptive(a, plan.data(), x, y, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the plan buffer dies at the end of this scope
}

// Twice on one plan, y poisoned in between by the grader's first call only: the second call must not
// depend on anything the first left behind except the plan.
void run_adaptive_twice(p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t stream) {
  const CsrView a = m.csr();
  wb::DeviceBuffer<int> plan(static_cast<std::size_t>(spmv_csr_adaptive_plan_entries(a)));
  spmv_csr_adaptive_plan(a, plan.data(), stream);
  spmv_csr_adaptive(a, plan.data(), x, y, stream);
  CUDA_CHECK(cudaMemsetAsync(y, 0xff, sizeof(float) * static_cast<std::size_t>(a.rows), stream));  // NaN again
  spmv_csr_adaptive(a, plan.data(), x, y, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
}

std::vector<SpmvCase> adaptive_cases() {
  return {
      {"300 short rows then one of 30000 entries (a last row far past its chunk, seed 31)",
       [] {
         return rows_of_lengths(
             301, 40000, [](int r) { return r == 300 ? 30000 : r % 9; }, 31);
       }},
      {"long rows of 5000 every 100 rows among rows of 3 (seed 32)",
       [] {
         return rows_of_lengths(
             2000, 8000, [](int r) { return r % 100 == 50 ? 5000 : 3; }, 32);
       }},
      {"rows of exactly 1024 and 2048 entries (rows end on chunk boundaries, seed 33)",
       [] {
         return rows_of_lengths(
             64, 4096, [](int r) { return r % 2 == 0 ? 1024 : 2048; }, 33);
       }},
      {"5000 empty rows around one row of 3 (a chunk holding thousands of rows, seed 34)",
       [] {
         return rows_of_lengths(
             10001, 100, [](int r) { return r == 5000 ? 3 : 0; }, 34);
       }},
      {"300 rows of 1..300 entries (every group width from 1 lane to a warp, seed 35)",
       [] {
         return rows_of_lengths(
             300, 1000, [](int r) { return r + 1; }, 35);
       }},
  };
}

}  // namespace

TEST_CASE("spmv_csr_adaptive matches the double reference on every matrix of the phase's suite", "[p4][4.05][gpu]") {
  const std::vector<SpmvCase> suite = spmv_suite();
  const int index = GENERATE(Catch::Generators::from_range(spmv_suite_indices()));
  check_spmv("spmv_csr_adaptive", run_adaptive, suite[static_cast<std::size_t>(index)]);
}

TEST_CASE("spmv_csr_adaptive handles long last rows, rows ending on chunk boundaries and chunks of empty rows",
          "[p4][4.05][gpu]") {
  const std::vector<SpmvCase> cases = adaptive_cases();
  const int index = GENERATE(0, 1, 2, 3, 4);
  INFO("a row block is the rows starting in one chunk of entries; only its last row can be longer than the chunk");
  check_spmv("spmv_csr_adaptive", run_adaptive, cases[static_cast<std::size_t>(index)]);
}

TEST_CASE("spmv_csr_adaptive gives the same y when its plan is reused for a second call", "[p4][4.05][gpu]") {
  const SpmvCase c{"powerlaw 5000x5000, alpha 2, rows up to 4000 (seed 36)",
                   [] { return sp::power_law(5000, 5000, 2.0, 4000, 36); }};
  INFO("the plan depends on row_ptr only; the kernel must not change it or rely on y's old contents");
  check_spmv("spmv_csr_adaptive (second call on one plan)", run_adaptive_twice, c);
}
