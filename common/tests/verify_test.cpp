// SPDX-License-Identifier: MIT
// The verifiers are the graders' eyes: prove they flag poison, NaN, damaged canaries and values
// just outside the tolerance, and accept values just inside it.
#include "common/verify.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "common/testing.h"

using wb::compare;
using wb::Tolerance;

TEST_CASE("compare accepts identical arrays and reports nothing", "[host][verify]") {
  const std::vector<float> a = {1.0f, -2.5f, 0.0f, 3e-20f};
  const wb::CompareReport r = compare(a, a, Tolerance{0, 0});
  CHECK(r.ok());
  CHECK(r.bad == 0);
  CHECK(r.count == 4);
  CHECK(r.reason().empty());
}

TEST_CASE("compare flags every untouched (poisoned) element and says the kernel did not run", "[host][verify]") {
  const std::vector<float> expected(10, 1.0f);
  const std::vector<float> got(10, wb::poison_value<float>());
  const wb::CompareReport r = compare(expected, got, Tolerance{1e9, 1e9});  // no tolerance forgives poison
  REQUIRE_FALSE(r.ok());
  CHECK(r.untouched == 10);
  CHECK(r.describe("out").find("Output untouched") != std::string::npos);
  CHECK(r.reason() == "output untouched");
}

TEST_CASE("compare recognises an untouched tail: a grid that is too small", "[host][verify]") {
  std::vector<float> expected(100, 2.0f), got(100, 2.0f);
  for (int i = 64; i < 100; ++i) got[i] = wb::poison_value<float>();
  const wb::CompareReport r = compare(expected, got, Tolerance{0, 0});
  REQUIRE_FALSE(r.ok());
  CHECK(r.untouched_is_tail);
  CHECK(r.tail_untouched_from == 64);
  CHECK(r.first_bad == 64);
  CHECK(r.describe("out").find("never written: the grid does not cover") != std::string::npos);
  CHECK(r.reason() == "untouched from [64] on");
}

TEST_CASE("compare tells scattered untouched elements from a missing tail", "[host][verify]") {
  std::vector<float> expected(100, 2.0f), got(100, 2.0f);
  got[3] = wb::poison_value<float>();
  got[99] = wb::poison_value<float>();
  const wb::CompareReport r = compare(expected, got, Tolerance{0, 0});
  CHECK(r.untouched == 2);
  CHECK_FALSE(r.untouched_is_tail);
  CHECK(r.describe("out").find("2 elements were never written") != std::string::npos);
  CHECK(r.reason() == "2 of 100 elements never written");
}

TEST_CASE("compare flags NaN outputs even with a huge tolerance", "[host][verify]") {
  std::vector<float> expected(5, 1.0f), got(5, 1.0f);
  got[2] = std::numeric_limits<float>::quiet_NaN();
  const wb::CompareReport r = compare(expected, got, Tolerance{1e30, 1e30});
  REQUIRE_FALSE(r.ok());
  CHECK(r.nan == 1);
  CHECK(r.first_bad == 2);
  CHECK(r.describe("out").find("NaN") != std::string::npos);
  CHECK(r.reason() == "1 of 5 elements NaN");
}

TEST_CASE("compare accepts NaN where NaN is expected and infinities of the right sign", "[host][verify]") {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  CHECK(compare(std::vector<float>{nan, inf, -inf}, std::vector<float>{nan, inf, -inf}, Tolerance{0, 0}).ok());
  CHECK_FALSE(compare(std::vector<float>{inf}, std::vector<float>{-inf}, Tolerance{1e30, 1}).ok());
  CHECK_FALSE(compare(std::vector<float>{inf}, std::vector<float>{3e38f}, Tolerance{1e30, 1}).ok());
}

TEST_CASE("the tolerance is abs + rel * |expected|, inclusive at the edge", "[host][verify]") {
  // Values chosen so the edge is exact in double: expected 4, abs 0.5, rel 0.125 -> bound 1.0.
  const Tolerance tol{0.5, 0.125};
  CHECK(wb::within(4.0, 5.0, tol));
  CHECK(wb::within(4.0, 3.0, tol));
  CHECK_FALSE(wb::within(4.0, 5.0 + 1e-12, tol));
  CHECK_FALSE(wb::within(4.0, 3.0 - 1e-12, tol));
  const std::vector<float> expected = {4.0f, 4.0f};
  CHECK(compare(expected, std::vector<float>{5.0f, 3.0f}, tol).ok());
  CHECK_FALSE(compare(expected, std::vector<float>{5.0001f, 4.0f}, tol).ok());
}

TEST_CASE("compare reports the first and last bad entries with a gap marker", "[host][verify]") {
  std::vector<float> expected(1000, 0.0f), got(1000, 0.0f);
  for (int i = 100; i < 900; i += 10) got[i] = 1.0f;  // 80 wrong values
  const wb::CompareReport r = compare(expected, got, Tolerance{0, 0});
  CHECK(r.bad == 80);
  REQUIRE(r.first.size() == wb::CompareReport::kShown);
  REQUIRE(r.last.size() == wb::CompareReport::kShown);
  CHECK(r.first.front().index == 100);
  CHECK(r.last.back().index == 890);
  const std::string text = r.describe("out");
  CHECK(text.find("80 of 1000 elements wrong") != std::string::npos);
  CHECK(text.find("...") != std::string::npos);
  CHECK(text.find("elements before [100] are right") != std::string::npos);
  CHECK(text.find("values are wrong") != std::string::npos);
  CHECK(r.reason() == "80 of 1000 elements wrong");
}

TEST_CASE("compare prints [row, col] for matrices", "[host][verify]") {
  std::vector<float> expected(12, 1.0f), got(12, 1.0f);
  got[7] = 2.0f;  // row 1, col 3 of a 3x4 matrix
  const wb::CompareReport r = compare(expected, got, Tolerance{0, 0}, 4);
  CHECK(r.describe("C").find("[1, 3] expected 1, got 2") != std::string::npos);
}

TEST_CASE("compare fails arrays of different sizes", "[host][verify]") {
  const wb::CompareReport r = compare(std::vector<float>(3, 1.0f), std::vector<float>(2, 1.0f), Tolerance{});
  CHECK_FALSE(r.ok());
  CHECK(r.describe("out").find("wrong number of elements") != std::string::npos);
}

TEST_CASE("compare works on ints exactly and on doubles", "[host][verify]") {
  CHECK(compare(std::vector<int>{1, 2, 3}, std::vector<int>{1, 2, 3}, Tolerance{}).ok());
  CHECK_FALSE(compare(std::vector<int>{1, 2, 3}, std::vector<int>{1, 2, 4}, Tolerance{}).ok());
  const wb::CompareReport r =
      compare(std::vector<int>{7, 7}, std::vector<int>{wb::poison_value<int>(), 7}, Tolerance{1e9, 0});
  CHECK(r.untouched == 1);
  CHECK(compare(std::vector<double>{1.0}, std::vector<double>{1.0 + 1e-15}, Tolerance{1e-14, 0}).ok());
  CHECK(compare(std::vector<double>{1.0}, std::vector<double>{wb::poison_value<double>()}, Tolerance{}).untouched == 1);
}

TEST_CASE("poison and canary are distinct NaN patterns that survive a copy", "[host][verify]") {
  const float poison = wb::poison_value<float>();
  const float canary = wb::canary_value<float>();
  CHECK(std::isnan(poison));
  CHECK(std::isnan(canary));
  CHECK_FALSE(wb::same_bits(poison, canary));
  CHECK_FALSE(wb::same_bits(poison, std::numeric_limits<float>::quiet_NaN()));
  float copy = poison;
  CHECK(wb::same_bits(copy, poison));
}

TEST_CASE("2-byte poison and canary are distinct NaNs in BF16 and FP16", "[host][verify]") {
  // BF16 inputs of the tensor-core rungs live in guarded buffers: reading a canary must give NaN.
  const std::uint16_t poison = wb::poison_value<std::uint16_t>(), canary = wb::canary_value<std::uint16_t>();
  CHECK(poison != canary);
  for (const std::uint16_t bits : {poison, canary}) {
    CAPTURE(bits);
    CHECK((bits & 0x7F80u) == 0x7F80u);  // BF16: exponent all ones ...
    CHECK((bits & 0x007Fu) != 0u);       // ... and a non-zero mantissa: NaN, not infinity
    CHECK((bits & 0x7C00u) == 0x7C00u);  // FP16: the same
    CHECK((bits & 0x03FFu) != 0u);
    // Widened to float (BF16 is the top half of a float), still NaN.
    float widened = 0;
    const std::uint32_t word = std::uint32_t(bits) << 16;
    std::memcpy(&widened, &word, 4);
    CHECK(std::isnan(widened));
  }
}

TEST_CASE("inspect_guards finds writes past the end and before the start", "[host][verify]") {
  const float canary = wb::canary_value<float>();
  const std::size_t front = 4, count = 10, back = 4;
  std::vector<float> all(front + count + back, canary);
  SECTION("intact guards pass") {
    CHECK(wb::inspect_guards(all.data(), front, count, back, canary).ok());
  }
  SECTION("one element past the end is caught and located") {
    all[front + count] = 1.0f;  // index n
    const wb::GuardReport r = wb::inspect_guards(all.data(), front, count, back, canary);
    CHECK_FALSE(r.ok());
    CHECK(r.back_damaged == 1);
    CHECK(r.first_after == count);
    CHECK(r.describe("out").find("wrote past the end") != std::string::npos);
    CHECK(r.reason() == "wrote past the end");
  }
  SECTION("the element just before the start is caught as index -1") {
    all[front - 1] = 0.0f;
    const wb::GuardReport r = wb::inspect_guards(all.data(), front, count, back, canary);
    CHECK(r.front_damaged == 1);
    CHECK(r.first_before == -1);
    CHECK(r.describe("out").find("before the start") != std::string::npos);
    CHECK(r.reason() == "wrote before the start");
  }
  SECTION("a write of the poison pattern into a guard is caught too") {
    all[front + count + back - 1] = wb::poison_value<float>();
    CHECK_FALSE(wb::inspect_guards(all.data(), front, count, back, canary).ok());
  }
}

TEST_CASE("sum_tolerance follows (n-1) * u * sum|x| and is tiny but non-zero for one term", "[host][verify]") {
  const double u = std::ldexp(1.0, -24);
  CHECK(std::fabs(wb::sum_tolerance(1, 10.0).abs - u * 10.0) < 1e-15);
  CHECK(std::fabs(wb::sum_tolerance(1025, 3.0).abs - 1024 * u * 3.0) < 1e-12);
  CHECK(wb::sum_tolerance(0, 0.0).abs > 0.0);
  // A float sum really stays inside it: sequential sum of 1e5 values in [0, 1).
  std::vector<float> x(100000);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f;
  float f = 0;
  double d = 0;
  for (float v : x) {
    f += v;
    d += v;
  }
  CHECK(std::fabs(f - d) <= wb::sum_tolerance(x.size(), wb::sum_abs(x)).abs);
}

TEST_CASE("compare_each applies each element's own tolerance", "[host][verify]") {
  const std::vector<float> expected = {1.0f, 1.0f, 1.0f};
  const std::vector<float> got = {1.5f, 1.5f, 1.5f};
  // Element 1 is allowed 0.25 only: it is the one reported.
  const wb::CompareReport r = wb::compare_each(expected.data(), got.data(), 3, [](std::size_t i) {
    return wb::Tolerance{i == 1 ? 0.25 : 0.5, 0};
  });
  CHECK(r.bad == 1);
  CHECK(r.first_bad == 1);
  CHECK(r.tolerance.abs == 0.25);
  CHECK(r.describe("scan").find("<= 0.25 +") != std::string::npos);
}
