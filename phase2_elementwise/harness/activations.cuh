// SPDX-License-Identifier: MIT
// Device-side activations that the later lessons of phase 2 build on (2.03 vectorizes them, 2.04
// fuses GELU with a bias). relu_device and gelu_tanh_device below are the answers of 2.01 and 2.02:
// solve those two before you read on.
#pragma once

#include <cuda_runtime.h>

// sqrt(2 / pi), in float.
constexpr float kGeluScale = 0.7978845608028654f;
constexpr float kGeluCubic = 0.044715f;

// Not fmaxf(x, 0): that returns 0 for NaN and would hide a NaN from an earlier layer.
__device__ __forceinline__ float relu_device(float x) {
  return x < 0.0f ? 0.0f : x;
}

// The tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), with the accurate tanhf
// (at most 2 ulp off), not the tanh.approx instruction (about 2^-11 relative error). Where tanhf has
// saturated to -1 the sum 1 + tanh is exactly 0 and GELU is -0.0; at x = -inf the product would be
// -inf * 0 = NaN, so that case is the zero it tends to (elementwise.cuh: gelu(-inf) = 0).
__device__ __forceinline__ float gelu_tanh_device(float x) {
  const float inner = kGeluScale * fmaf(kGeluCubic * x, x * x, x);
  const float one_plus_tanh = 1.0f + tanhf(inner);
  return one_plus_tanh == 0.0f ? -0.0f : 0.5f * x * one_plus_tanh;
}
