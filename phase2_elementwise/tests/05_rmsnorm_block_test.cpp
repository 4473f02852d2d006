// SPDX-License-Identifier: MIT
// Graded tests for 2.05 rmsnorm_block: row lengths around a warp, the float4 and scalar paths (each
// with several warps and with more than one round of loads per thread: 129 and 4097 on the scalar
// one), row counts that fill no block evenly, an all-zero row, rows small enough that eps matters,
// two eps values, random weights, guarded (NaN canary) inputs and outputs.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/testing.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/tests/rowwise_grading.h"

namespace {

constexpr p2::RmsnormLauncher kLaunch = rmsnorm_block;
constexpr const char* kName = "rmsnorm_block";

}  // namespace

TEST_CASE("rmsnorm_block normalizes every row for short, odd and long rows and any row count", "[p2][2.05][gpu]") {
  const p2::RowShape shape = GENERATE(Catch::Generators::from_range(p2::rmsnorm_shapes()));
  const float eps = GENERATE(1e-5f, 1e-6f);
  const std::uint64_t seed = wb::test::seed();
  p2::check_rmsnorm(kName, kLaunch, p2::rmsnorm_input(shape.rows, shape.cols, seed), shape.rows, shape.cols, eps, seed);
}

TEST_CASE("rmsnorm_block maps an all-zero row to zeros, not NaN: eps keeps rsqrt finite", "[p2][2.05][gpu]") {
  const p2::RowShape shape = GENERATE(p2::RowShape{1, 1}, p2::RowShape{2, 33}, p2::RowShape{3, 4096});
  const std::uint64_t seed = wb::test::seed();
  const std::vector<float> zeros(static_cast<std::size_t>(shape.rows) * shape.cols, 0.0f);
  p2::check_rmsnorm(kName, kLaunch, zeros, shape.rows, shape.cols, 1e-5f, seed);
}

TEST_CASE("rmsnorm_block handles a large matrix of 16384 rows of 4096", "[p2][2.05][gpu]") {
  const p2::RowShape shape = wb::test::sanitize_mode() ? p2::RowShape{64, 4096} : p2::RowShape{16384, 4096};
  const std::uint64_t seed = wb::test::seed();
  p2::check_rmsnorm(kName, kLaunch, p2::rmsnorm_input(shape.rows, shape.cols, seed), shape.rows, shape.cols, 1e-5f,
                    seed);
}
