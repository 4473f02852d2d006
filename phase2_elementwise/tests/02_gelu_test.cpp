// SPDX-License-Identifier: MIT
// Graded tests for 2.02 gelu: the tanh GELU against the double reference under a tolerance derived
// from tanhf's error bound, over [-8, 8] (random and a dense grid), at special values (0, +-50,
// +-inf, NaN) and at the usual sizes, with poisoned outputs and guard canaries around the input and
// the output.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/reference.h"

namespace {

// The tolerance, derived. u = 2^-24, a float's unit roundoff; x is exact (it is the input).
//  1. p = 0.044715 x^3 in float: the constant's own rounding plus up to 3 products, <= 4u relative.
//  2. s = x + p: x and p share a sign, so |p| <= |s| and s errs by <= 4u|p| + u|s| <= 5u|s|.
//  3. y = sqrt(2/pi) s: the constant's rounding and one product, so y errs by eta <= 7u relative.
//  4. t = tanhf(y): <= 2 ulp <= 4u|t| <= 4u (CUDA Programming Guide). The error eta|y| in y moves
//     tanh by <= sech^2(y) |y| eta <= 0.448 eta <= 3.2u (y sech^2(y) peaks at 0.448 near y = 0.77).
//     So |t - tanh(exact y)| <= 8u, and 0.5|x| times that is <= 4u|x|.
//  5. 1 + t, then 0.5 x (1 + t): two roundings, <= 2u|gelu|; the reference rounded to float: u|gelu|.
// Bound: |got - gelu(x)| <= 4u|x| + 3u|gelu(x)|. Simulated on the CPU with tanhf pushed 2 ulp off in
// either direction, an fmaf version reaches 0.56 of it and an unfused one with pi = 3.14159f 0.86.
// It is tight enough to catch: 0.0447 for 0.044715 (up to 20x the bound near x = 1.5, a third of
// the points of [-8, 8]), sqrt(2 pi) for sqrt(2/pi), the erf GELU (5e-4 off), tanh.approx (2^-11
// relative) and a missing 0.5.
wb::Tolerance gelu_tolerance(float x) {
  // gelu(-inf) = 0 exactly (either zero; 4u|x| would be an infinite tolerance); +inf must be +inf.
  if (std::isinf(x)) return wb::Tolerance{0.0, 0.0};
  return wb::Tolerance{4.0 * wb::kFloatEpsilon * std::fabs(static_cast<double>(x)), 3.0 * wb::kFloatEpsilon};
}

void check_gelu(const std::vector<float>& in, const std::string& what) {
  const std::size_t n = in.size();
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = static_cast<float>(p2::gelu_tanh_reference(in[i]));

  wb::GuardedDeviceBuffer<float> din(n);  // NaN canaries around the input too: a read past the end shows
  din.upload(in);
  wb::GuardedDeviceBuffer<float> dout(n);  // poisoned inside: an element never written is reported as such
  WB_RUN_LAUNCHER(gelu_tanh(din.data(), dout.data(), n, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), what);
  WB_REQUIRE_OK(din.check_guards(), what + " (its input buffer)");
  const std::vector<float> got = dout.download();
  WB_REQUIRE_OK(wb::compare_each(expected.data(), got.data(), n, [&](std::size_t i) { return gelu_tolerance(in[i]); }),
                what);
}

// 0 and 1; float4-unfriendly tails (3, 5) and a multiple of 4; around one block of 256 threads x 4
// elements (1023, 1025); 1M, 1024 blocks; 64M + 3, a partial last block.
std::vector<std::size_t> gelu_sizes() {
  return wb::test::sizes({0, 1, 3, 4, 5, 1023, 1025, std::size_t(1) << 20, (std::size_t(1) << 26) + 3});
}

}  // namespace

TEST_CASE("gelu_tanh matches the double reference for any n, including tails and sizes beyond one grid",
          "[p2][2.02][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(gelu_sizes()));
  const std::uint64_t seed = wb::test::seed();
  INFO("gelu_tanh with n = " << n << ", inputs in [-8, 8), seed " << seed << " (replay with WB_SEED=" << seed << ")");
  check_gelu(wb::random_floats(n, seed, -8.0f, 8.0f), "gelu_tanh");
}

TEST_CASE("gelu_tanh uses the right constants and tanhf on every point of a 1/512 grid over [-8, 8]",
          "[p2][2.02][gpu]") {
  std::vector<float> in;
  for (int k = -8 * 512; k <= 8 * 512; ++k) in.push_back(static_cast<float>(k) / 512.0f);  // exact in float
  INFO(
      "Tolerance 4u|x| + 3u|gelu(x)| (u = 2^-24), from tanhf's 2-ulp bound. Misses only in the curved middle "
      "usually mean a constant (sqrt(2/pi) = 0.7978845608, 0.044715); misses nearly everywhere, the wrong "
      "formula (erf instead of tanh, a missing 0.5) or a fast tanh (tanh.approx, __tanhf, --use_fast_math).");
  check_gelu(in, "gelu_tanh on the grid k/512, k = -4096..4096");
}

TEST_CASE("gelu_tanh is 0 (not NaN) for large negative x and -inf, x for large positive x and +inf, and keeps NaN",
          "[p2][2.02][gpu]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> in = {0.0f,   -0.0f,  50.0f,   -50.0f, nan,   8.0f, -8.0f, 1e-3f,
                                 -1e-3f, 1e-30f, -1e-30f, 1.0f,   -1.0f, -inf, inf,   -1e30f};
  INFO(
      "gelu(-50) is 0.5 * -50 * (1 + tanh(-4500)) = 0: tanhf saturates at -1. A tanh built from exponentials, "
      "(e^2y - 1) / (e^2y + 1), gives inf / inf = NaN at y = +4500, so gelu(50) is NaN. gelu(-inf) must be 0, "
      "its limit, as elementwise.cuh says: the formula itself gives 0.5 * -inf * (1 + tanh(-inf)) = -inf * 0 = "
      "NaN there, so a NaN at -inf means the kernel applied the formula as written. gelu(+inf) is +inf.");
  check_gelu(in, "gelu_tanh on special values (+-0, +-50, +-inf, -1e30, NaN, +-8, +-1e-3, +-1e-30, +-1)");
}
