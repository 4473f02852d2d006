// SPDX-License-Identifier: MIT
// The phase 2 CPU references grade every kernel of the phase, so they are tested on their own.
#include "phase2_elementwise/harness/reference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "common/data.h"
#include "common/testing.h"

TEST_CASE("relu and the tanh GELU match known values", "[host][p2]") {
  CHECK(p2::relu_reference(-2.0) == 0.0);
  CHECK(p2::relu_reference(3.5) == 3.5);
  CHECK(std::isnan(p2::relu_reference(std::nan(""))));  // a ReLU keeps NaN
  CHECK(p2::gelu_tanh_reference(0.0) == 0.0);
  CHECK(std::fabs(p2::gelu_tanh_reference(1.0) - 0.8411919906) < 1e-9);  // tanh-form GELU(1)
  CHECK(std::fabs(p2::gelu_tanh_reference(-1.0) + 0.1588080094) < 1e-9);
  CHECK(std::fabs(p2::gelu_tanh_reference(10.0) - 10.0) < 1e-12);  // ~identity for large x
  CHECK(std::fabs(p2::gelu_tanh_reference(-10.0)) < 1e-12);        // ~0 for very negative x
  // The infinities by their limits (the formula alone gives -inf * 0 = NaN at -inf); NaN stays NaN.
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(p2::gelu_tanh_reference(-inf) == 0.0);
  CHECK(std::signbit(p2::gelu_tanh_reference(-inf)));  // -0.0, as the float formula gives once tanh saturates
  CHECK(p2::gelu_tanh_reference(inf) == inf);
  CHECK(std::isnan(p2::gelu_tanh_reference(std::nan(""))));
  CHECK(p2::gelu_tanh_reference(-1e300) == 0.0);  // x^3 overflows to -inf in double: tanh(-inf) = -1, no NaN
}

TEST_CASE("rmsnorm divides by the root mean square plus eps, and maps a zero row to zeros", "[host][p2]") {
  const std::vector<float> in = {3, 4, 0, 0};  // 2 rows of 2: rms of row 0 = sqrt(12.5)
  const std::vector<float> weight = {1, 2};
  const std::vector<double> out = p2::rmsnorm_reference(in, weight, 2, 2, 0.0f);
  CHECK(std::fabs(out[0] - 3 / std::sqrt(12.5)) < 1e-12);
  CHECK(std::fabs(out[1] - 8 / std::sqrt(12.5)) < 1e-12);
  const std::vector<double> zero_row = p2::rmsnorm_reference(in, weight, 2, 2, 1e-5f);
  CHECK(zero_row[2] == 0.0);
  CHECK(zero_row[3] == 0.0);
}

TEST_CASE("softmax is stable for large values, gives 0 for -inf and rows summing to 1", "[host][p2]") {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> in = {1000, -1000, 1000, 0, -inf, 0};
  const std::vector<double> out = p2::softmax_reference(in, 2, 3);
  CHECK(std::fabs(out[0] - 0.5) < 1e-15);
  CHECK(out[1] == 0.0);
  CHECK(std::fabs(out[2] - 0.5) < 1e-15);
  CHECK(std::fabs(out[3] - 0.5) < 1e-15);
  CHECK(out[4] == 0.0);
  CHECK(std::fabs(out[0] + out[1] + out[2] - 1.0) < 1e-15);
}

// ---- LayerNorm: the reference and the bounds every graded kernel is held to ----------------------------

TEST_CASE("layernorm normalizes with the population variance and maps a constant row to beta", "[host][p2]") {
  const std::vector<float> x = {1, 2, 3, 4, 0.75f, 0.75f, 0.75f, 0.75f};  // mean 2.5, var 1.25; a constant row
  const std::vector<float> gamma = {1, 2, 1, 1};
  const std::vector<float> beta = {0, 0, 0.5f, -1};
  const p2::LayernormReference ref = p2::layernorm_reference(x, gamma, beta, 2, 4, 1e-5f);
  const double rstd = 1 / std::sqrt(1.25 + double(1e-5f));
  CHECK(ref.mean[0] == 2.5);
  CHECK(ref.var[0] == 1.25);
  CHECK(std::fabs(ref.rstd[0] - rstd) < 1e-15);
  CHECK(std::fabs(ref.y[1] - (-0.5 * rstd * 2)) < 1e-15);
  CHECK(std::fabs(ref.y[3] - (1.5 * rstd - 1)) < 1e-15);
  CHECK_FALSE(ref.bound[0].constant);
  // The constant row: exact mean, y = beta, rstd = 1 / sqrt(eps); its bounds are exact too.
  CHECK(ref.bound[1].constant);
  CHECK(ref.mean[1] == 0.75);
  CHECK(ref.y[6] == 0.5);
  CHECK(ref.y[7] == -1.0);
  CHECK(p2::layernorm_y_tolerance(ref.bound[1], 0.0, ref.rstd[1], 1.0, 0.5).abs == 0.0);
  CHECK(p2::layernorm_mean_tolerance(ref.bound[1], 0.75).abs == 0.0);
  // A constant row whose sums round (0.1 is no short binary fraction) gets the general bound instead.
  const std::vector<float> tenths(33, 0.1f);
  CHECK_FALSE(p2::layernorm_row_bound(tenths.data(), 33, double(0.1f), 0.0, 1e-5f).constant);
  CHECK(p2::layernorm_row_bound(tenths.data(), 1, double(0.1f), 0.0, 1e-5f).constant);  // one column: x / 1
}

namespace {

struct FloatStats {
  float mean, var;
};

// The stable ways a kernel may take a row's statistics, in float, and the naive one that must fail.
FloatStats welford_chain(const float* x, int n) {
  float mean = 0, m2 = 0;
  for (int i = 0; i < n; ++i) {
    const float d = x[i] - mean;
    mean += d / static_cast<float>(i + 1);
    m2 += d * (x[i] - mean);
  }
  return {mean, m2 / static_cast<float>(n)};
}

FloatStats two_pass(const float* x, int n) {
  float sum = 0;
  for (int i = 0; i < n; ++i) sum += x[i];
  const float mean = sum / static_cast<float>(n);
  float m2 = 0;
  for (int i = 0; i < n; ++i) m2 += (x[i] - mean) * (x[i] - mean);
  return {mean, m2 / static_cast<float>(n)};
}

FloatStats shifted_sums(const float* x, int n) {
  const float k = x[0];
  float s1 = 0, s2 = 0;
  for (int i = 0; i < n; ++i) {
    s1 += x[i] - k;
    s2 += (x[i] - k) * (x[i] - k);
  }
  const float d = s1 / static_cast<float>(n);
  return {k + d, s2 / static_cast<float>(n) - d * d};
}

FloatStats naive_moments(const float* x, int n) {
  float s1 = 0, s2 = 0;
  for (int i = 0; i < n; ++i) {
    s1 += x[i];
    s2 += x[i] * x[i];
  }
  const float mean = s1 / static_cast<float>(n);
  return {mean, s2 / static_cast<float>(n) - mean * mean};
}

// Leaves of `leaf` consecutive values (two passes each), then Chan's combination in a pairwise tree.
struct Triple {
  float n, mean, m2;
};
Triple combine(Triple a, Triple b) {
  const float n = a.n + b.n;
  if (n == 0) return a;
  const float delta = b.mean - a.mean;
  const float w = b.n / n;
  return {n, std::fma(delta, w, a.mean), a.m2 + b.m2 + delta * delta * a.n * w};
}
FloatStats chan_tree(const float* x, int n, int leaf) {
  std::vector<Triple> level;
  for (int start = 0; start < n; start += leaf) {
    const int k = std::min(leaf, n - start);
    const FloatStats s = two_pass(x + start, k);
    level.push_back({static_cast<float>(k), s.mean, s.var * static_cast<float>(k)});
  }
  while (level.size() > 1) {
    std::vector<Triple> next;
    for (std::size_t i = 0; i < level.size(); i += 2)
      next.push_back(i + 1 < level.size() ? combine(level[i], level[i + 1]) : level[i]);
    level = next;
  }
  return {level[0].mean, level[0].m2 / static_cast<float>(n)};
}

// Rows like the graded ones: noise in [-1, 1], an offset of 3, an offset of 1e4 with noise in [-2, 2],
// noise of 1e-3, and a constant row of 0.75 (whose sums are exact: every method must give var = 0).
std::vector<float> row_of_kind(int kind, int n, std::uint64_t seed) {
  std::vector<float> row = wb::random_floats(static_cast<std::size_t>(n), seed);
  for (float& v : row) v = kind == 1 ? 3 + v : kind == 2 ? 1e4f + 2 * v : kind == 3 ? 1e-3f * v : kind == 4 ? 0.75f : v;
  return row;
}

}  // namespace

TEST_CASE("the layernorm bounds accept every stable float method and reject E[x^2] - E[x]^2 on a large mean",
          "[host][p2]") {
  using Method = FloatStats (*)(const float*, int);
  const Method leaves_of_4 = [](const float* x, int n) { return chan_tree(x, n, 4); };
  const Method leaves_of_32 = [](const float* x, int n) { return chan_tree(x, n, 32); };
  const Method leaves_of_1024 = [](const float* x, int n) { return chan_tree(x, n, 1024); };
  const std::vector<std::pair<const char*, Method>> stable = {{"Welford chain", welford_chain},
                                                              {"two passes", two_pass},
                                                              {"shifted sums", shifted_sums},
                                                              {"Chan tree, leaves of 4", leaves_of_4},
                                                              {"Chan tree, leaves of 32", leaves_of_32},
                                                              {"Chan tree, leaves of 1024", leaves_of_1024}};
  for (const int n : {2, 3, 31, 33, 256, 257, 1000, 4097, 32768}) {
    for (int kind = 0; kind < 5; ++kind) {
      const std::vector<float> row = row_of_kind(kind, n, 7 + n + kind);
      std::vector<float> one(static_cast<std::size_t>(n), 1.0f);
      const p2::LayernormReference ref = p2::layernorm_reference(row, one, std::vector<float>(n, 0.0f), 1, n, 1e-5f);
      const p2::LayernormRowBound& b = ref.bound[0];
      for (const auto& [name, method] : stable) {
        const FloatStats s = method(row.data(), n);
        INFO(name << ", n = " << n << ", kind " << kind << ": mean " << s.mean << " vs " << ref.mean[0] << " (bound "
                  << b.mean_err << "), var " << s.var << " vs " << ref.var[0] << " (bound " << b.var_err << ")");
        CHECK(std::fabs(s.mean - ref.mean[0]) <= b.mean_err);
        CHECK(std::fabs(s.var - ref.var[0]) <= b.var_err);
      }
      if (kind == 2 && n <= 1000) {  // the offset row: the naive moments are far outside the bound
        const FloatStats s = naive_moments(row.data(), n);
        INFO("naive, n = " << n << ": var " << s.var << " vs " << ref.var[0] << " (bound " << b.var_err << ")");
        CHECK_FALSE(std::fabs(s.var - ref.var[0]) <= b.var_err);
      }
    }
  }
}
