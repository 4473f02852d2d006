// SPDX-License-Identifier: MIT
// Phase 2 CPU references in double, shared by lessons and graded tests and kept out of the files
// learners edit, with the tolerance rules the tests use.
#pragma once

#include <vector>

#include "common/verify.h"

double relu_reference(double x);
// The tanh approximation of GELU in double (not erf: the kernels implement the tanh form).
double gelu_tanh_reference(double x);

// Rows x cols in, row-major.
std::vector<double> rmsnorm_reference(const std::vector<float>& in, const std::vector<float>& weight, int rows,
                                      int cols, float eps);
// What any correct RMSNorm kernel may differ from rmsnorm_reference by: (cols + 16) u relative
// (the derivation is in reference.cpp).
wb::Tolerance rmsnorm_tolerance(int cols);
std::vector<double> softmax_reference(const std::vector<float>& in, int rows, int cols);
