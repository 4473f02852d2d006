// SPDX-License-Identifier: MIT
// The GEMM reference and the tolerance rule grade every rung, so they are tested on their own.
#include "phase1_matmul/reference.h"

#include <cmath>
#include <vector>

#include "common/testing.h"

TEST_CASE("gemm_reference_cpu computes alpha A B + beta C on row-major data", "[host][p1]") {
  // A = [1 2 3; 4 5 6] (2x3), B = [1 0; 0 1; 1 1] (3x2), C = [1 1; 1 1].
  const std::vector<float> A = {1, 2, 3, 4, 5, 6}, B = {1, 0, 0, 1, 1, 1}, C = {1, 1, 1, 1};
  std::vector<double> out, magnitude;
  gemm_reference_cpu(2, 2, 3, 2.0f, A, B, -1.0f, C, out, magnitude);
  // A B = [4 5; 10 11]; 2 A B - C = [7 9; 19 21].
  CHECK(out == std::vector<double>{7, 9, 19, 21});
  CHECK(magnitude == std::vector<double>{9, 11, 21, 23});  // 2 |A||B| + |C|
}

TEST_CASE("gemm_reference_cpu never reads C when beta is 0, and K = 0 gives beta C", "[host][p1]") {
  const std::vector<float> A = {1, 2}, B = {3, 4};
  const std::vector<float> nan_c = {std::nanf(""), std::nanf(""), std::nanf(""), std::nanf("")};
  std::vector<double> out, magnitude;
  gemm_reference_cpu(2, 2, 1, 1.0f, A, B, 0.0f, nan_c, out, magnitude);
  CHECK(out == std::vector<double>{3, 4, 6, 8});
  gemm_reference_cpu(1, 2, 0, 1.0f, {}, {}, 0.5f, {2, 4}, out, magnitude);
  CHECK(out == std::vector<double>{1, 2});
}

TEST_CASE("the GEMM tolerance is (K + 2) u magnitude, plus TF32 input rounding", "[host][p1]") {
  const double u = std::ldexp(1.0, -24);
  CHECK(std::fabs(gemm_tolerance(1000, 250.0, MatmulPrecision::FP32).abs - 1002 * u * 250.0) < 1e-12);
  const double tf32 = gemm_tolerance(1000, 250.0, MatmulPrecision::TF32).abs;
  CHECK(std::fabs(tf32 - (1002 * u + 2 * std::ldexp(1.0, -11)) * 250.0) < 1e-12);
  // It must hold for a real float dot product, and reject a missing term of typical size.
  std::vector<float> a = {}, b = {};
  for (int i = 0; i < 4096; ++i) {
    a.push_back(static_cast<float>((i * 37 % 200) - 100) / 97.0f);
    b.push_back(static_cast<float>((i * 91 % 200) - 100) / 89.0f);
  }
  float f = 0;
  double d = 0, mag = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    f = std::fma(a[i], b[i], f);
    d += double(a[i]) * b[i];
    mag += std::fabs(double(a[i]) * b[i]);
  }
  const double tol = gemm_tolerance(4096, mag, MatmulPrecision::FP32).abs;
  CHECK(std::fabs(f - d) <= tol);
  CHECK(std::fabs(double(a[7]) * b[7]) > tol);  // dropping one term would be caught
}

TEST_CASE("small-integer inputs make every summation order exact", "[host][p1]") {
  const std::vector<float> v = random_small_integers(1 << 16, 3);
  float forward = 0, backward = 0;
  for (float x : v) {
    REQUIRE(x == std::round(x));
    REQUIRE(std::fabs(x) <= 2.0f);
    forward += x * x;
  }
  for (auto it = v.rbegin(); it != v.rend(); ++it) backward += *it * *it;
  CHECK(forward == backward);
}
