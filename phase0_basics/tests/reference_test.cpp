// SPDX-License-Identifier: MIT
// The phase 0 CPU references grade the kernels, so they are tested on their own (no GPU needed).
#include "phase0_basics/harness/reference.h"

#include <cmath>
#include <vector>

#include "common/testing.h"
#include "phase0_basics/basics.cuh"

TEST_CASE("stencil_reference sums the 2R+1 neighbours with zeros outside the array", "[host][p0]") {
  std::vector<float> w(kStencilWidth, 0.0f);
  w[kStencilRadius] = 1.0f;      // the element itself
  w[kStencilRadius + 1] = 2.0f;  // its right neighbour
  w[0] = 0.5f;                   // R to the left
  const std::vector<float> x = {1, 2, 3, 4, 5};
  std::vector<float> out;
  const double largest = p0::stencil_reference(w, x, out);
  REQUIRE(out.size() == 5);
  CHECK(out[0] == 1 + 2 * 2);             // left neighbours are outside: 0
  CHECK(out[3] == 4 + 2 * 5 + 0.5f * 1);  // x[3 - R] = x[0]
  CHECK(out[4] == 5 + 0 + 0.5f * 2);      // the right neighbour is outside
  CHECK(largest == 4 + 2 * 5 + 0.5 * 1);  // the largest sum of |w * x|
  CHECK(p0::stencil_reference(w, {}, out) == 0.0);
  CHECK(out.empty());
}

TEST_CASE("process_reference applies work fused steps that converge towards 1", "[host][p0]") {
  CHECK(p0::process_reference(0.25f, 0) == 0.25f);
  CHECK(p0::process_reference(0.0f, 1) == kProcessStep);
  CHECK(p0::process_reference(1.0f, 1000) == 1.0f);  // 1 is the fixed point: 1 * (1 - 2^-10) + 2^-10
  const float x = p0::process_reference(-3.0f, 5000);
  CHECK(std::fabs(x - 1.0f) < 0.1f);
}

TEST_CASE("histogram_reference counts bytes into equal-width bins v * num_bins / 256", "[host][p0]") {
  const std::vector<unsigned char> data = {0, 0, 1, 127, 128, 200, 255, 255, 255};
  const std::vector<unsigned int> all = p0::histogram_reference(data.data(), data.size(), 256);
  REQUIRE(all.size() == 256);
  CHECK(all[0] == 2);
  CHECK(all[1] == 1);
  CHECK(all[127] == 1);
  CHECK(all[255] == 3);
  CHECK(all[2] == 0);
  // 2 bins: [0, 128) and [128, 256).
  CHECK(p0::histogram_reference(data.data(), data.size(), 2) == std::vector<unsigned int>{4, 5});
  // 7 bins: 127 * 7 / 256 = 3, 128 * 7 / 256 = 3, 200 * 7 / 256 = 5, 255 * 7 / 256 = 6.
  CHECK(p0::histogram_reference(data.data(), data.size(), 7) == std::vector<unsigned int>{3, 0, 0, 2, 0, 1, 3});
  CHECK(p0::histogram_reference(data.data(), data.size(), 1) == std::vector<unsigned int>{9});
  CHECK(p0::histogram_reference(data.data(), 0, 5) == std::vector<unsigned int>(5, 0u));
}

TEST_CASE("random_bytes is deterministic, covers every value, and honours any length", "[host][p0]") {
  const std::vector<unsigned char> a = p0::random_bytes(100003, 7);
  CHECK(a == p0::random_bytes(100003, 7));
  CHECK(a != p0::random_bytes(100003, 8));
  // Any n, not only multiples of 8: the first bytes do not depend on the length.
  const std::vector<unsigned char> b = p0::random_bytes(13, 7);
  CHECK(std::vector<unsigned char>(a.begin(), a.begin() + 13) == b);
  const std::vector<unsigned int> counts = p0::histogram_reference(a.data(), a.size(), 256);
  for (unsigned int c : counts) CHECK(c > 0);  // about 390 each
}

namespace {

// A 0.11 case over `data` as the judge sees it.
p0::HistogramCase histogram_case(const std::vector<unsigned char>& data, std::size_t offset, int num_bins,
                                 int calls = 1) {
  p0::HistogramCase c;
  c.data = data.data();
  c.n = data.size();
  c.offset = offset;
  c.num_bins = num_bins;
  c.calls = calls;
  c.guard_byte = 0xA5;
  return c;
}

bool says(const std::string& verdict, const std::string& words) {
  INFO("verdict: " << verdict);
  return verdict.find(words) != std::string::npos;
}

}  // namespace

TEST_CASE("judge_histogram names the usual histogram bugs from the counts alone", "[host][p0]") {
  const std::vector<unsigned char> data = p0::random_bytes(4099, 11);  // 256 vectors and a tail of 3
  const p0::HistogramCase c = histogram_case(data, 0, 256);
  const std::vector<unsigned int> expected = p0::histogram_reference(data.data(), data.size(), 256);
  const unsigned int poison = wb::poison_value<unsigned int>();
  CHECK(p0::judge_histogram(c, expected, expected).empty());

  CHECK(says(p0::judge_histogram(c, expected, std::vector<unsigned int>(256, poison)), "Output untouched: all 256"));
  const std::vector<unsigned char> none;
  CHECK(says(p0::judge_histogram(histogram_case(none, 0, 7), std::vector<unsigned int>(7, 0u),
                                 std::vector<unsigned int>(7, poison)),
             "Output untouched: n = 0"));

  std::vector<unsigned int> got = expected;
  for (unsigned int& g : got) g += poison;
  CHECK(says(p0::judge_histogram(c, expected, got), "Bins never zeroed"));
  got = expected;
  for (unsigned int& g : got) g = poison + 2 * g;
  CHECK(says(p0::judge_histogram(histogram_case(data, 0, 256, 2), expected, got), "Bins never zeroed"));
  got = expected;
  for (unsigned int& g : got) g *= 2;
  CHECK(says(p0::judge_histogram(histogram_case(data, 0, 256, 2), expected, got), "Each call added onto the last"));
  CHECK(says(p0::judge_histogram(c, expected, got), "Every count is exactly 2 times"));
  CHECK(says(p0::judge_histogram(c, expected, got), "Lost or double-counted bytes"));

  got.assign(256, 0u);
  CHECK(says(p0::judge_histogram(c, expected, got), "No counts"));
  for (std::size_t b = 0; b + 1 < 256; ++b) got[b + 1] = expected[b];
  CHECK(says(p0::judge_histogram(c, expected, got), "one bin too high"));
  got.assign(256, 0u);
  for (std::size_t b = 0; b + 1 < 256; ++b) got[b] = expected[b + 1];
  CHECK(says(p0::judge_histogram(c, expected, got), "one bin too low"));

  // The tail (3 bytes after the last whole vector) never counted.
  got = p0::histogram_reference(data.data(), 4096, 256);
  CHECK(says(p0::judge_histogram(c, expected, got),
             "Lost or double-counted bytes: the counts sum to 4096, not n = 4099"));
  CHECK(says(p0::judge_histogram(c, expected, got), "The last 3 bytes were never counted"));
  // data 3 bytes past a 16-byte boundary: 13 bytes of head, then 255 vectors and a tail of 6.
  const p0::HistogramCase shifted = histogram_case(data, 3, 256);
  got = p0::histogram_reference(data.data() + 13, data.size() - 13, 256);
  CHECK(says(p0::judge_histogram(shifted, expected, got), "The first 13 bytes were never counted"));
  got = p0::histogram_reference(data.data() + 13, data.size() - 13 - 6, 256);
  CHECK(says(p0::judge_histogram(shifted, expected, got), "The 13 bytes before the first 16-byte boundary and the 6"));
  // Two guard bytes (0xA5) counted.
  got = expected;
  got[0xA5] += 2;
  CHECK(says(p0::judge_histogram(c, expected, got), "2 bytes from outside data[0..n) were counted"));
  // Empty bins left as poison.
  const std::vector<unsigned char> few = {1, 2, 2, 200};
  const std::vector<unsigned int> few_expected = p0::histogram_reference(few.data(), few.size(), 256);
  got = few_expected;
  for (unsigned int& g : got)
    if (g == 0) g = poison;
  CHECK(says(p0::judge_histogram(histogram_case(few, 0, 256), few_expected, got), "no byte falls into"));
  // Counted into v % 7 instead of v * 7 / 256: the sum is right, the bins are not.
  const std::vector<unsigned int> seven = p0::histogram_reference(data.data(), data.size(), 7);
  got.assign(7, 0u);
  for (unsigned char v : data) ++got[v % 7];
  CHECK(says(p0::judge_histogram(histogram_case(data, 0, 7), seven, got), "Wrong bins"));
}
