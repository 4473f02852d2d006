// SPDX-License-Identifier: MIT
// Graded tests for 6.03 nccl_collectives (tests/collectives_grading.h): the bus bandwidth of each
// collective on the host, then on every real GPU count from 2, both set-ups (one process driving every
// GPU; one process per GPU, started by fork + exec, the unique id handed over a pipe): all-reduce,
// reduce-scatter, all-gather and broadcast (from the last rank), counts 1, 7 and 1M + 3, out of place
// and in place, every rank's result exact (inputs a x 8^rank), outputs poisoned per rank, guards around
// every buffer. The collectives run in worker processes with a deadline: a deadlock (a collective issued
// for one rank at a time from one thread) is reported after the timeout, never hangs the grade.
// What this cannot see: NCCL's own kernels under the sanitizers. The exercise makes no kernel, and NCCL's
// kernels on several GPUs wait for each other while a sanitizer serializes launches, so it has no
// sanitizer runs (cmake/exercises.json).
#include "common/testing.h"
#include "phase6_multi_gpu/multi_gpu.cuh"
#include "phase6_multi_gpu/tests/collectives_grading.h"
#include "phase6_multi_gpu/tests/grading.h"

TEST_CASE("collective_busbw_gbs counts bus bandwidth as nccl-tests does", "[p6][6.03]") {
  const std::string verdict = p6::test::judge_busbw(collective_busbw_gbs);
  if (!verdict.empty()) FAIL(verdict);
}

TEST_CASE("one process drives every GPU: each collective exact, in and out of place", "[p6][6.03][gpu]") {
  p6::test::require_real_gpus("6.03", "nccl_collectives", 2);
  for (int n = 2; n <= std::min(p6::visible_gpu_count(), 8); ++n) {
    INFO("seed " << wb::test::seed());
    const std::string verdict = p6::test::grade_collectives(nccl_collectives_worker(), n, false, nccl_share_unique_id);
    if (!verdict.empty()) FAIL(verdict);
  }
}

TEST_CASE("one process per GPU: each collective exact, in and out of place", "[p6][6.03][gpu]") {
  p6::test::require_real_gpus("6.03", "nccl_collectives", 2);
  for (int n = 2; n <= std::min(p6::visible_gpu_count(), 8); ++n) {
    INFO("seed " << wb::test::seed());
    const std::string verdict = p6::test::grade_collectives(nccl_collectives_worker(), n, true, nccl_share_unique_id);
    if (!verdict.empty()) FAIL(verdict);
  }
}
