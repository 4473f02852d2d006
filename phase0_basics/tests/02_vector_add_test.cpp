// SPDX-License-Identifier: MIT
// Graded tests for 0.02 vector_add: sizes around the block and grid, odd tails for float4,
// poisoned outputs and guard canaries.
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase0_basics/basics.cuh"

namespace {

using Launcher = void (*)(const float*, const float*, float*, std::size_t, cudaStream_t);

void check_vector_add(const char* name, Launcher launch, std::size_t n) {
  const std::uint64_t seed = wb::test::seed();
  INFO(name << " with n = " << n << ", seed " << seed << " (replay with WB_SEED=" << seed << ")");
  const std::vector<float> a = wb::random_floats(n, seed);
  const std::vector<float> b = wb::random_floats(n, seed + 1);
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = a[i] + b[i];

  wb::DeviceBuffer<float> da(a), db(b);
  wb::GuardedDeviceBuffer<float> dc(n);  // poisoned inside, canaries around
  WB_RUN_LAUNCHER(launch(da.data(), db.data(), dc.data(), n, nullptr));
  WB_REQUIRE_OK(dc.check_guards(), name);
  WB_REQUIRE_OK(wb::compare(expected, dc.download(), wb::Tolerance{0, 0}), name);
}

// 0 and 1; around one block (256); a prime; not a multiple of 4 (float4 tail of 1, 2, 3);
// several grid strides of vector_add (its grid is capped near 32 blocks per SM); one large size.
std::vector<std::size_t> vector_sizes() {
  return wb::test::sizes(
      {0, 1, 2, 3, 4, 5, 31, 33, 255, 256, 257, 1000, 4099, 65537, 5'000'003, (std::size_t(1) << 26) + 7});
}

}  // namespace

TEST_CASE("vector_add adds every element for any n, including tails and sizes larger than the grid",
          "[p0][0.02][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(vector_sizes()));
  check_vector_add("vector_add", vector_add, n);
}

TEST_CASE("vector_add_float4 adds every element with 16-byte loads and handles the n % 4 tail", "[p0][0.02][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(vector_sizes()));
  check_vector_add("vector_add_float4", vector_add_float4, n);
}
