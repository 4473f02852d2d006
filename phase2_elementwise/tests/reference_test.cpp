// SPDX-License-Identifier: MIT
// The phase 2 CPU references grade every kernel of the phase, so they are tested on their own.
#include "phase2_elementwise/reference.h"

#include <cmath>
#include <limits>
#include <vector>

#include "common/testing.h"

TEST_CASE("relu and the tanh GELU match known values", "[host][p2]") {
  CHECK(relu_reference(-2.0) == 0.0);
  CHECK(relu_reference(3.5) == 3.5);
  CHECK(std::isnan(relu_reference(std::nan(""))));  // a ReLU keeps NaN
  CHECK(gelu_tanh_reference(0.0) == 0.0);
  CHECK(std::fabs(gelu_tanh_reference(1.0) - 0.8411919906) < 1e-9);  // tanh-form GELU(1)
  CHECK(std::fabs(gelu_tanh_reference(-1.0) + 0.1588080094) < 1e-9);
  CHECK(std::fabs(gelu_tanh_reference(10.0) - 10.0) < 1e-12);  // ~identity for large x
  CHECK(std::fabs(gelu_tanh_reference(-10.0)) < 1e-12);        // ~0 for very negative x
}

TEST_CASE("rmsnorm divides by the root mean square plus eps, and maps a zero row to zeros", "[host][p2]") {
  const std::vector<float> in = {3, 4, 0, 0};  // 2 rows of 2: rms of row 0 = sqrt(12.5)
  const std::vector<float> weight = {1, 2};
  const std::vector<double> out = rmsnorm_reference(in, weight, 2, 2, 0.0f);
  CHECK(std::fabs(out[0] - 3 / std::sqrt(12.5)) < 1e-12);
  CHECK(std::fabs(out[1] - 8 / std::sqrt(12.5)) < 1e-12);
  const std::vector<double> zero_row = rmsnorm_reference(in, weight, 2, 2, 1e-5f);
  CHECK(zero_row[2] == 0.0);
  CHECK(zero_row[3] == 0.0);
}

TEST_CASE("softmax is stable for large values, gives 0 for -inf and rows summing to 1", "[host][p2]") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> in = {1000, -1000, 1000, 0, -inf, 0};
  const std::vector<double> out = softmax_reference(in, 2, 3);
  CHECK(std::fabs(out[0] - 0.5) < 1e-15);
  CHECK(out[1] == 0.0);
  CHECK(std::fabs(out[2] - 0.5) < 1e-15);
  CHECK(std::fabs(out[3] - 0.5) < 1e-15);
  CHECK(out[4] == 0.0);
  CHECK(std::fabs(out[0] + out[1] + out[2] - 1.0) < 1e-15);
}
