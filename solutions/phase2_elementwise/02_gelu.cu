// SPDX-License-Identifier: MIT
// 2.02 gelu: the tanh approximation of GELU, and what "correct" means for a float kernel.
//
// You learn: to write a transcendental activation in float and judge it against a double reference
// with a tolerance derived from the math (tanhf's 2-ulp bound plus a few roundings), why models use
// the tanh form and why the kernel calls tanhf rather than the tanh.approx instruction; and that ~30
// instructions per element still cost nothing when the kernel waits on memory.
// Task: write gelu_tanh_scalar, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) in float with
// tanhf, then gelu_tanh_kernel, 2.01's kernel shape (kItemsPerThread loads before the first store)
// applying it to every element.
// Source: Hendrycks & Gimpel, "Gaussian Error Linear Units (GELUs)" (2016), for the tanh approximation.
// Run:   ./workbook run 2.02 [-- --size 64M]
// Check: ./workbook check 2.02
// Aim:   the same % of memcpy as 2.01's relu (>= 98% on an H100): the math is free.
// Previous: 2.01 relu. Next: 2.03 vectorized.

#include <vector>

#include "common/workbook.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/reference.h"

namespace {

constexpr int kBlockSize = 256;
// As in 2.01: elements each thread loads before it stores any, 16 bytes in flight per thread.
constexpr int kItemsPerThread = 4;

// ---- kernels ----------------------------------------------------------------------------------------

// GELU(x) = x Phi(x), Phi the normal CDF, written with erf. The tanh form approximates it within
// 5e-4 (at x near 2.7) and is what GPT-2 and BERT were trained with, back when erf was slow on
// their hardware: a model must be served with the GELU it was trained with. It is also cheaper on
// a GPU than erff's longer polynomial, though here, memory-bound, neither cost shows.
// tanhf errs by at most 2 ulp (CUDA Programming Guide, mathematical functions). The tanh.approx.f32
// instruction is one MUFU op but errs by up to 2^-11 relative, about 2000 times more, which shows in
// the 4th digit; in a kernel that waits on memory the accurate tanhf costs nothing, so take it.
// tanhf saturates to exactly +-1 for large |x|: gelu(-50) is 0.5 * -50 * 0 = -0.0, not NaN. But
// at x = -inf the same product is -inf * 0 = NaN, while GELU(-inf) is 0, the limit (the API and the
// test ask for it); GELU(+inf) = +inf comes out of the formula by itself.
// ([[maybe_unused]] keeps the pristine stub, which does not call it yet, free of warnings.)
[[maybe_unused]] __device__ __forceinline__ float gelu_tanh_scalar(float x) {
  // x + 0.044715 x^3 is a product plus x: one fused multiply-add (fmaf) computes it with a single
  // rounding at the end instead of one after the product and one after the sum.
  const float inner = 0.7978845608028654f * fmaf(0.044715f * x, x * x, x);  // sqrt(2 / pi) in float
  const float one_plus_tanh = 1.0f + tanhf(inner);
  // because 1 + tanh is exactly 0 where tanhf saturates, and x = -inf would make 0.5 x times it NaN.
  return one_plus_tanh == 0.0f ? -0.0f : 0.5f * x * one_plus_tanh;
}

__global__ void gelu_tanh_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  // 2.01's kernel with gelu_tanh_scalar in place of the select. About 30 instructions per element,
  // while an H100 could spend ~160 FLOP per element (20 per byte of HBM, 8 bytes) before the math,
  // not the memory, set the pace.
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x * kItemsPerThread + threadIdx.x;
  float x[kItemsPerThread] = {};
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * blockDim.x;
    if (i < n) x[k] = in[i];
  }
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * blockDim.x;
    if (i < n) out[i] = gelu_tanh_scalar(x[k]);
  }
}

// ---- launchers --------------------------------------------------------------------------------------

}  // namespace

// 2.01's grid: one block per kBlockSize * kItemsPerThread elements, covering n in one pass.
void gelu_tanh(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch
  gelu_tanh_kernel<<<wb::covering_blocks(n, kBlockSize * kItemsPerThread), kBlockSize, 0, stream>>>(in, out, n);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 8 bytes per element, as for relu, and about 30 instructions (a dozen FLOP for the
// polynomial and the product, the rest inside tanhf): ~4 per byte against the H100's ~20 FP32 FLOP
// per byte of HBM bandwidth. Still memory-bound: n = 64M moves 537 MB, about 0.18 ms at a copy's ~3 TB/s,
// the same time as relu; the result line's "% of memcpy" should match 2.01's.
int gelu_lesson(wb::Lesson& lesson) {
  const std::size_t n = lesson.size_or(64 * wb::MiB);
  // Device: input and output, plus the two buffers of the memcpy measured for comparison.
  lesson.require_memory(16.0 * static_cast<double>(n), 20.0 * static_cast<double>(n));
  // [-4, 4): the curved part of GELU, where a wrong constant shows; beyond it gelu is ~x or ~0.
  const std::vector<float> in = wb::random_floats(n, lesson.seed(), -4.0f, 4.0f);
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = static_cast<float>(p2::gelu_tanh_reference(in[i]));

  wb::DeviceBuffer<float> din(in);
  wb::GuardedDeviceBuffer<float> dout(n);
  // The graded test's bound, 4u|x| + 3u|gelu| with u = 2^-24 (derived in tests/02_gelu_test.cpp),
  // taken at the largest |x| = 4 for the absolute part.
  const wb::Tolerance tolerance{4.0 * 4.0 * wb::kFloatEpsilon, 3.0 * wb::kFloatEpsilon};
  const bool pass = lesson
                        .run_memory_bound("gelu_tanh", "n=" + wb::format_count(n), 8.0 * static_cast<double>(n), dout,
                                          expected, tolerance, [&] { gelu_tanh(din.data(), dout.data(), n, nullptr); })
                        .pass;
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(gelu_lesson, "GELU (tanh approximation) in float against a double reference");
