// SPDX-License-Identifier: MIT
// Graded tests for 2.04 fused_bias_gelu: add_bias (given) and bias_gelu_fused (yours) on shapes whose
// row lengths take the float4 path (cols % 4 == 0) and the scalar path, rows past the grid on both
// paths, pointers that are not 16-byte aligned; inputs and outputs in guarded buffers (NaN canaries
// around the inputs turn a read past the end into a NaN in the output). Failures print [row, col].
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/reference.h"

namespace {

using Launcher = void (*)(const float*, const float*, float*, int, int, cudaStream_t);

struct Shape {
  int rows;
  int cols;
};

// Empty both ways; 1x1; rows of 31, 33 and 1002 floats (cols % 4 = 3, 1, 2: the scalar path) and of 32,
// 1000, 4096 and 10000 (the float4 path); a column vector; 3, 5, 37 and 1000 rows (not multiples of
// anything the launcher picks); 16384 x 4096, more rows than the grid has blocks (the row loop must
// cover them), shrunk to 64 x 4096 under compute-sanitizer; 16385 x 3, the same on the scalar path
// (cols % 4 = 3): more rows than the grid has blocks on any GPU of up to 512 SMs (32 blocks per SM),
// so the row loop must take blocks past their first row; small enough to keep under compute-sanitizer.
std::vector<Shape> shapes() {
  const std::vector<Shape> all = {{0, 5},     {5, 0},       {1, 1},        {1, 31},   {3, 33},
                                  {37, 32},   {7, 1002},    {37, 1000},    {1000, 1}, {5, 4096},
                                  {3, 10000}, {1000, 1000}, {16384, 4096}, {16385, 3}};
  std::vector<Shape> chosen;
  for (const Shape& s : all) {
    const bool large = static_cast<std::size_t>(s.rows) * static_cast<std::size_t>(s.cols) > (std::size_t(1) << 20);
    chosen.push_back(large && wb::test::sanitize_mode() ? Shape{64, s.cols} : s);
  }
  return chosen;
}

// GELU's error, per element. The launchers round s = in + bias to float exactly as the CPU does, so the
// reference is gelu_tanh_reference of that float s (not of the exact sum: that would need another
// ~1.1 u |s| for the sum's rounding, and hide nothing the kernel does). What remains is GELU in float
// (u = 2^-24): ~5 roundings in the inner argument move tanh by <= max(t sech^2 t) * 5u = 2.3u; tanhf
// errs by <= 2 ulp (<= 2u below 1); 1 + tanh rounds (<= 2u): 1 + tanh is off by <= 6.3u, times 0.5 |s|;
// the last product and the reference's rounding to float add u |out| each. Bound 3.2u |s| + 2u |out|,
// allowed 8u |s| + 4u |out|. The fast tanh.approx (2^-11) or the erf form of GELU misses it by far.
wb::Tolerance gelu_of_sum_tolerance(float sum) {
  return wb::Tolerance{8.0 * wb::kFloatEpsilon * std::fabs(static_cast<double>(sum)), 4.0 * wb::kFloatEpsilon};
}

// Which pointer the test shifts by one float (4 bytes): in + 1 is a legal float pointer but not a
// legal float4 one, so the launcher must take the scalar path.
enum class Shift { None, In, Bias, Out };

const char* shift_name(Shift s) {
  switch (s) {
    case Shift::In:
      return "in + 1";
    case Shift::Bias:
      return "bias + 1";
    case Shift::Out:
      return "out + 1";
    default:
      return "all aligned";
  }
}

// Uploads `values` after `shift` leading elements of a guarded buffer (NaN canaries around it).
wb::GuardedDeviceBuffer<float> guarded_input(const std::vector<float>& values, std::size_t shift) {
  wb::GuardedDeviceBuffer<float> buffer(values.size() + shift);
  std::vector<float> host(values.size() + shift, 0.0f);
  std::copy(values.begin(), values.end(), host.begin() + static_cast<std::ptrdiff_t>(shift));
  buffer.upload(host);
  return buffer;
}

void check_launcher(const char* name, Launcher launch, bool gelu, Shape shape, Shift shift) {
  const int rows = shape.rows, cols = shape.cols;
  const std::uint64_t seed = wb::test::seed();
  INFO(name << " on " << rows << " x " << cols << " (" << shift_name(shift) << "), seed " << seed
            << " (replay with WB_SEED=" << seed << ")");
  const std::size_t count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  // in in [-3, 3), bias in [-1, 1): sums in (-4, 4), across GELU's curve and both of its tails.
  const std::vector<float> in = wb::random_floats(count, seed, -3.0f, 3.0f);
  const std::vector<float> bias = wb::random_floats(static_cast<std::size_t>(cols), seed + 1);
  std::vector<float> sums(count), expected(count);
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) {
    for (std::size_t c = 0; c < static_cast<std::size_t>(cols); ++c) {
      const std::size_t i = r * static_cast<std::size_t>(cols) + c;
      sums[i] = in[i] + bias[c];  // one float rounding, the same as the GPU's
      expected[i] = gelu ? static_cast<float>(p2::gelu_tanh_reference(sums[i])) : sums[i];
    }
  }

  const std::size_t in_shift = shift == Shift::In ? 1 : 0;
  const std::size_t bias_shift = shift == Shift::Bias ? 1 : 0;
  const std::size_t out_shift = shift == Shift::Out ? 1 : 0;
  wb::GuardedDeviceBuffer<float> din = guarded_input(in, in_shift);
  wb::GuardedDeviceBuffer<float> dbias = guarded_input(bias, bias_shift);
  wb::GuardedDeviceBuffer<float> dout(count + out_shift);  // poisoned inside, canaries around
  WB_RUN_LAUNCHER(
      launch(din.data() + in_shift, dbias.data() + bias_shift, dout.data() + out_shift, rows, cols, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), name);
  const std::vector<float> all = dout.download();
  if (out_shift == 1 && !wb::same_bits(all[0], wb::poison_value<float>()))
    FAIL(name << " wrote the float just before out (out + 1 was passed): an index is off by one");
  const float* got = all.data() + out_shift;
  if (gelu) {
    WB_REQUIRE_OK(wb::compare_each(
                      expected.data(), got, count, [&](std::size_t i) { return gelu_of_sum_tolerance(sums[i]); },
                      static_cast<std::size_t>(cols)),
                  name);
  } else {
    // One float add on both sides: exact.
    WB_REQUIRE_OK(wb::compare(expected.data(), got, count, wb::Tolerance{0, 0}, static_cast<std::size_t>(cols)), name);
  }
}

}  // namespace

TEST_CASE("add_bias adds bias[c] down every column of any shape, on the float4 and the scalar path",
          "[p2][2.04][gpu]") {
  const Shape shape = GENERATE(Catch::Generators::from_range(shapes()));
  check_launcher("add_bias", add_bias, false, shape, Shift::None);
}

TEST_CASE("bias_gelu_fused computes gelu_tanh(in + bias[c]) for every element of any shape in one pass",
          "[p2][2.04][gpu]") {
  const Shape shape = GENERATE(Catch::Generators::from_range(shapes()));
  check_launcher("bias_gelu_fused", bias_gelu_fused, true, shape, Shift::None);
}

TEST_CASE("both launchers take the scalar path when a pointer is not 16-byte aligned, even with cols % 4 == 0",
          "[p2][2.04][gpu]") {
  const Shift shift = GENERATE(Shift::In, Shift::Bias, Shift::Out);
  check_launcher("add_bias", add_bias, false, Shape{37, 1000}, shift);
  check_launcher("bias_gelu_fused", bias_gelu_fused, true, Shape{37, 1000}, shift);
}
