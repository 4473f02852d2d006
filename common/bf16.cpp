// SPDX-License-Identifier: MIT
#include "common/bf16.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "common/verify.h"

namespace wb {

float round_to_bf16(float x) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &x, 4);
  if (std::isnan(x)) {
    bits = (bits | 0x00400000u) & 0xFFFF0000u;  // stays a (quiet) NaN after dropping the low half
  } else {
    // Round to nearest, ties to even, on the 16 bits that are dropped; a carry into the exponent is
    // the right result (up to infinity).
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    bits &= 0xFFFF0000u;
  }
  float rounded = 0;
  std::memcpy(&rounded, &bits, 4);
  return rounded;
}

std::vector<__nv_bfloat16> to_bf16(const std::vector<float>& values) {
  std::vector<__nv_bfloat16> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float rounded = round_to_bf16(values[i]);
    std::uint32_t bits = 0;
    std::memcpy(&bits, &rounded, 4);
    __nv_bfloat16_raw raw;
    raw.x = static_cast<unsigned short>(bits >> 16);
    out[i] = raw;
  }
  return out;
}

std::vector<float> widen_bf16(const std::vector<__nv_bfloat16>& values) {
  std::vector<float> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    const __nv_bfloat16_raw raw = values[i];
    const std::uint32_t bits = std::uint32_t(raw.x) << 16;
    std::memcpy(&out[i], &bits, 4);
  }
  return out;
}

std::vector<float> rounded_to_bf16(std::vector<float> values) {
  for (float& x : values) x = round_to_bf16(x);
  return values;
}

std::vector<float> widen_bf16_output(const std::vector<__nv_bfloat16>& values) {
  std::vector<float> wide = widen_bf16(values);
  for (std::size_t i = 0; i < values.size(); ++i)
    if (same_bits(values[i], poison_value<__nv_bfloat16>())) wide[i] = poison_value<float>();
  return wide;
}

}  // namespace wb
