// SPDX-License-Identifier: MIT
// Graded tests for 3.11 scan: inclusive scans of ints (exact, wrapping modulo 2^32) and floats (exact on
// small integers, within i u sum|in[0..i]| on random floats) for n from 0 to 64M + 3: around a warp,
// around every plausible tile size from 1024 to 8192 elements, a prime near a million, and far more tiles
// than a GPU holds blocks at once (a scan that numbers tiles by blockIdx.x may hang there instead of
// failing: the forward-progress case). The output is poisoned and ringed with canaries, the workspace
// poisoned and guarded, the input sits between guards and must come back unchanged, and two calls in a
// row share one workspace (scan_grading.cpp). And the refusals reduction.cuh promises: in or out off a
// 16-byte boundary, and a workspace of 0 bytes for many tiles, throw std::invalid_argument. in == out
// is not part of the API, so it is not tested.
#include <stdexcept>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase3_reduction/reduction.cuh"
#include "phase3_reduction/tests/scan_grading.h"

TEST_CASE("scan_inclusive gives out[i] = in[0] + ... + in[i] modulo 2^32 for any n", "[p3][3.11][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(scan_test_sizes()));
  for (ScanInput kind : {ScanInput::Ones, ScanInput::RandomInts, ScanInput::WrappingInts})
    check_scan("scan_inclusive", scan_inclusive, kind, n);
}

TEST_CASE("scan_inclusive finishes, right, when the tiles far outnumber the blocks the GPU holds at once",
          "[p3][3.11][gpu]") {
  // 64M + 3 ints: 16K tiles of 4096 elements (64K tiles of 1024) against about a thousand resident
  // blocks on an H100. Dropped under the sanitizer, whose runs keep to small sizes.
  for (std::size_t n : wb::test::sizes({kScanLargeSize}))
    for (ScanInput kind : {ScanInput::Ones, ScanInput::WrappingInts})
      check_scan("scan_inclusive", scan_inclusive, kind, n);
}

TEST_CASE("scan_inclusive called twice on the same workspace scans the second input: nothing stale counts",
          "[p3][3.11][gpu]") {
  for (std::size_t n : wb::test::sizes({1, 4097, 999983, (std::size_t(16) << 20) + 1})) {
    check_scan("scan_inclusive", scan_inclusive, ScanInput::RandomInts, n, 2);
    check_scan("scan_inclusive", scan_inclusive, ScanInput::WrappingInts, n, 2);
  }
}

TEST_CASE("scan_inclusive_float adds in any association within i u sum|in[0..i]|, exactly on small integers",
          "[p3][3.11][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(scan_test_sizes()));
  for (ScanInput kind : {ScanInput::SmallFloats, ScanInput::RandomFloats})
    check_scan("scan_inclusive_float", scan_inclusive_float, kind, n);
}

TEST_CASE("scan_inclusive_float called twice on the same workspace scans the second input", "[p3][3.11][gpu]") {
  for (std::size_t n : wb::test::sizes({4097, 999983})) {
    check_scan("scan_inclusive_float", scan_inclusive_float, ScanInput::SmallFloats, n, 2);
  }
}

// Last in the file: a launcher that does not refuse a misaligned pointer goes on to launch, and the
// fault of a 16-byte access there would fail every GPU test after it in this process.
TEST_CASE("scan_inclusive and scan_inclusive_float refuse a misaligned in or out and a workspace too small",
          "[p3][3.11][gpu]") {
  // 999983 elements are at least two tiles for any tile a block can hold, so every one-pass design
  // keeps some state in the workspace, and 0 bytes is too small for all of them. The buffers are real
  // and large enough: only the pointer's alignment or the workspace's stated size is wrong, so a
  // launcher that checks nothing runs instead of throwing, and the check fails.
  constexpr std::size_t n = 999983;
  wb::DeviceBuffer<int> in_i(std::vector<int>(n + 4, 1)), out_i(n + 4);
  wb::DeviceBuffer<float> in_f(std::vector<float>(n + 4, 1.0f)), out_f(n + 4);
  wb::DeviceBuffer<unsigned char> workspace(scan_workspace_bytes(n));
  const std::size_t bytes = workspace.size();
  CHECK_THROWS_AS(scan_inclusive(in_i.data(), out_i.data(), n, workspace.data(), 0, nullptr), std::invalid_argument);
  CHECK_THROWS_AS(scan_inclusive_float(in_f.data(), out_f.data(), n, workspace.data(), 0, nullptr),
                  std::invalid_argument);
  // 4 bytes past a 16-byte boundary (cudaMalloc's pointer + 1 element), in and out in turn.
  CHECK_THROWS_AS(scan_inclusive(in_i.data() + 1, out_i.data(), n, workspace.data(), bytes, nullptr),
                  std::invalid_argument);
  CHECK_THROWS_AS(scan_inclusive(in_i.data(), out_i.data() + 1, n, workspace.data(), bytes, nullptr),
                  std::invalid_argument);
  CHECK_THROWS_AS(scan_inclusive_float(in_f.data() + 1, out_f.data(), n, workspace.data(), bytes, nullptr),
                  std::invalid_argument);
  CHECK_THROWS_AS(scan_inclusive_float(in_f.data(), out_f.data() + 1, n, workspace.data(), bytes, nullptr),
                  std::invalid_argument);
}
