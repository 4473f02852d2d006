// SPDX-License-Identifier: MIT
// Graded tests for 6.01 peer_access, on every ordered pair of the first four visible GPUs (two or more;
// with fewer the binary skips with one line): peer access enabled one way per call, a second call harmless; the copy
// kernel at counts around the 16-byte vector and the grid (0, 1, 3, 4, 5, 31, 33, 1000, 4097, 1M + 1, and
// 64M + 3 outside the sanitizer runs), with dst and src on or off 16-byte boundaries; outputs poisoned,
// guarded in front and behind; values compared exactly.
#include <string>

#include "common/testing.h"
#include "phase6_multi_gpu/multi_gpu.cuh"
#include "phase6_multi_gpu/tests/grading.h"

namespace {

std::vector<std::pair<int, int>> ordered_pairs() {
  p6::test::require_real_gpus("6.01", "peer_access", 2);
  std::vector<std::pair<int, int>> pairs;
  const int gpus = std::min(p6::visible_gpu_count(), 4);
  for (int a = 0; a < gpus; ++a)
    for (int b = 0; b < gpus; ++b)
      if (a != b) pairs.emplace_back(a, b);
  return pairs;
}

}  // namespace

TEST_CASE("enable_peer_access lets one GPU's kernels reach the other's memory, and may be called twice",
          "[p6][6.01][gpu]") {
  for (const auto& [a, b] : ordered_pairs()) {
    INFO("GPU " << a << " -> GPU " << b);
    WB_RUN_LAUNCHER(enable_peer_access(a, b));
    if (!p6::peer_access_enabled(a, b))
      FAIL("after enable_peer_access(" << a << ", " << b << "), GPU " << a
                                       << "'s kernels still have no peer access to GPU " << b
                                       << "'s memory: cudaDeviceEnablePeerAccess is made from the device that "
                                          "will do the accessing (the current device), naming the peer.");
    WB_RUN_LAUNCHER(enable_peer_access(a, b));  // a second call for the same pair must be harmless
    CHECK(cudaGetLastError() == cudaSuccess);
  }
}

TEST_CASE("peer_copy_read copies any count at any alignment from the peer's memory", "[p6][6.01][gpu]") {
  const std::vector<std::size_t> counts = wb::test::sizes(
      {0, 1, 3, 4, 5, 31, 33, 1000, 4097, (std::size_t(1) << 20) + 1, (std::size_t(64) << 20) + 3}, 4097);
  for (const auto& [a, b] : ordered_pairs()) {
    enable_peer_access(a, b);
    for (std::size_t count : counts) {
      for (const auto& [dst_offset, src_offset] : {std::pair<std::size_t, std::size_t>{0, 0}, {1, 1}, {0, 3}}) {
        const std::string verdict = p6::test::grade_peer_copy("peer_copy_read", peer_copy_read, a, b, count, dst_offset,
                                                              src_offset, wb::test::seed());
        if (!verdict.empty()) FAIL(verdict);
      }
    }
  }
}
