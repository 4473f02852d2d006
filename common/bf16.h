// SPDX-License-Identifier: MIT
// BF16 on the host, for the lessons and tests of the BF16 kernels (1.10-1.14, 5.05): inputs are made
// as floats, rounded here to BF16 (as the device's __float2bfloat16_rn rounds) and uploaded as BF16,
// and the references are computed on the rounded values widened back to float, so rounding the
// inputs costs the comparison nothing. Pure host code.
#pragma once

#include <cuda_bf16.h>

#include <vector>

namespace wb {

// Round to nearest, ties to even (as __float2bfloat16_rn; NaN stays NaN, overflow gives infinity).
float round_to_bf16(float x);
std::vector<__nv_bfloat16> to_bf16(const std::vector<float>& values);
// Back to float: exact (a BF16 value is the top half of a float).
std::vector<float> widen_bf16(const std::vector<__nv_bfloat16>& values);
// `values` rounded to BF16 and widened back: the floats a BF16 kernel actually computes with.
std::vector<float> rounded_to_bf16(std::vector<float> values);
// A BF16 output read back for a float comparison: widened, except that an element still holding BF16's
// poison (verify.h) becomes float's poison, which compare() reports as untouched.
std::vector<float> widen_bf16_output(const std::vector<__nv_bfloat16>& values);

// Float inputs as the element type a kernel reads: float as they are, __nv_bfloat16 rounded (to_bf16).
// The graders of phases 1 and 5 upload the same values to FP32 and BF16 kernels through it.
template <typename T>
std::vector<T> device_values(const std::vector<float>& values);
template <>
inline std::vector<float> device_values<float>(const std::vector<float>& values) {
  return values;
}
template <>
inline std::vector<__nv_bfloat16> device_values<__nv_bfloat16>(const std::vector<float>& values) {
  return to_bf16(values);
}

}  // namespace wb
