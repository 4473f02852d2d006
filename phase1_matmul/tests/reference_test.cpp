// SPDX-License-Identifier: MIT
// The GEMM reference and the tolerance rule grade every rung, so they are tested on their own.
#include "phase1_matmul/harness/reference.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/data.h"
#include "common/testing.h"

TEST_CASE("gemm_reference_cpu computes alpha A B + beta C on row-major data", "[host][p1]") {
  // A = [1 2 3; 4 5 6] (2x3), B = [1 0; 0 1; 1 1] (3x2), C = [1 1; 1 1].
  const std::vector<float> A = {1, 2, 3, 4, 5, 6}, B = {1, 0, 0, 1, 1, 1}, C = {1, 1, 1, 1};
  std::vector<double> out, magnitude;
  p1::gemm_reference_cpu(2, 2, 3, 2.0f, A, B, -1.0f, C, out, magnitude);
  // A B = [4 5; 10 11]; 2 A B - C = [7 9; 19 21].
  CHECK(out == std::vector<double>{7, 9, 19, 21});
  CHECK(magnitude == std::vector<double>{9, 11, 21, 23});  // 2 |A||B| + |C|
}

TEST_CASE("gemm_reference_cpu never reads C when beta is 0, and K = 0 gives beta C", "[host][p1]") {
  const std::vector<float> A = {1, 2}, B = {3, 4};
  const std::vector<float> nan_c = {std::nanf(""), std::nanf(""), std::nanf(""), std::nanf("")};
  std::vector<double> out, magnitude;
  p1::gemm_reference_cpu(2, 2, 1, 1.0f, A, B, 0.0f, nan_c, out, magnitude);
  CHECK(out == std::vector<double>{3, 4, 6, 8});
  p1::gemm_reference_cpu(1, 2, 0, 1.0f, {}, {}, 0.5f, {2, 4}, out, magnitude);
  CHECK(out == std::vector<double>{1, 2});
}

TEST_CASE("the GEMM tolerance is (K + 2) u magnitude, plus TF32 input rounding", "[host][p1]") {
  const double u = std::ldexp(1.0, -24);
  CHECK(std::fabs(p1::gemm_tolerance(1000, 250.0, p1::MatmulPrecision::FP32).abs - 1002 * u * 250.0) < 1e-12);
  const double tf32 = p1::gemm_tolerance(1000, 250.0, p1::MatmulPrecision::TF32).abs;
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
  const double tol = p1::gemm_tolerance(4096, mag, p1::MatmulPrecision::FP32).abs;
  CHECK(std::fabs(f - d) <= tol);
  CHECK(std::fabs(double(a[7]) * b[7]) > tol);  // dropping one term would be caught
}

TEST_CASE("small-integer inputs make every summation order exact", "[host][p1]") {
  const std::vector<float> v = p1::random_small_integers(1 << 16, 3);
  float forward = 0, backward = 0;
  for (float x : v) {
    REQUIRE(x == std::round(x));
    REQUIRE(std::fabs(x) <= 2.0f);
    forward += x * x;
  }
  for (auto it = v.rbegin(); it != v.rend(); ++it) backward += *it * *it;
  CHECK(forward == backward);
}

// ---- the BF16 rungs ------------------------------------------------------------------------------

TEST_CASE("gemm_nt_reference_cpu multiplies by B transposed (B stored N x K)", "[host][p1]") {
  // A = [1 2 3; 4 5 6] (2x3); B = [1 0 1; 0 1 1] (2x3, so B^T = [1 0; 0 1; 1 1]), C = [1 1; 1 1].
  const std::vector<float> A = {1, 2, 3, 4, 5, 6}, B = {1, 0, 1, 0, 1, 1}, C = {1, 1, 1, 1};
  std::vector<double> out, magnitude;
  p1::gemm_nt_reference_cpu(2, 2, 3, 2.0f, A, B, -1.0f, C, out, magnitude);
  CHECK(out == std::vector<double>{7, 9, 19, 21});  // the same product as the row-major test above
  CHECK(magnitude == std::vector<double>{9, 11, 21, 23});
  const std::vector<float> nan_c(4, std::nanf(""));
  p1::gemm_nt_reference_cpu(2, 2, 3, 1.0f, A, B, 0.0f, nan_c, out, magnitude);  // beta = 0 never reads C
  CHECK(out == std::vector<double>{4, 5, 10, 11});
  p1::gemm_nt_reference_cpu(1, 2, 0, 1.0f, {}, {}, 0.5f, {2, 4}, out, magnitude);  // K = 0: beta C
  CHECK(out == std::vector<double>{1, 2});
}

namespace {

// The tensor-core addition that Fasi et al. (2021) measured, in double (where every step here is
// exact): products exact; the accumulator and a block of products aligned to the largest exponent and
// truncated to FP32's 24 bits; the sum normalized to 24 bits, truncating again.
double truncate_to_multiple(double x, double ulp) {
  return std::trunc(x / ulp) * ulp;
}
double truncate_to_fp32(double x) {
  if (x == 0) return 0;
  int e = 0;
  std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  return truncate_to_multiple(x, std::ldexp(1.0, e - 24));
}
double tensor_core_dot(const std::vector<float>& a, const std::vector<float>& b, std::size_t block) {
  double acc = 0;
  for (std::size_t k0 = 0; k0 < a.size(); k0 += block) {
    const std::size_t k1 = std::min(a.size(), k0 + block);
    double largest = std::fabs(acc);
    for (std::size_t k = k0; k < k1; ++k) largest = std::max(largest, std::fabs(double(a[k]) * b[k]));
    if (largest == 0) continue;
    int e = 0;
    std::frexp(largest, &e);
    const double ulp = std::ldexp(1.0, e - 24);
    double sum = truncate_to_multiple(acc, ulp);
    for (std::size_t k = k0; k < k1; ++k) sum += truncate_to_multiple(double(a[k]) * b[k], ulp);
    acc = truncate_to_fp32(sum);
  }
  return acc;
}
// An FP32 running sum whose every addition truncates (round toward zero).
double truncating_fp32_dot(const std::vector<float>& a, const std::vector<float>& b) {
  double acc = 0;
  for (std::size_t k = 0; k < a.size(); ++k) acc = truncate_to_fp32(acc + double(a[k]) * b[k]);
  return acc;
}

}  // namespace

TEST_CASE("the BF16 tolerance is 2u (K + ceil(K/4) + 2) magnitude", "[host][p1]") {
  const double u = std::ldexp(1.0, -24);
  CHECK(std::fabs(p1::gemm_tolerance(1000, 250.0, p1::MatmulPrecision::BF16).abs - 2 * u * (1000 + 250 + 2) * 250.0) <
        1e-12);
  CHECK(std::fabs(p1::gemm_tolerance(13, 1.0, p1::MatmulPrecision::BF16).abs - 2 * u * (13 + 4 + 2)) < 1e-15);
  CHECK(std::fabs(p1::gemm_tolerance(0, 1.0, p1::MatmulPrecision::BF16).abs - 4 * u) < 1e-15);  // K = 0: the epilogue
}

TEST_CASE("the BF16 tolerance holds for truncating tensor-core sums and catches a dropped term", "[host][p1]") {
  const int K = 1024;
  const std::vector<float> a = wb::rounded_to_bf16(wb::random_floats(K, 11)),
                           b = wb::rounded_to_bf16(wb::random_floats(K, 12));
  double exact = 0, magnitude = 0, largest_term = 0;
  for (int k = 0; k < K; ++k) {
    exact += double(a[k]) * b[k];
    magnitude += std::fabs(double(a[k]) * b[k]);
    largest_term = std::max(largest_term, std::fabs(double(a[k]) * b[k]));
  }
  const double tol = p1::gemm_tolerance(K, magnitude, p1::MatmulPrecision::BF16).abs;
  for (std::size_t block : {1, 4, 8, 16, 32}) {
    CAPTURE(block);
    CHECK(std::fabs(tensor_core_dot(a, b, block) - exact) <= tol);
  }
  CHECK(std::fabs(truncating_fp32_dot(a, b) - exact) <= tol);
  CHECK(largest_term > tol);  // a kernel that drops the largest term fails

  // The worst case for truncation: a large first term and many terms just under its ulp, each lost
  // whole. That error passes round-to-nearest's (K + 2) u bound, and stays inside ours.
  std::vector<float> big_a(K, 1.5f * std::ldexp(1.0f, -12)), big_b(K, std::ldexp(1.0f, -12));
  big_a[0] = big_b[0] = 1.0f;
  double worst_exact = 0, worst_magnitude = 0;
  for (int k = 0; k < K; ++k) {
    worst_exact += double(big_a[k]) * big_b[k];
    worst_magnitude += std::fabs(double(big_a[k]) * big_b[k]);
  }
  for (std::size_t block : {4, 8, 16}) {
    CAPTURE(block);
    const double error = std::fabs(tensor_core_dot(big_a, big_b, block) - worst_exact);
    CHECK(error > p1::gemm_tolerance(K, worst_magnitude, p1::MatmulPrecision::FP32).abs);
    CHECK(error <= p1::gemm_tolerance(K, worst_magnitude, p1::MatmulPrecision::BF16).abs);
  }
}

TEST_CASE("small-integer inputs stay exact in BF16 and under truncating sums", "[host][p1]") {
  const int K = 4096;
  const std::vector<float> a = p1::random_small_integers(K, 5), b = p1::random_small_integers(K, 6);
  CHECK(wb::rounded_to_bf16(a) == a);  // exact in BF16
  double exact = 0;
  for (int k = 0; k < K; ++k) exact += double(a[k]) * b[k];
  for (std::size_t block : {1, 4, 8, 16}) CHECK(tensor_core_dot(a, b, block) == exact);
  CHECK(truncating_fp32_dot(a, b) == exact);
}
