// SPDX-License-Identifier: MIT
// Row-wise graders shared by 2.05/2.06 (RMSNorm) and 2.07/2.08 (softmax); see rowwise_grading.h.
#include "phase2_elementwise/tests/rowwise_grading.h"

#include <cmath>
#include <cstddef>
#include <sstream>

#include "common/buffer.h"
#include "common/data.h"
#include "common/testing.h"
#include "phase2_elementwise/reference.h"

namespace p2 {

// ---- RMSNorm ------------------------------------------------------------------------------------

// Row r of the input: random in [-1, 1]; the middle row (when rows > 1) all zeros, which must give
// zeros (rsqrt(0 + eps) is finite; without eps it is inf and 0 * inf = NaN); every third other row
// scaled by 1e-3, so its mean square (~3e-7) sits below eps and a missing or hard-wired eps is off
// by a factor 2 to 6 there.
std::vector<float> rmsnorm_input(int rows, int cols, std::uint64_t seed) {
  std::vector<float> in = wb::random_floats(static_cast<std::size_t>(rows) * cols, seed);
  for (int r = 0; r < rows; ++r) {
    float* row = &in[static_cast<std::size_t>(r) * cols];
    const bool zero = rows > 1 && r == rows / 2;
    const bool tiny = r % 3 == 1;
    for (int c = 0; c < cols; ++c) row[c] = zero ? 0.0f : tiny ? row[c] * 1e-3f : row[c];
  }
  return in;
}

// Row lengths 1, 31, 32, 33 (inside one warp, around it: lanes with nothing to sum must still
// shuffle), 1000 and 4096 (float4), 10000 (float4, several items per thread), 20000 (5000 float4s:
// more than one step of 4 per thread with 1024 threads, the last one partial); row counts 1, 3, 5, 7
// and 37 leave threads or warps of the last block past the last row (they must write nothing);
// 1000 x 1 is many full blocks of one-float rows.
std::vector<RowShape> rmsnorm_shapes() {
  return {{1, 1}, {3, 31}, {37, 32}, {5, 33}, {1000, 1}, {7, 1000}, {37, 4096}, {3, 10000}, {3, 20000}, {1000, 1000}};
}

void check_rmsnorm(const char* name, RmsnormLauncher launch, const std::vector<float>& in, int rows, int cols,
                   float eps, std::uint64_t seed) {
  INFO(name << " on " << rows << " x " << cols << " with eps = " << eps << ", seed " << seed
            << " (replay with WB_SEED=" << seed << ")");
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  const std::vector<float> weight = wb::random_floats(static_cast<std::size_t>(cols), seed + 1, -2.0f, 2.0f);
  const std::vector<double> exact = rmsnorm_reference(in, weight, rows, cols, eps);
  const std::vector<float> expected(exact.begin(), exact.end());

  // Inputs in guarded buffers too: a read past the end of a row meets a NaN canary and shows.
  wb::GuardedDeviceBuffer<float> din(count), dweight(static_cast<std::size_t>(cols));
  din.upload(in);
  dweight.upload(weight);
  wb::GuardedDeviceBuffer<float> dout(count);  // poisoned inside, canaries around
  WB_RUN_LAUNCHER(launch(din.data(), dweight.data(), dout.data(), rows, cols, eps, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), name);
  WB_REQUIRE_OK(wb::compare(expected, dout.download(), rmsnorm_tolerance(cols), static_cast<std::size_t>(cols)), name);
}

// ---- softmax --------------------------------------------------------------------------------------
namespace {

const char* data_name(SoftmaxData kind) {
  switch (kind) {
    case SoftmaxData::Uniform:
      return "uniform values in [-8, 8)";
    case SoftmaxData::Huge:
      return "values near 1000 and -1000 mixed";
    default:
      return "values in [-8, 8) with -inf entries";
  }
}

// Outputs that underflow to denormals (x - m below about -87) err by their ulp, 2^-149, an absolute
// amount: 2^-140 covers it and is still far below the smallest normal float.
double abs_term() {
  return std::ldexp(1.0, -140);
}

wb::Tolerance element_tolerance(const SoftmaxBound& bound, float x, float row_max, int cols) {
  if (std::isinf(x)) return wb::Tolerance{0.0, 0.0};  // exp(-inf) is exactly 0
  const double units = bound.element_base + std::fabs(double(x) - row_max) + bound.element_per_col * cols;
  return wb::Tolerance{abs_term(), units * wb::kFloatEpsilon};
}

// As Higham's gamma, k u / (1 - k u), which also covers the second-order terms.
double row_sum_tolerance(const SoftmaxBound& bound, int cols) {
  const double ku = (bound.row_sum_base + bound.row_sum_per_col * cols) * wb::kFloatEpsilon;
  return ku / (1.0 - ku) + cols * abs_term();
}

}  // namespace

// Rows x cols inputs of one kind. Huge: even rows mix 1000 + [-1, 1) and -1000 + [-1, 1) at random,
// odd rows hold -1000s then 1000s (a running max jumps by 2000 halfway). NegInf: a third of the
// entries -inf at random, and rows that are -inf except their last (r % 3 == 1) or first
// (r % 3 == 2) entry; never a whole row.
std::vector<float> softmax_input(SoftmaxData kind, int rows, int cols, std::uint64_t seed) {
  std::vector<float> in = wb::random_floats(std::size_t(rows) * cols, seed, -8.0f, 8.0f);
  wb::Rng rng(seed + 1);
  for (int r = 0; r < rows; ++r) {
    float* row = &in[std::size_t(r) * cols];
    for (int c = 0; c < cols; ++c) {
      if (kind == SoftmaxData::Huge) {
        const bool high = r % 2 == 0 ? (rng.next_u64() & 1) != 0 : 2 * c >= cols;
        row[c] = (high ? 1000.0f : -1000.0f) + rng.uniform(-1.0f, 1.0f);
      } else if (kind == SoftmaxData::NegInf) {
        const bool neg_inf = r % 3 == 0 ? rng.integer(0, 2) == 0 : r % 3 == 1 ? c != cols - 1 : c != 0;
        if (neg_inf) row[c] = -INFINITY;
      }
    }
    if (kind == SoftmaxData::NegInf && r % 3 == 0 && std::isinf(row[0])) row[0] = rng.uniform(-8.0f, 8.0f);
  }
  return in;
}

// Row lengths: 1, a warp minus one, a warp (8 float4s), a warp plus one (scalar loads), then long
// rows; row counts 1, 3, 5, 7, 37, 1000 (no multiple of a block or of 8). The large case
// shrinks under the sanitizer.
std::vector<RowShape> softmax_all_shapes() {
  std::vector<RowShape> shapes = {{1, 1}, {3, 31}, {37, 32}, {5, 33}, {7, 1000}, {37, 4096}, {3, 10000}, {1000, 1000}};
  shapes.push_back(wb::test::sanitize_mode() ? RowShape{64, 4096} : RowShape{16384, 4096});
  return shapes;
}

std::vector<RowShape> softmax_special_shapes() {
  return {{1, 1}, {3, 31}, {5, 33}, {37, 32}, {7, 1000}, {37, 4096}, {3, 10000}};
}

void check_softmax(const char* name, SoftmaxLauncher launch, RowShape shape, SoftmaxData kind,
                   const SoftmaxBound& bound) {
  const std::uint64_t seed = wb::test::seed();
  const int rows = shape.rows, cols = shape.cols;
  INFO(name << " on " << rows << " x " << cols << ", " << data_name(kind) << ", seed " << seed
            << " (replay with WB_SEED=" << seed << ")");
  const std::vector<float> in = softmax_input(kind, rows, cols, seed);
  const std::vector<double> reference = softmax_reference(in, rows, cols);
  const std::vector<float> expected(reference.begin(), reference.end());
  std::vector<float> row_max(rows, -INFINITY);
  for (std::size_t i = 0; i < in.size(); ++i) row_max[i / cols] = std::fmax(row_max[i / cols], in[i]);

  wb::GuardedDeviceBuffer<float> din(in.size());  // NaN canaries around the input catch reads past the end
  din.upload(in);
  wb::GuardedDeviceBuffer<float> dout(in.size());  // poisoned inside, canaries around
  WB_RUN_LAUNCHER(launch(din.data(), dout.data(), rows, cols, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), name);
  const std::vector<float> got = dout.download();
  auto tolerance_of = [&](std::size_t i) { return element_tolerance(bound, in[i], row_max[i / cols], cols); };
  WB_REQUIRE_OK(wb::compare_each(expected.data(), got.data(), got.size(), tolerance_of, std::size_t(cols)), name);

  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += got[std::size_t(r) * cols + c];
    if (!(std::fabs(sum - 1.0) <= row_sum_tolerance(bound, cols))) {
      std::ostringstream message;
      message << name << ": row " << r << " sums to " << sum << ", not 1 within " << row_sum_tolerance(bound, cols)
              << ". Every element is close, but the row is not normalized: " << bound.row_sum_advice;
      FAIL(message.str());
    }
  }
}

}  // namespace p2
