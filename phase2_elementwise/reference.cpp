// SPDX-License-Identifier: MIT
#include "phase2_elementwise/reference.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>

// NaN stays NaN (NaN < 0 is false), as in PyTorch: a ReLU must not hide a NaN from an earlier layer.
double relu_reference(double x) {
  return x < 0.0 ? 0.0 : x;
}

double gelu_tanh_reference(double x) {
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
