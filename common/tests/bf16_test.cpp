// SPDX-License-Identifier: MIT
// The host BF16 helpers (common/bf16.h) that the BF16 lessons and graders round their inputs with.
#include "common/bf16.h"

#include <cmath>
#include <limits>
#include <vector>

#include "common/testing.h"
#include "common/verify.h"

TEST_CASE("round_to_bf16 rounds to nearest even and keeps NaN, infinity and small integers", "[host][bf16]") {
  const float ulp1 = std::ldexp(1.0f, -7);  // BF16 keeps 7 mantissa bits: the spacing just above 1
  CHECK(wb::round_to_bf16(1.0f) == 1.0f);
  CHECK(wb::round_to_bf16(1.0f + ulp1) == 1.0f + ulp1);
  CHECK(wb::round_to_bf16(1.0f + 0.5f * ulp1) == 1.0f);                // a tie goes to the even neighbour
  CHECK(wb::round_to_bf16(1.0f + 1.5f * ulp1) == 1.0f + 2.0f * ulp1);  // ... here the upper one
  CHECK(wb::round_to_bf16(1.0f + 0.75f * ulp1) == 1.0f + ulp1);        // above the tie rounds up
  CHECK(wb::round_to_bf16(-3.0f) == -3.0f);
  for (int i = -256; i <= 256; ++i) CHECK(wb::round_to_bf16(float(i)) == float(i));  // integers to 256 are exact
  CHECK(std::isnan(wb::round_to_bf16(std::nanf(""))));
  CHECK(std::isinf(wb::round_to_bf16(std::numeric_limits<float>::max())));  // rounds up past the largest BF16
  const std::vector<float> values = {0.1f, -2.0f, 1e-30f, 65504.0f, std::ldexp(1.0f, -130)};
  const std::vector<float> back = wb::widen_bf16(wb::to_bf16(values));
  REQUIRE(back.size() == values.size());
  for (std::size_t i = 0; i < values.size(); ++i) CHECK(back[i] == wb::round_to_bf16(values[i]));
  CHECK(wb::rounded_to_bf16(values) == back);
}

TEST_CASE("a BF16 output still poisoned reads back as float's poison, so it is reported untouched", "[host][bf16]") {
  std::vector<__nv_bfloat16> out = wb::to_bf16({0.5f, -2.0f, 3.0f});
  out[1] = wb::poison_value<__nv_bfloat16>();
  const std::vector<float> wide = wb::widen_bf16_output(out);
  CHECK(wide[0] == 0.5f);
  CHECK(wb::same_bits(wide[1], wb::poison_value<float>()));
  CHECK(wide[2] == 3.0f);
  const std::vector<float> expected = {0.5f, -2.0f, 3.0f};
  CHECK(wb::compare(expected, wide, wb::Tolerance{0.0, 0.0}).untouched == 1);
  // A NaN the kernel computed is not poison: it stays a NaN.
  out[2] = wb::to_bf16({std::nanf("")})[0];
  CHECK(std::isnan(wb::widen_bf16_output(out)[2]));
  CHECK(!wb::same_bits(wb::widen_bf16_output(out)[2], wb::poison_value<float>()));
}
