// SPDX-License-Identifier: MIT
// How far a correct float SpMV may be from the double reference, row by row. Pure C++ (host-tested).
//
// Row i of y = A x sums len_i products a_ij x_j. Each product rounds once (relative error <= u, the
// float unit roundoff 2^-24) and the len_i - 1 additions, in any order (sequential, a warp's shuffle
// tree, atomics), add at most (len_i - 1) u sum|a_ij x_j| (Higham, Accuracy and Stability of
// Numerical Algorithms, 2nd ed., section 3.1: |error| <= gamma_n sum|a_j x_j| with n = len_i terms,
// gamma_n = n u / (1 - n u)). A fused multiply-add skips one rounding and only helps. The grader
// compares in float, so rounding the double reference to float adds u |y_i| <= u sum|a_ij x_j|:
//   |y_i - ref_i| <= (len_i + 1) u sum_j |a_ij x_j| / (1 - (len_i + 1) u) + tiny.
// tiny (1e-30) lets an empty row (sum 0) come out as -0.0 as well as 0.0 and nothing else.
#pragma once

#include <cstdint>
#include <vector>

#include "common/data.h"
#include "common/verify.h"
#include "phase4_spmv/harness/sparse.h"

namespace p4 {

inline wb::Tolerance spmv_row_tolerance(long long row_length, double row_abs_sum) {
  const double terms = static_cast<double>(row_length) + 1.0;
  const double gamma = terms * wb::kFloatEpsilon / (1.0 - terms * wb::kFloatEpsilon);
  return wb::Tolerance{gamma * row_abs_sum + 1e-30, 0.0};
}

// What the lesson and the grader check a kernel against: x from `seed`, y = A x in double rounded to
// float, and each row's tolerance.
struct SpmvExpected {
  std::vector<float> x, y;
  std::vector<wb::Tolerance> tolerance;
};

inline SpmvExpected spmv_expected(const p4::sparse::Csr& a, std::uint64_t seed) {
  SpmvExpected e;
  e.x = wb::random_floats(static_cast<std::size_t>(a.cols), seed);
  std::vector<double> abs_sum;
  const std::vector<double> reference = p4::sparse::spmv_reference(a, e.x, &abs_sum);
  e.y.assign(reference.begin(), reference.end());
  e.tolerance.resize(reference.size());
  for (int r = 0; r < a.rows; ++r)
    e.tolerance[r] = spmv_row_tolerance(a.row_ptr[r + 1] - a.row_ptr[r], abs_sum[static_cast<std::size_t>(r)]);
  return e;
}

}  // namespace p4
