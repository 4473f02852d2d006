// SPDX-License-Identifier: MIT
// Graded tests for 4.07 block_tiled: the phase's matrix suite (converted to pattern blocks), then what
// the block format makes risky: many templates (more than fit in shared memory), packed values that
// are not 16-byte aligned, tiles whose columns span more than the x window (x read directly), and
// rows and columns that are not multiples of 4.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase4_spmv/spmv.cuh"
#include "phase4_spmv/tests/grading.h"

namespace sp = p4::sparse;

namespace {

void run_block_tiled(p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t stream) {
  const BlockTiledMatrix tiled(m.host_pattern_blocks());
  spmv_block_tiled(tiled.view(), x, y, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the device copy dies at the end of this scope
}

std::vector<SpmvCase> block_cases() {
  return {
      {"uniform 3000x3000, 6 per row: scattered blocks, hundreds of templates, unaligned values (seed 51)",
       [] { return sp::random_uniform(3000, 3000, 6, 51); }},
      {"uniform 1001x300001, 3 per row: every tile spans more than the x window (seed 52)",
       [] { return sp::random_uniform(1001, 300001, 3, 52); }},
      {"banded 4099 rows, 1 below and 2 above: diagonal templates, rows not a multiple of 4 (seed 53)",
       [] { return sp::banded(4099, 1, 2, 53); }},
      {"block_fem 3001 nodes, 6 neighbours: dense blocks, several tiles (seed 54)",
       [] { return sp::block_fem(3001, 6, 54); }},
      {"powerlaw 3000x2999, alpha 1.5, rows up to 2999 (seed 55)",
       [] { return sp::power_law(3000, 2999, 1.5, 2999, 55); }},
  };
}

}  // namespace

TEST_CASE("spmv_block_tiled matches the double reference on every matrix of the phase's suite", "[p4][4.07][gpu]") {
  const std::vector<SpmvCase> suite = spmv_suite();
  const int index = GENERATE(Catch::Generators::from_range(spmv_suite_indices()));
  check_spmv("spmv_block_tiled", run_block_tiled, suite[static_cast<std::size_t>(index)]);
}

TEST_CASE("spmv_block_tiled handles many templates, unaligned values, wide tiles and edge blocks", "[p4][4.07][gpu]") {
  const std::vector<SpmvCase> cases = block_cases();
  const int index = GENERATE(0, 1, 2, 3, 4);
  INFO(
      "a lane reads its row of a block through the template's mask and first-value offset; x through the "
      "pre-decoded position, in the tile's shared window or (window length -1) in x itself");
  check_spmv("spmv_block_tiled", run_block_tiled, cases[static_cast<std::size_t>(index)]);
}
