// SPDX-License-Identifier: MIT
// Timing statistics: median, min, max and spread of per-repeat times.
#include "common/timer.h"

#include <cmath>
#include <vector>

#include "common/testing.h"

TEST_CASE("summarize takes the median, not the mean, so one slow repeat does not move it", "[host][timer]") {
  const wb::TimingStats s = wb::summarize({1.0, 1.0, 1.0, 1.0, 100.0});
  CHECK(s.median_ms == 1.0);
  CHECK(s.min_ms == 1.0);
  CHECK(s.max_ms == 100.0);
  CHECK(s.samples == 5);
  CHECK(s.spread_pct == 0.0);
}

TEST_CASE("summarize sorts, interpolates an even count and reports half the IQR in %", "[host][timer]") {
  const wb::TimingStats s = wb::summarize({4.0, 1.0, 3.0, 2.0});
  CHECK(s.median_ms == 2.5);
  CHECK(s.min_ms == 1.0);
  // Quartiles 1.75 and 3.25: half the IQR is 0.75, 30% of the median.
  CHECK(std::fabs(s.spread_pct - 30.0) < 1e-9);
}

TEST_CASE("summarize of one sample and of none", "[host][timer]") {
  const wb::TimingStats one = wb::summarize({0.5});
  CHECK(one.median_ms == 0.5);
  CHECK(one.spread_pct == 0.0);
  const wb::TimingStats none = wb::summarize({});
  CHECK(none.samples == 0);
  CHECK(none.median_ms == 0.0);
}
