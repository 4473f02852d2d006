// SPDX-License-Identifier: MIT
// CPU references for phase 0 that lessons and graded tests share. They live here, not in the files
// learners edit, so the grader never trusts code under test.
#pragma once

#include <vector>

// out[i] = sum over k = -R..R of w[k + R] * x[i + k], x[j] = 0 outside [0, n): the kernel's order, each
// step one fused multiply-add rounded once. Returns the largest sum over k of |w * x| of any output,
// which the tolerance scales with.
double stencil_reference(const std::vector<float>& w, const std::vector<float>& x, std::vector<float>& out);

// process() on the CPU for one element: bit-exact, since both sides use a float fma per step.
float process_reference(float x, int work);
