// SPDX-License-Identifier: MIT
// The phase 0 CPU references grade the kernels, so they are tested on their own (no GPU needed).
#include "phase0_basics/reference.h"

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
  const double largest = stencil_reference(w, x, out);
  REQUIRE(out.size() == 5);
  CHECK(out[0] == 1 + 2 * 2);             // left neighbours are outside: 0
  CHECK(out[3] == 4 + 2 * 5 + 0.5f * 1);  // x[3 - R] = x[0]
  CHECK(out[4] == 5 + 0 + 0.5f * 2);      // the right neighbour is outside
  CHECK(largest == 4 + 2 * 5 + 0.5 * 1);  // the largest sum of |w * x|
  CHECK(stencil_reference(w, {}, out) == 0.0);
  CHECK(out.empty());
}

TEST_CASE("process_reference applies work fused steps that converge towards 1", "[host][p0]") {
  CHECK(process_reference(0.25f, 0) == 0.25f);
  CHECK(process_reference(0.0f, 1) == kProcessStep);
  CHECK(process_reference(1.0f, 1000) == 1.0f);  // 1 is the fixed point: 1 * (1 - 2^-10) + 2^-10
  const float x = process_reference(-3.0f, 5000);
  CHECK(std::fabs(x - 1.0f) < 0.1f);
}
