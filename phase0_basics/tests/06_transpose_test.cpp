// SPDX-License-Identifier: MIT
// Graded tests for 0.06 transpose: shapes smaller than, equal to and just past a 32x32 tile, thin
// and tall matrices, exact comparison (a transpose copies bits), poisoned outputs and guard canaries.
#include <cstddef>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase0_basics/basics.cuh"

namespace {

using Launcher = void (*)(const float*, float*, int, int, cudaStream_t);

void check_transpose(const char* name, Launcher launch, int rows, int cols) {
  const std::uint64_t seed = wb::test::seed();
  INFO(name << " with rows = " << rows << ", cols = " << cols << ", seed " << seed << " (replay with WB_SEED=" << seed
            << ")");
  const std::size_t r_count = static_cast<std::size_t>(rows), c_count = static_cast<std::size_t>(cols);
  const std::vector<float> in = wb::random_floats(r_count * c_count, seed);
  std::vector<float> expected(in.size());
  for (std::size_t r = 0; r < r_count; ++r) {
    for (std::size_t c = 0; c < c_count; ++c) expected[c * r_count + r] = in[r * c_count + c];
  }

  // A plain allocation for the input: compute-sanitizer memcheck flags a load past its end (a
  // missing load guard leaves the output right, since such elements are never stored).
  wb::DeviceBuffer<float> din(in);
  wb::GuardedDeviceBuffer<float> dout(in.size());  // poisoned inside, canaries around
  WB_RUN_LAUNCHER(launch(din.data(), dout.data(), rows, cols, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), name);
  // out is cols x rows: a row of out has `rows` elements, so mismatches print as [row, col] of out.
  WB_REQUIRE_OK(wb::compare(expected, dout.download(), wb::Tolerance{0, 0}, r_count), name);
}

// Single elements, one row, one column; just under, at and just over one 32x32 tile; many tiles
// with partial edge tiles on both sides (257 x 1023); tall and wide strips thinner than a tile;
// one large square. Under the sanitizer only shapes up to 1M elements run.
std::vector<std::pair<int, int>> shapes() {
  const std::vector<std::pair<int, int>> all = {{1, 1},       {1, 33},     {33, 1},   {31, 33},  {32, 32},    {33, 31},
                                                {1000, 1000}, {257, 1023}, {4099, 7}, {7, 4099}, {4096, 4096}};
  std::vector<std::pair<int, int>> chosen;
  for (const auto& s : all) {
    if (!wb::test::sanitize_mode() || static_cast<std::size_t>(s.first) * s.second <= (std::size_t(1) << 20))
      chosen.push_back(s);
  }
  return chosen;
}

}  // namespace

TEST_CASE("transpose_naive transposes every shape, including partial edge tiles", "[p0][0.06][gpu]") {
  const std::pair<int, int> shape = GENERATE(Catch::Generators::from_range(shapes()));
  check_transpose("transpose_naive", transpose_naive, shape.first, shape.second);
}

TEST_CASE("transpose_tiled_no_padding transposes every shape through a shared-memory tile", "[p0][0.06][gpu]") {
  const std::pair<int, int> shape = GENERATE(Catch::Generators::from_range(shapes()));
  check_transpose("transpose_tiled_no_padding", transpose_tiled_no_padding, shape.first, shape.second);
}

TEST_CASE("transpose_tiled transposes every shape through a padded shared-memory tile", "[p0][0.06][gpu]") {
  const std::pair<int, int> shape = GENERATE(Catch::Generators::from_range(shapes()));
  check_transpose("transpose_tiled", transpose_tiled, shape.first, shape.second);
}

TEST_CASE("transpose_tiled handles the tallest matrix gridDim.y allows and rejects a taller one", "[p0][0.06][gpu]") {
  constexpr int kMaxRows = 65535 * 32;  // 65535 row tiles of 32 rows
  if (!wb::test::sanitize_mode()) check_transpose("transpose_tiled", transpose_tiled, kMaxRows, 3);
  wb::DeviceBuffer<float> din(kMaxRows + 1), dout(kMaxRows + 1);
  REQUIRE_THROWS_AS(transpose_tiled(din.data(), dout.data(), kMaxRows + 1, 1, nullptr), std::invalid_argument);
}
