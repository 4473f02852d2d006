// SPDX-License-Identifier: MIT
// Graded tests for 0.11 histogram: counts compared exactly with the CPU histogram for n from 0 to
// 64M + 5, data 0 to 3 bytes past a 16-byte boundary (and 4 to 15 bytes past it for n = 17, 4099 and
// 999983: heads of 12 down to 1 bytes), uniformly random, all-equal and two-valued bytes, 1 to 256
// bins, bins poisoned and ringed with canaries, the input between guard bytes (a counted read past
// either end shows), and two calls in a row on the same bins.
#include <cstdint>
#include <vector>

#include "common/testing.h"
#include "phase0_basics/basics.cuh"
#include "phase0_basics/tests/histogram_grading.h"

namespace {

// histogram_256 in the shape the grader takes (histogram_bins'); the grader passes 256 bins.
void histogram_256_graded(const unsigned char* data, std::size_t n, unsigned int* bins, int /*num_bins*/,
                          cudaStream_t stream) {
  histogram_256(data, n, bins, stream);
}

// 0 (no kernel, but 256 zeros) and 1; one 16-byte vector -1, exactly, +1; 255; 4096 + 3 (a tail); a
// prime near a million (many blocks); 64M + 5, where every block loops many times. Sizes past 2^16
// are dropped under the sanitizer.
std::vector<std::size_t> histogram_sizes() {
  return wb::test::sizes({0, 1, 15, 16, 17, 255, 4099, 999983, (std::size_t(64) << 20) + 5});
}

// data at 0, 1, 2 and 3 bytes past a 16-byte boundary: a 16-byte load needs an aligned address, so
// every offset but 0 leaves a head of 15, 14 or 13 bytes before the first whole vector.
const std::vector<std::size_t> kOffsets = {0, 1, 2, 3};

const ByteInput kInputs[] = {ByteInput::Uniform, ByteInput::AllSame, ByteInput::TwoValues};

}  // namespace

TEST_CASE("histogram_256 counts every byte exactly once, for any n and any alignment of data", "[p0][0.11][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(histogram_sizes()));
  const std::uint64_t seed = wb::test::seed();
  for (ByteInput kind : kInputs) check_histogram("histogram_256", histogram_256_graded, kind, n, seed, kOffsets, 256);
}

TEST_CASE("histogram_256 counts the 1 to 12 bytes before data's first 16-byte boundary", "[p0][0.11][gpu]") {
  // data 4 to 15 bytes past a 16-byte boundary: a head of 12 down to 1 bytes before the first whole
  // 16-byte vector (the offsets above leave 13 to 15). A head measured from a 4- or 8-byte boundary
  // instead of a 16-byte one agrees with the right head at offsets 0 to 3, and here leaves the vectors
  // after it misaligned. 17 bytes: head and tail, and one vector at offset 15; 4099: head, vectors and
  // tail; 999983: many blocks (dropped under the sanitizer).
  const std::vector<std::size_t> offsets = {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  const std::uint64_t seed = wb::test::seed();
  for (std::size_t n : wb::test::sizes({17, 4099, 999983}))
    for (ByteInput kind : {ByteInput::Uniform, ByteInput::AllSame})
      check_histogram("histogram_256", histogram_256_graded, kind, n, seed, offsets, 256);
}

TEST_CASE("histogram_bins puts byte v into bin v * num_bins / 256 for 1, 2, 7, 255 and 256 bins", "[p0][0.11][gpu]") {
  const int num_bins = GENERATE(1, 2, 7, 255, 256);
  const std::uint64_t seed = wb::test::seed();
  for (std::size_t n : wb::test::sizes({0, 17, 4099, 999983}))
    for (ByteInput kind : kInputs) check_histogram("histogram_bins", histogram_bins, kind, n, seed, {0, 3}, num_bins);
}

TEST_CASE("histogram_256 and histogram_bins give the same histogram when called twice on the same bins",
          "[p0][0.11][gpu]") {
  // No reset between the calls: bins must be the histogram after each one, not the sum of both.
  const std::uint64_t seed = wb::test::seed();
  for (std::size_t n : wb::test::sizes({0, 1, 4099, 999983})) {
    check_histogram("histogram_256", histogram_256_graded, ByteInput::Uniform, n, seed, {0, 1}, 256, 2);
    check_histogram("histogram_bins", histogram_bins, ByteInput::Uniform, n, seed, {0, 1}, 7, 2);
    check_histogram("histogram_256", histogram_256_graded, ByteInput::AllSame, n, seed, {2}, 256, 2);
  }
}
