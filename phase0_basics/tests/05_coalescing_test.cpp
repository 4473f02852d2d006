// SPDX-License-Identifier: MIT
// Graded tests for 0.05 coalescing: both mappings must give out[r][c] = in[r][c] * s exactly, for
// single rows and columns, shapes that are not multiples of the block, tall and wide matrices.
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase0_basics/basics.cuh"

namespace {

using Launcher = void (*)(const float*, float*, int, int, float, cudaStream_t);

struct Shape {
  int rows;
  int cols;
};

// A single element, row and column; 31 x 33 (neither a multiple of 32 nor square); square; 257 x 1023
// (a prime: one row past a block, and one column short of four blocks); tall and wide; one large size.
std::vector<Shape> shapes() {
  const std::vector<Shape> all = {{1, 1},      {1, 33},   {33, 1},   {31, 33},    {1000, 1000},
                                  {257, 1023}, {4096, 3}, {3, 4096}, {2048, 2048}};
  std::vector<Shape> chosen;
  for (const Shape& shape : all) {
    const std::size_t count = static_cast<std::size_t>(shape.rows) * static_cast<std::size_t>(shape.cols);
    if (!wb::test::sanitize_mode() || count <= (std::size_t(1) << 20)) chosen.push_back(shape);
  }
  return chosen;
}

void check_scale(const char* name, Launcher launch, Shape shape) {
  const std::uint64_t seed = wb::test::seed();
  INFO(name << " with rows = " << shape.rows << ", cols = " << shape.cols << ", seed " << seed
            << " (replay with WB_SEED=" << seed << ")");
  const std::size_t count = static_cast<std::size_t>(shape.rows) * static_cast<std::size_t>(shape.cols);
  wb::Rng rng(seed);
  const float s = rng.uniform(0.5f, 2.0f);  // not 1: a plain copy must fail
  const std::vector<float> in = wb::random_floats(count, seed + 1);
  std::vector<float> expected(count);
  for (std::size_t i = 0; i < count; ++i) expected[i] = in[i] * s;

  wb::DeviceBuffer<float> din(in);
  wb::GuardedDeviceBuffer<float> dout(count);  // poisoned inside, canaries around
  WB_RUN_LAUNCHER(launch(din.data(), dout.data(), shape.rows, shape.cols, s, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), name);
  // Exact: one float multiply, rounded the same way on the CPU and the GPU. Mismatches print as [row, col].
  WB_REQUIRE_OK(wb::compare(expected, dout.download(), wb::Tolerance{0, 0}, static_cast<std::size_t>(shape.cols)),
                name);
}

}  // namespace

TEST_CASE("scale_row_per_thread scales every element of any shape, one thread per row", "[p0][0.05][gpu]") {
  const Shape shape = GENERATE(Catch::Generators::from_range(shapes()));
  check_scale("scale_row_per_thread", scale_row_per_thread, shape);
}

TEST_CASE("scale_column_per_thread scales every element of any shape, one thread per column", "[p0][0.05][gpu]") {
  const Shape shape = GENERATE(Catch::Generators::from_range(shapes()));
  check_scale("scale_column_per_thread", scale_column_per_thread, shape);
}
