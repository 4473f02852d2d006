// SPDX-License-Identifier: MIT
// Graded tests for 0.03 matrix_2d: shapes that are not multiples of the 32 x 8 block, non-square
// shapes both ways, a matrix taller than one grid can cover (gridDim.y <= 65535), poisoned outputs
// and guard canaries. Failures print [row, col].
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase0_basics/basics.cuh"

namespace {

struct Shape {
  int rows;
  int cols;
};

// Beyond this many rows the launcher's grid (32 x 8 blocks, about 4 rows per thread) would need more
// than 65535 blocks in y: only the cap plus the kernel's row loop covers them.
constexpr int kGridYRows = 65535 * 8 * 4;

// 1x1; one row and one column that are one past a warp; neither dimension a multiple of the block;
// square and non-square; tall (beyond 65535 * 8 rows) and taller (beyond 65535 * 32); a wide matrix;
// one large square.
std::vector<Shape> shapes() {
  const std::vector<Shape> all = {{1, 1},      {1, 33},     {33, 1},      {31, 33},    {1000, 1000},
                                  {257, 1023}, {600000, 3}, {2100001, 3}, {3, 600000}, {4096, 4096}};
  std::vector<Shape> chosen;
  // Under compute-sanitizer keep the small shapes, and the tallest: the only test of the capped grid.
  for (const Shape& s : all)
    if (!wb::test::sanitize_mode() || static_cast<std::size_t>(s.rows) * s.cols <= (1 << 16) || s.rows > kGridYRows)
      chosen.push_back(s);
  return chosen;
}

}  // namespace

TEST_CASE("matrix_scale_bias scales and biases every element of any shape, even beyond 65535 block rows",
          "[p0][0.03][gpu]") {
  const Shape shape = GENERATE(Catch::Generators::from_range(shapes()));
  const int rows = shape.rows, cols = shape.cols;
  const std::uint64_t seed = wb::test::seed();
  INFO("matrix_scale_bias on " << rows << " x " << cols << ", seed " << seed << " (replay with WB_SEED=" << seed
                               << ")");
  const std::string tall_note =
      rows > kGridYRows ? "rows > 65535 * 32: ceil_div(rows, 32) blocks in y pass the gridDim.y limit of 65535 (the "
                          "launch fails with 'invalid argument'), so cap the grid's height; the row loop does the rest"
                        : "";
  INFO(tall_note);

  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  const float scale = 1.5f;  // not a power of two: the product rounds
  const std::vector<float> in = wb::random_floats(count, seed);
  const std::vector<float> bias = wb::random_floats(static_cast<std::size_t>(cols), seed + 1);
  std::vector<float> expected(count);
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r)
    for (std::size_t c = 0; c < static_cast<std::size_t>(cols); ++c)
      expected[r * cols + c] = std::fma(in[r * cols + c], scale, bias[c]);  // one rounding, like the GPU's FMA

  // A release build fuses in * scale + bias into one FMA and matches the reference bit for bit. Without
  // fusion (a -G debug build) the product is rounded first: at most u * |in * scale| <= u * |scale| more
  // (|in| <= 1, u = 2^-24), plus u * |result| from the final rounding. Allow twice that; a wrong element,
  // a wrong bias column or a missing scale is off by far more.
  const wb::Tolerance tol{2.0 * wb::kFloatEpsilon * std::fabs(scale), 3.0 * wb::kFloatEpsilon};

  wb::DeviceBuffer<float> din(in), dbias(bias);
  wb::GuardedDeviceBuffer<float> dout(count);  // poisoned inside, canaries around
  WB_RUN_LAUNCHER(matrix_scale_bias(din.data(), dbias.data(), dout.data(), rows, cols, scale, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), "matrix_scale_bias");
  WB_REQUIRE_OK(wb::compare(expected, dout.download(), tol, static_cast<std::size_t>(cols)), "matrix_scale_bias");
}
