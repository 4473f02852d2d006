// SPDX-License-Identifier: MIT
// Graded tests for 2.01 relu: sizes around the block and past one pass of the grid, NaN, infinities
// and signed zeros, poisoned outputs, guard canaries around the input and the output.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/reference.h"

namespace {

// relu is a select and rounds nothing, so the GPU must return the reference exactly. compare()
// counts -0.0 and +0.0 as equal (both are max(x, 0) for x = -0.0) and demands NaN where NaN is due.
constexpr wb::Tolerance kExact{0, 0};

// The contract (elementwise.cuh) keeps a NaN as NaN, and so does relu_reference.
float expected_relu(float x) {
  return static_cast<float>(p2::relu_reference(x));
}

void check_relu(const std::vector<float>& in, const std::string& what) {
  const std::size_t n = in.size();
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = expected_relu(in[i]);

  wb::GuardedDeviceBuffer<float> din(n);  // NaN canaries around the input too: a read past the end shows
  din.upload(in);
  wb::GuardedDeviceBuffer<float> dout(n);  // poisoned inside: an element never written is reported as such
  WB_RUN_LAUNCHER(relu(din.data(), dout.data(), n, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), what);
  WB_REQUIRE_OK(din.check_guards(), what + " (its input buffer)");
  WB_REQUIRE_OK(wb::compare(expected, dout.download(), kExact), what);
}

// 0 and 1; float4-unfriendly tails (3, 5) and a multiple of 4; around one block of 256 threads x 4
// elements (1023, 1025); 1M, 1024 blocks; 64M + 3, a partial last block: a grid that does not cover n
// leaves that tail untouched.
std::vector<std::size_t> relu_sizes() {
  return wb::test::sizes({0, 1, 3, 4, 5, 1023, 1025, std::size_t(1) << 20, (std::size_t(1) << 26) + 3});
}

}  // namespace

TEST_CASE("relu zeroes the negatives and keeps the rest for any n, including tails and sizes beyond one grid",
          "[p2][2.01][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(relu_sizes()));
  const std::uint64_t seed = wb::test::seed();
  INFO("relu with n = " << n << ", inputs in [-1, 1), seed " << seed << " (replay with WB_SEED=" << seed << ")");
  check_relu(wb::random_floats(n, seed), "relu");
}

TEST_CASE("relu keeps NaN as NaN, maps -inf to 0 and passes +inf, signed zeros and the extreme floats",
          "[p2][2.01][gpu]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float big = std::numeric_limits<float>::max();
  const float tiny = std::numeric_limits<float>::min();  // the smallest normal float: no flush-to-zero question
  // Both NaN signs: a kernel that tests the sign bit instead of comparing would zero -NaN.
  const std::vector<float> in = {nan, -nan, -inf, inf, -0.0f, 0.0f, big, -big, tiny, -tiny, 1.0f, -1.0f, 0.5f, -0.5f};
  INFO(
      "relu(NaN) must be NaN: fmaxf(NaN, 0.0f) returns 0 and hides the NaN; a select whose NaN case "
      "returns x keeps it. relu(-inf) must be 0: x * (x > 0) gives -inf * 0 = NaN.");
  check_relu(in, "relu on special values (NaN, -NaN, -inf, +inf, -0, +0, +-FLT_MAX, +-FLT_MIN, +-1, +-0.5)");
}
