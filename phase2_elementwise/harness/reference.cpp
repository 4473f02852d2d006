// SPDX-License-Identifier: MIT
#include "phase2_elementwise/harness/reference.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

namespace p2 {

// NaN stays NaN (NaN < 0 is false), as in PyTorch: a ReLU must not hide a NaN from an earlier layer.
double relu_reference(double x) {
  return x < 0.0 ? 0.0 : x;
}

// GELU(-inf) is its limit, 0: the formula would give 0.5 * -inf * (1 + tanh(-inf)) = -inf * 0 = NaN.
// The zero is -0.0, the side the limit comes from and what the float formula gives wherever tanhf has
// saturated to -1 (the tests compare values, so +0.0 passes too). +inf gives +inf, NaN stays NaN.
double gelu_tanh_reference(double x) {
  if (x == -std::numeric_limits<double>::infinity()) return -0.0;
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

std::vector<double> rmsnorm_reference(const std::vector<float>& in, const std::vector<float>& weight, int rows,
                                      int cols, float eps) {
  std::vector<double> out(in.size());
  for (int r = 0; r < rows; ++r) {
    const float* row = &in[std::size_t(r) * cols];
    double sum_squares = 0;
    for (int c = 0; c < cols; ++c) sum_squares += double(row[c]) * row[c];
    const double inv_rms = 1.0 / std::sqrt(sum_squares / cols + double(eps));
    for (int c = 0; c < cols; ++c) out[std::size_t(r) * cols + c] = row[c] * inv_rms * weight[c];
  }
  return out;
}

// The tolerance, relative, from the float operations of any correct kernel (u = 2^-24):
//   the sum of cols squares: each square rounds (u), any order of adding cols positive terms errs by
//   at most (cols - 1) u of the sum, so the sum is off by < cols u relative;
//   / cols and + eps: 2 u; rsqrtf: at most 2 ulp = 4 u; rsqrt halves the relative error of its
//   argument; x * inv_rms * weight: 2 u.
// In all < (cols / 2 + 8) u; (cols + 16) u leaves a factor 2 for a tree vs a sequential sum and
// still catches a sum instead of a mean (off by sqrt(cols)), a missing weight (random in [-2, 2]),
// a missing eps (the zero row gives NaN, the tiny rows are off by 2x or more). A skipped element
// stays poisoned (its output is never written); a read past the row's end meets the next row (one
// extra square in a short row: about 1 / cols relative, over the bound up to ~2000 columns) or, in
// the last row, a NaN canary.
wb::Tolerance rmsnorm_tolerance(int cols) {
  return {0.0, (static_cast<double>(cols) + 16.0) * wb::kFloatEpsilon};
}

std::vector<double> softmax_reference(const std::vector<float>& in, int rows, int cols) {
  std::vector<double> out(in.size());
  for (int r = 0; r < rows; ++r) {
    const float* row = &in[std::size_t(r) * cols];
    double max = -std::numeric_limits<double>::infinity();
    for (int c = 0; c < cols; ++c) max = std::max(max, double(row[c]));
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += std::exp(double(row[c]) - max);
    for (int c = 0; c < cols; ++c) out[std::size_t(r) * cols + c] = std::exp(double(row[c]) - max) / sum;
  }
  return out;
}

// ---- LayerNorm ------------------------------------------------------------------------------------
// What a correct float kernel may differ by, for one row of n = cols floats with exact mean mu and
// population variance var (u = 2^-24, M = max |x|, D = max |x - mu|, the spread, L = ceil(log2 n)).
// A kernel may take its statistics in any stable way: a Welford chain, per-thread (count, mean, M2)
// combined in a tree with Chan, Golub & LeVeque's formula, two passes over the row held on chip, or
// sums of x - K with a shift K from the row. The worst case of each:
//   mean: n terms summed in any order err by (n - 1) u sum|x| (Higham, section 4.2), so the mean by
//     n u M; a Welford chain rounds its running mean by about ((n + 1) / 2) u M + 4 u D; a Chan tree
//     over leaves of k values errs by (k + L) u M + 6 L u D; x - K reaches 2D, so shifted sums err
//     by 2 n u D + u M. E_mu = (n + 2) u M + (2n + 6L) u D holds them all.
//   var: two passes square deviations from a mean off by E_mu: (n + 3) u D^2 + E_mu^2. A Welford chain
//     and a Chan tree carry their means' errors into (x - m)(x - m') or into the correction term
//     delta^2 n_a n_b / n, where |x - m| and |delta| <= 2D: (n + 3) u D M + (n + 19) u D^2. Shifted
//     sums: 5 (n + 2) u D^2, plus their mean's error squared.
//     E_var = (n + 20) u D M + 6 (n + 2) u D^2 + 2 E_mu^2.
//   rstd: var + eps rounds (u), rsqrtf errs by 2 ulp (4u), and 1 / sqrt turns a relative error rho of
//     its argument into at most 1 / sqrt(1 - rho) - 1: E_r = (1 + 4u) / sqrt(1 - rho) - 1 with
//     rho = (1 + u) E_var / (var + eps) + u; no bound at all once rho >= 1.
//   y = (x - mean) * rstd * gamma + beta, a = x - mu, r the exact rstd: x - mean carries E_mu and
//     rounds, the two products round (3u of |a| + E_mu), rstd carries E_r, the final add rounds by u |y|
//     and the expected value is rounded to float (u/2): |gamma| r ((E_mu + 3u (|a| + E_mu)) (1 + E_r) +
//     |a| E_r) + 2u |y|, times 1.01 for the second-order terms.
// The D M term is what a large mean costs: for 1e4 + noise of std 1 at n = 33 it allows ~5% of var,
// while E[x^2] - E[x]^2 in float loses all of it (x^2 ~ 1e8 rounds by up to 4; var ~ 1). A constant
// row whose sums are exact (D = 0) gives the exact mean in every stable method, so x - mean = 0,
// var = 0, y = beta and rstd = rsqrtf(eps).
namespace {

// True when every partial sum k v (k <= n) is a float: v's significant bits plus log2(n) fit in 24.
bool sums_exactly(float v, int n) {
  if (v == 0.0f) return true;
  int exponent = 0;
  double mantissa = std::fabs(std::frexp(static_cast<double>(v), &exponent));
  int bits = 0;
  while (mantissa != std::floor(mantissa)) {
    mantissa *= 2;
    ++bits;
  }
  return bits + static_cast<int>(std::ceil(std::log2(static_cast<double>(n)))) <= 24;
}

}  // namespace

LayernormRowBound layernorm_row_bound(const float* row, int cols, double mean, double var, float eps) {
  const double u = wb::kFloatEpsilon;
  LayernormRowBound bound;
  double max_abs = 0, max_dev = 0;
  for (int c = 0; c < cols; ++c) {
    max_abs = std::max(max_abs, std::fabs(double(row[c])));
    max_dev = std::max(max_dev, std::fabs(double(row[c]) - mean));
  }
  if (max_dev == 0 && sums_exactly(row[0], cols)) {
    bound.constant = true;
    bound.rstd_rel = 4 * u;
    return bound;
  }
  const double n = cols;
  const double levels = std::ceil(std::log2(n));
  bound.mean_err = (n + 2) * u * max_abs + (2 * n + 6 * levels) * u * max_dev;
  bound.var_err =
      (n + 20) * u * max_dev * max_abs + 6 * (n + 2) * u * max_dev * max_dev + 2 * bound.mean_err * bound.mean_err;
  const double rho = (1 + u) * bound.var_err / (var + double(eps)) + u;
  bound.rstd_rel = rho < 1 ? (1 + 4 * u) / std::sqrt(1 - rho) - 1 : std::numeric_limits<double>::infinity();
  return bound;
}

LayernormReference layernorm_reference(const std::vector<float>& x, const std::vector<float>& gamma,
                                       const std::vector<float>& beta, int rows, int cols, float eps) {
  LayernormReference ref;
  ref.y.resize(x.size());
  ref.mean.resize(rows);
  ref.var.resize(rows);
  ref.rstd.resize(rows);
  ref.bound.resize(rows);
  for (int r = 0; r < rows; ++r) {
    const float* row = &x[std::size_t(r) * cols];
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += row[c];
    const double mean = sum / cols;
    double m2 = 0;
    for (int c = 0; c < cols; ++c) m2 += (row[c] - mean) * (row[c] - mean);
    const double var = m2 / cols;
    const double rstd = 1.0 / std::sqrt(var + double(eps));
    for (int c = 0; c < cols; ++c) ref.y[std::size_t(r) * cols + c] = (row[c] - mean) * rstd * gamma[c] + beta[c];
    ref.mean[r] = mean;
    ref.var[r] = var;
    ref.rstd[r] = rstd;
    ref.bound[r] = layernorm_row_bound(row, cols, mean, var, eps);
  }
  return ref;
}

wb::Tolerance layernorm_y_tolerance(const LayernormRowBound& bound, double x_minus_mean, double rstd, double gamma,
                                    double y) {
  if (bound.constant) return {0.0, 0.0};
  if (std::isinf(bound.rstd_rel)) return {std::numeric_limits<double>::infinity(), 0.0};
  const double u = wb::kFloatEpsilon;
  const double a = std::fabs(x_minus_mean);
  const double e_mu = bound.mean_err, e_r = bound.rstd_rel;
  const double scaled = std::fabs(gamma) * rstd * ((e_mu + 3 * u * (a + e_mu)) * (1 + e_r) + a * e_r);
  return {1.01 * scaled + 2 * u * std::fabs(y), 0.0};
}

wb::Tolerance layernorm_mean_tolerance(const LayernormRowBound& bound, double mean) {
  if (bound.constant) return {0.0, 0.0};
  return {bound.mean_err + wb::kFloatEpsilon * std::fabs(mean), 0.0};
}

wb::Tolerance layernorm_rstd_tolerance(const LayernormRowBound& bound, double rstd) {
  if (std::isinf(bound.rstd_rel)) return {std::numeric_limits<double>::infinity(), 0.0};
  // The constant row's 4u (rsqrtf) or E_r, plus the expected value rounded to float.
  return {rstd * (bound.rstd_rel + wb::kFloatEpsilon), 0.0};
}

}  // namespace p2
