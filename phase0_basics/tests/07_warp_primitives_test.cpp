// SPDX-License-Identifier: MIT
// Graded tests for 0.07 warp_primitives: sizes around one and two warps and one block, partial
// last segments (the lanes past n must still shuffle), exact answers on dyadic inputs and
// Higham-bounded answers on arbitrary floats, poisoned outputs and guard canaries on both sides.
#include <cmath>
#include <cstddef>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase0_basics/basics.cuh"

namespace {

constexpr std::size_t kWarp = 32;

// 0 and 1; under, at and over one and two warps; a block (256) is 8 warps; a prime; several
// blocks with a partial last segment; two large sizes (the last with a 3-element segment).
std::vector<std::size_t> warp_sizes() {
  return wb::test::sizes(
      {0, 1, 2, 31, 32, 33, 63, 64, 65, 1000, 4099, std::size_t(1) << 20, (std::size_t(1) << 24) + 3});
}

// The input between NaN canaries: a lane that loads past n without the guard turns its sum NaN.
wb::GuardedDeviceBuffer<float> guarded_input(const std::vector<float>& in) {
  wb::GuardedDeviceBuffer<float> din(in.size());
  din.upload(in);
  return din;
}

// One absolute bound per element (the error bound of a sum grows with its terms), plus u |expected|
// for rounding the exact double reference to float.
wb::CompareReport compare_each(const std::vector<float>& expected, const std::vector<float>& got,
                               const std::vector<float>& abs_bound) {
  if (got.size() != expected.size()) return wb::compare(expected, got, wb::Tolerance{});
  return wb::compare_each(expected.data(), got.data(), expected.size(), [&](std::size_t i) {
    return wb::Tolerance{abs_bound[i], wb::kFloatEpsilon};
  });
}

}  // namespace

TEST_CASE("warp_broadcast gives every lane the source lane's value, and 0 when that lane is past n",
          "[p0][0.07][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(warp_sizes()));
  const int src_lane = GENERATE(0, 5, 31);
  const std::uint64_t seed = wb::test::seed();
  INFO("warp_broadcast with n = " << n << ", src_lane = " << src_lane << ", seed " << seed
                                  << " (replay with WB_SEED=" << seed << ")");
  const std::vector<float> in = wb::random_floats(n, seed);
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t src = i / kWarp * kWarp + static_cast<std::size_t>(src_lane);
    expected[i] = src < n ? in[src] : 0.0f;  // the source lane past n contributes 0
  }
  wb::GuardedDeviceBuffer<float> din = guarded_input(in);
  wb::GuardedDeviceBuffer<float> dout(n);
  WB_RUN_LAUNCHER(warp_broadcast(din.data(), dout.data(), n, src_lane, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), "warp_broadcast");
  WB_REQUIRE_OK(wb::compare(expected, dout.download(), wb::Tolerance{0, 0}), "warp_broadcast");  // a copy
}

TEST_CASE("warp_sums sums every 32-element segment exactly on dyadic inputs", "[p0][0.07][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(warp_sizes()));
  const std::uint64_t seed = wb::test::seed();
  INFO("warp_sums with n = " << n << ", dyadic inputs, seed " << seed << " (replay with WB_SEED=" << seed << ")");
  // Multiples of 1/256 in [-1, 1]: a sum of 32 is a multiple of 1/256 below 32 in magnitude, 14
  // significant bits, so every partial sum in every order is exact in float. The tree must give
  // the exact sum: one element missing or counted twice shows.
  const std::vector<float> in = wb::random_dyadic_floats(n, seed);
  std::vector<float> expected(wb::ceil_div(n, kWarp), 0.0f);
  for (std::size_t i = 0; i < n; ++i) expected[i / kWarp] += in[i];
  wb::GuardedDeviceBuffer<float> din = guarded_input(in);
  wb::GuardedDeviceBuffer<float> dsums(expected.size());
  WB_RUN_LAUNCHER(warp_sums(din.data(), dsums.data(), n, nullptr));
  WB_REQUIRE_OK(dsums.check_guards(), "warp_sums");
  WB_REQUIRE_OK(wb::compare(expected, dsums.download(), wb::Tolerance{0, 0}), "warp_sums");
}

TEST_CASE("warp_sums stays within the rounding bound of a 32-term sum on arbitrary floats", "[p0][0.07][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(warp_sizes()));
  const std::uint64_t seed = wb::test::seed();
  INFO("warp_sums with n = " << n << ", uniform [-1, 1) inputs, seed " << seed << " (replay with WB_SEED=" << seed
                             << ")");
  // The exact sum in double; the GPU's tree errs by at most (32 - 1) u sum|x| per segment.
  const std::vector<float> in = wb::random_floats(n, seed);
  const std::size_t segments = wb::ceil_div(n, kWarp);
  std::vector<double> sum(segments, 0.0), sum_abs(segments, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    sum[i / kWarp] += in[i];
    sum_abs[i / kWarp] += std::fabs(static_cast<double>(in[i]));
  }
  std::vector<float> expected(segments), bound(segments);
  for (std::size_t s = 0; s < segments; ++s) {
    expected[s] = static_cast<float>(sum[s]);
    bound[s] = static_cast<float>(wb::sum_tolerance(kWarp, sum_abs[s]).abs);
  }
  wb::GuardedDeviceBuffer<float> din = guarded_input(in);
  wb::GuardedDeviceBuffer<float> dsums(segments);
  WB_RUN_LAUNCHER(warp_sums(din.data(), dsums.data(), n, nullptr));
  WB_REQUIRE_OK(dsums.check_guards(), "warp_sums");
  WB_REQUIRE_OK(compare_each(expected, dsums.download(), bound), "warp_sums");
}

TEST_CASE("warp_inclusive_scan gives every element its segment's prefix sum exactly on dyadic inputs",
          "[p0][0.07][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(warp_sizes()));
  const std::uint64_t seed = wb::test::seed();
  INFO("warp_inclusive_scan with n = " << n << ", dyadic inputs, seed " << seed << " (replay with WB_SEED=" << seed
                                       << ")");
  // Dyadic inputs as for warp_sums: every prefix is exact in any order.
  const std::vector<float> in = wb::random_dyadic_floats(n, seed);
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = (i % kWarp == 0 ? 0.0f : expected[i - 1]) + in[i];
  wb::GuardedDeviceBuffer<float> din = guarded_input(in);
  wb::GuardedDeviceBuffer<float> dout(n);
  WB_RUN_LAUNCHER(warp_inclusive_scan(din.data(), dout.data(), n, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), "warp_inclusive_scan");
  WB_REQUIRE_OK(wb::compare(expected, dout.download(), wb::Tolerance{0, 0}), "warp_inclusive_scan");
}

TEST_CASE("warp_inclusive_scan stays within the rounding bound of each prefix on arbitrary floats", "[p0][0.07][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(warp_sizes()));
  const std::uint64_t seed = wb::test::seed();
  INFO("warp_inclusive_scan with n = " << n << ", uniform [-1, 1) inputs, seed " << seed
                                       << " (replay with WB_SEED=" << seed << ")");
  // Element i is a sum of lane(i) + 1 terms: its bound is lane(i) u sum|x| over its prefix.
  const std::vector<float> in = wb::random_floats(n, seed);
  std::vector<float> expected(n), bound(n);
  double prefix = 0, prefix_abs = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i % kWarp == 0) prefix = prefix_abs = 0;
    prefix += in[i];
    prefix_abs += std::fabs(static_cast<double>(in[i]));
    expected[i] = static_cast<float>(prefix);
    bound[i] = static_cast<float>(wb::sum_tolerance(i % kWarp + 1, prefix_abs).abs);
  }
  wb::GuardedDeviceBuffer<float> din = guarded_input(in);
  wb::GuardedDeviceBuffer<float> dout(n);
  WB_RUN_LAUNCHER(warp_inclusive_scan(din.data(), dout.data(), n, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), "warp_inclusive_scan");
  WB_REQUIRE_OK(compare_each(expected, dout.download(), bound), "warp_inclusive_scan");
}
