// SPDX-License-Identifier: MIT
// Graded tests for 2.06 rmsnorm_warp: row lengths around a warp (lanes with nothing to sum must
// still shuffle), the float4 and scalar paths, row counts that fill no block of 8 warps evenly, an
// all-zero row, rows small enough that eps matters, two eps values, random weights, guarded (NaN
// canary) inputs and outputs.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/reference.h"

namespace {

using Launcher = void (*)(const float*, const float*, float*, int, int, float, cudaStream_t);

struct Shape {
  int rows;
  int cols;
};

// Row r of the input: random in [-1, 1]; the middle row (when rows > 1) all zeros, which must give
// zeros (rsqrt(0 + eps) is finite; without eps it is inf and 0 * inf = NaN); every third other row
// scaled by 1e-3, so its mean square (~3e-7) sits below eps and a missing or hard-wired eps is off
// by a factor 2 to 6 there.
std::vector<float> make_input(int rows, int cols, std::uint64_t seed) {
  std::vector<float> in = wb::random_floats(static_cast<std::size_t>(rows) * cols, seed);
  for (int r = 0; r < rows; ++r) {
    float* row = &in[static_cast<std::size_t>(r) * cols];
    const bool zero = rows > 1 && r == rows / 2;
    const bool tiny = r % 3 == 1;
    for (int c = 0; c < cols; ++c) row[c] = zero ? 0.0f : tiny ? row[c] * 1e-3f : row[c];
  }
  return in;
}

// The tolerance, relative, from the float operations of any correct kernel (u = 2^-24):
//   the sum of cols squares: each square rounds (u), any order of adding cols positive terms errs by
//   at most (cols - 1) u of the sum, so the sum is off by < cols u relative;
//   / cols and + eps: 2 u; rsqrtf: at most 2 ulp = 4 u; rsqrt halves the relative error of its
//   argument; x * inv_rms * weight: 2 u.
// In all < (cols / 2 + 8) u; (cols + 16) u leaves a factor 2 for a tree vs a sequential sum and
// still catches a sum instead of a mean (off by sqrt(cols)), a missing weight (random in [-2, 2]),
// a missing eps (the zero row gives NaN, the tiny rows are off by 2x or more). A skipped element
// stays poisoned (its output is never written); a read past the row's end meets the next row (one
// extra square in a short row: about 1 / cols relative, over the bound up to ~2000 columns) or, in
// the last row, a NaN canary.
wb::Tolerance rmsnorm_tolerance(int cols) { return {0.0, (static_cast<double>(cols) + 16.0) * wb::kFloatEpsilon}; }

void check_rmsnorm(const char* name, Launcher launch, const std::vector<float>& in, int rows, int cols, float eps,
                   std::uint64_t seed) {
  INFO(name << " on " << rows << " x " << cols << " with eps = " << eps << ", seed " << seed
            << " (replay with WB_SEED=" << seed << ")");
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  const std::vector<float> weight = wb::random_floats(static_cast<std::size_t>(cols), seed + 1, -2.0f, 2.0f);
  const std::vector<double> exact = rmsnorm_reference(in, weight, rows, cols, eps);
  const std::vector<float> expected(exact.begin(), exact.end());

  // Inputs in guarded buffers too: a read past the end of a row meets a NaN canary and shows.
  wb::GuardedDeviceBuffer<float> din(count), dweight(static_cast<std::size_t>(cols));
  din.upload(in);
  dweight.upload(weight);
  wb::GuardedDeviceBuffer<float> dout(count);  // poisoned inside, canaries around
  WB_RUN_LAUNCHER(launch(din.data(), dweight.data(), dout.data(), rows, cols, eps, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), name);
  WB_REQUIRE_OK(wb::compare(expected, dout.download(), rmsnorm_tolerance(cols), static_cast<std::size_t>(cols)), name);
}

// Row lengths 1, 31, 32, 33 (lanes with no element, one per lane, one lane with two), 1000 and 4096
// (float4), 10000 and 20000 (float4, many steps per lane, the last one partial); row counts 1, 3, 5,
// 7 and 37 leave warps of the last block past the last row (they must write nothing); 1000 x 1 is
// 125 full blocks of one-float rows.
std::vector<Shape> shapes() {
  return {{1, 1}, {3, 31}, {37, 32}, {5, 33}, {1000, 1}, {7, 1000}, {37, 4096}, {3, 10000}, {3, 20000}, {1000, 1000}};
}

constexpr Launcher kLaunch = rmsnorm_warp;
constexpr const char* kName = "rmsnorm_warp";

}  // namespace

TEST_CASE("rmsnorm_warp normalizes every row for short, odd and long rows and any row count", "[p2][2.06][gpu]") {
  const Shape shape = GENERATE(Catch::Generators::from_range(shapes()));
  const float eps = GENERATE(1e-5f, 1e-6f);
  const std::uint64_t seed = wb::test::seed();
  check_rmsnorm(kName, kLaunch, make_input(shape.rows, shape.cols, seed), shape.rows, shape.cols, eps, seed);
}

TEST_CASE("rmsnorm_warp maps an all-zero row to zeros, not NaN: eps keeps rsqrt finite", "[p2][2.06][gpu]") {
  const Shape shape = GENERATE(Shape{1, 1}, Shape{2, 33}, Shape{3, 4096});
  const std::uint64_t seed = wb::test::seed();
  const std::vector<float> zeros(static_cast<std::size_t>(shape.rows) * shape.cols, 0.0f);
  check_rmsnorm(kName, kLaunch, zeros, shape.rows, shape.cols, 1e-5f, seed);
}

TEST_CASE("rmsnorm_warp handles a large matrix of 16384 rows of 4096", "[p2][2.06][gpu]") {
  const Shape shape = wb::test::sanitize_mode() ? Shape{64, 4096} : Shape{16384, 4096};
  const std::uint64_t seed = wb::test::seed();
  check_rmsnorm(kName, kLaunch, make_input(shape.rows, shape.cols, seed), shape.rows, shape.cols, 1e-5f, seed);
}
