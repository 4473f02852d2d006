// SPDX-License-Identifier: MIT
#include "phase0_basics/reference.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "phase0_basics/basics.cuh"

double stencil_reference(const std::vector<float>& w, const std::vector<float>& x, std::vector<float>& out) {
  const std::size_t n = x.size();
  out.assign(n, 0.0f);
  double largest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    float sum = 0.0f;
    double magnitude = 0;
    for (int k = -kStencilRadius; k <= kStencilRadius; ++k) {
      const long long j = static_cast<long long>(i) + k;
      const float xj = (j >= 0 && j < static_cast<long long>(n)) ? x[static_cast<std::size_t>(j)] : 0.0f;
      sum = std::fma(w[k + kStencilRadius], xj, sum);
      magnitude += std::fabs(static_cast<double>(w[k + kStencilRadius]) * xj);
    }
    out[i] = sum;
    largest = std::max(largest, magnitude);
  }
  return largest;
}

float process_reference(float x, int work) {
  for (int k = 0; k < work; ++k) x = std::fma(x, kProcessDecay, kProcessStep);
  return x;
}
