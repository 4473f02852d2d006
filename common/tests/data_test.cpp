// SPDX-License-Identifier: MIT
// Test data must be the same on every machine for a given seed, and within its promised range.
#include "common/data.h"

#include <cmath>
#include <cstdlib>
#include <set>
#include <vector>

#include "common/testing.h"

TEST_CASE("the same seed gives the same numbers; another seed gives others", "[host][data]") {
  CHECK(wb::random_floats(100, 7) == wb::random_floats(100, 7));
  CHECK(wb::random_floats(100, 7) != wb::random_floats(100, 8));
  // Pinned values: splitmix64 is specified bit for bit, so these never change across platforms.
  wb::Rng rng(0);
  CHECK(rng.next_u64() == 0xE220A8397B1DCDAFull);
  CHECK(rng.next_u64() == 0x6E789E6AA1B965F4ull);
}

TEST_CASE("random_floats stay inside [lo, hi) and are not constant", "[host][data]") {
  const std::vector<float> v = wb::random_floats(10000, 3, -2.0f, 5.0f);
  std::set<float> distinct(v.begin(), v.end());
  CHECK(distinct.size() > 9000);
  for (float x : v) {
    REQUIRE(x >= -2.0f);
    REQUIRE(x < 5.0f);
  }
}

TEST_CASE("dyadic floats are non-zero multiples of 1/256 in [-1, 1], so their sums are exact", "[host][data]") {
  const std::vector<float> v = wb::random_dyadic_floats(1 << 16, 11);
  float forward = 0, backward = 0;
  bool negative = false, positive = false;
  for (float x : v) {
    REQUIRE(x != 0.0f);
    REQUIRE(std::fabs(x) <= 1.0f);
    REQUIRE(x * 256.0f == std::round(x * 256.0f));
    negative = negative || x < 0;
    positive = positive || x > 0;
    forward += x;
  }
  for (auto it = v.rbegin(); it != v.rend(); ++it) backward += *it;
  CHECK(negative);
  CHECK(positive);
  CHECK(forward == backward);  // order does not matter: every partial sum is exact
}

TEST_CASE("random_ints cover the closed range", "[host][data]") {
  const std::vector<int> v = wb::random_ints(5000, 5, -3, 3);
  std::set<int> seen(v.begin(), v.end());
  CHECK(seen == std::set<int>{-3, -2, -1, 0, 1, 2, 3});
}

TEST_CASE("WB_SEED overrides the seed; garbage in it is ignored", "[host][data]") {
  unsetenv("WB_SEED");
  CHECK(wb::seed_from_env(42) == 42);
  setenv("WB_SEED", "1234", 1);
  CHECK(wb::seed_from_env(42) == 1234);
  setenv("WB_SEED", "0x10", 1);
  CHECK(wb::seed_from_env(42) == 16);
  setenv("WB_SEED", "12abc", 1);
  CHECK(wb::seed_from_env(42) == 42);
  unsetenv("WB_SEED");
}
