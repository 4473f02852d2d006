// SPDX-License-Identifier: MIT
// Phase 2 CPU references in double, shared by lessons and graded tests and kept out of the files
// learners edit, with the tolerance rules the tests use.
#pragma once

#include <vector>

#include "common/verify.h"

namespace p2 {

double relu_reference(double x);
// The tanh approximation of GELU in double (not erf: the kernels implement the tanh form), extended
// to the infinities by its limits: GELU(-inf) = 0 (returned as -0.0), GELU(+inf) = +inf; NaN stays NaN.
double gelu_tanh_reference(double x);

// Rows x cols in, row-major.
std::vector<double> rmsnorm_reference(const std::vector<float>& in, const std::vector<float>& weight, int rows,
                                      int cols, float eps);
// What any correct RMSNorm kernel may differ from rmsnorm_reference by: (cols + 16) u relative
// (the derivation is in reference.cpp).
wb::Tolerance rmsnorm_tolerance(int cols);
std::vector<double> softmax_reference(const std::vector<float>& in, int rows, int cols);

// ---- LayerNorm ------------------------------------------------------------------------------------
// How far any correct float kernel may be from the exact statistics of one row (derivation in
// reference.cpp): absolute bounds on its mean and variance, a relative bound on its rstd.
struct LayernormRowBound {
  // Every value equal, and every partial sum of them exact in float (one column; 0.75, -3, 1024 at any
  // length the tests use): the mean is the value, y = beta exactly, rstd within rsqrtf's 2 ulp.
  bool constant = false;
  double mean_err = 0;  // |mean - exact mean|
  double var_err = 0;   // |var - exact var|
  double rstd_rel = 0;  // |rstd - exact rstd| / exact rstd; infinite where var_err reaches var + eps
};
// `row` holds cols floats whose exact mean and population variance are `mean` and `var`.
LayernormRowBound layernorm_row_bound(const float* row, int cols, double mean, double var, float eps);

struct LayernormReference {
  std::vector<double> y;     // rows x cols
  std::vector<double> mean;  // rows
  std::vector<double> var;   // rows, the population variance
  std::vector<double> rstd;  // rows, 1 / sqrt(var + eps)
  std::vector<LayernormRowBound> bound;
};
// In double, two passes over each row (exact to far below float's rounding).
LayernormReference layernorm_reference(const std::vector<float>& x, const std::vector<float>& gamma,
                                       const std::vector<float>& beta, int rows, int cols, float eps);
// The tolerances against the reference rounded to float, from the row's bound: y[r][c] (x_minus_mean =
// x[r][c] - mean[r] and y exact), mean[r], rstd[r].
wb::Tolerance layernorm_y_tolerance(const LayernormRowBound& bound, double x_minus_mean, double rstd, double gamma,
                                    double y);
wb::Tolerance layernorm_mean_tolerance(const LayernormRowBound& bound, double mean);
wb::Tolerance layernorm_rstd_tolerance(const LayernormRowBound& bound, double rstd);

}  // namespace p2
