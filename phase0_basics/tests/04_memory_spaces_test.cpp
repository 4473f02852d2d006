// SPDX-License-Identifier: MIT
// Graded tests for 0.04 memory_spaces: a 7-point stencil whose weights live in constant memory
// and whose inputs are staged in a shared tile with halos. Sizes around the block (256) and
// below the radius, inputs with NaN canaries on both sides (a missing zero halo reads them),
// poisoned outputs with guards, and weights replaced between calls.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase0_basics/basics.cuh"
#include "phase0_basics/harness/reference.h"

namespace {

// Summing 2R + 1 products in any order (with or without fma) errs by at most (2R + 1) * u * sum |w * x|
// (Jeannerod and Rump, 2013). The GPU and the reference may each be off by that much, so the bound is
// doubled. It is ~1e-5 here, while a missing, shifted or stale term changes an output by ~|w * x| ~ 0.3.
wb::Tolerance stencil_tolerance(double largest) {
  return wb::Tolerance{2.0 * kStencilWidth * wb::kFloatEpsilon * largest, 0.0};
}

// Runs stencil_1d on x with the weights set earlier and compares with the reference for w.
void check_stencil(const char* what, const std::vector<float>& w, const std::vector<float>& x) {
  const std::size_t n = x.size();
  std::vector<float> expected;
  const wb::Tolerance tol = stencil_tolerance(p0::stencil_reference(w, x, expected));
  // The input sits between NaN canaries: a kernel that reads in[-1] or in[n] instead of using 0
  // produces NaN outputs, which compare() reports as "read past the end of an input".
  wb::GuardedDeviceBuffer<float> din(n);
  din.upload(x);
  wb::GuardedDeviceBuffer<float> dout(n);  // poisoned inside, canaries around
  WB_RUN_LAUNCHER(stencil_1d(din.data(), dout.data(), n, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), what);
  WB_REQUIRE_OK(wb::compare(expected, dout.download(), tol), what);
}

}  // namespace

TEST_CASE("stencil_1d sums 7 weighted neighbours with zeros outside the input, for any n", "[p0][0.04][gpu]") {
  // 0; fewer elements than the radius and than the stencil; around one warp and one block; a prime;
  // 257 (the last block holds 1 element, fewer than the radius); one large size.
  const std::size_t n = GENERATE(Catch::Generators::from_range(
      wb::test::sizes({0, 1, 2, 3, 4, 5, 6, 7, 31, 33, 255, 256, 257, 1000, 100003, (std::size_t(1) << 24) + 5})));
  const std::uint64_t seed = wb::test::seed();
  INFO("stencil_1d with n = " << n << ", seed " << seed << " (replay with WB_SEED=" << seed << ")");
  const std::vector<float> w = wb::random_floats(kStencilWidth, seed);
  const std::vector<float> x = wb::random_floats(n, seed + 1);
  WB_RUN_LAUNCHER(set_stencil_weights(w.data(), nullptr));
  check_stencil("stencil_1d", w, x);
}

TEST_CASE("stencil_1d uses the weights of the latest set_stencil_weights call", "[p0][0.04][gpu]") {
  const std::size_t n = 1000;
  const std::uint64_t seed = wb::test::seed();
  INFO("stencil_1d with n = " << n << ", seed " << seed << " (replay with WB_SEED=" << seed << ")");
  const std::vector<float> x = wb::random_floats(n, seed + 1);
  // Two unrelated sets of weights (the second in [1, 2), so no weight can match the first set).
  const std::vector<float> first = wb::random_floats(kStencilWidth, seed + 2);
  const std::vector<float> second = wb::random_floats(kStencilWidth, seed + 3, 1.0f, 2.0f);
  WB_RUN_LAUNCHER(set_stencil_weights(first.data(), nullptr));
  check_stencil("stencil_1d with the first weights", first, x);
  WB_RUN_LAUNCHER(set_stencil_weights(second.data(), nullptr));
  check_stencil("stencil_1d after set_stencil_weights with new weights", second, x);
}
