// SPDX-License-Identifier: MIT
// Graded tests for 0.01 indexing: block sizes from 1 to 1024 (1, 32, 100, 128, 256, 1000, 1024) against
// sizes that are and are not multiples of them, poisoned outputs and guard canaries.
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "common/util.h"
#include "phase0_basics/basics.cuh"

namespace {

// 0 (no launch at all), 1, around a warp, not a multiple of any block size, a prime, and a large n
// that needs over a thousand blocks even at 1024 threads.
std::vector<std::size_t> index_sizes() {
  return wb::test::sizes({0, 1, 31, 33, 1000, 4099, (std::size_t(1) << 20) + 3});
}

}  // namespace

TEST_CASE("record_thread_indices gives every element its global index, block and thread for any block size",
          "[p0][0.01][gpu]") {
  // 1 and 1024 are the smallest and largest legal blocks; 100 and 1000 are not multiples of a warp.
  const int block_size = GENERATE(1, 32, 100, 128, 256, 1000, 1024);
  const std::size_t size = GENERATE(Catch::Generators::from_range(index_sizes()));
  const int n = static_cast<int>(size);
  INFO("n = " << n << ", block_size = " << block_size << ": the grid needs wb::ceil_div(n, block_size) = "
              << wb::ceil_div(n, block_size) << " blocks" << (n == 0 ? ", so return before launching" : ""));

  std::vector<int> expected_global(size), expected_block(size), expected_thread(size);
  for (int i = 0; i < n; ++i) {
    expected_global[i] = i;
    expected_block[i] = i / block_size;   // block_size elements per block, in order
    expected_thread[i] = i % block_size;  // the position inside that block
  }

  // The guard after each output (1024 ints) is at least one block wide: a missing bounds check in
  // the last block lands in it.
  wb::GuardedDeviceBuffer<int> dglobal(size), dblock(size), dthread(size);
  WB_RUN_LAUNCHER(record_thread_indices(dglobal.data(), dblock.data(), dthread.data(), n, block_size, nullptr));
  WB_REQUIRE_OK(dglobal.check_guards(), "global_index");
  WB_REQUIRE_OK(dblock.check_guards(), "block_index");
  WB_REQUIRE_OK(dthread.check_guards(), "thread_index");
  const wb::Tolerance exact{0, 0};  // integers
  WB_REQUIRE_OK(wb::compare(expected_global, dglobal.download(), exact), "global_index");
  WB_REQUIRE_OK(wb::compare(expected_block, dblock.download(), exact), "block_index");
  WB_REQUIRE_OK(wb::compare(expected_thread, dthread.download(), exact), "thread_index");
}
