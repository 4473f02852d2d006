// SPDX-License-Identifier: MIT
// Phase 3 host references (no GPU): the exact sum in double (int64 for ints), the tolerance of a
// float sum, and the verdict on one computed sum, with a diagnosis a learner can act on; the same for
// the inclusive scan of 3.11. The graded tests, the grader self-test, the lessons and p3_bench all
// judge sums with judge_sum() and scans with judge_scan().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace p3 {

// What the elements past n hold in the graded tests' input buffers: a kernel that reads past the
// end adds them, and the sum is ruined by a recognisable amount.
constexpr float kFloatGuardValue = 1e30f;
constexpr int kIntGuardValue = 1 << 24;

// The exact sum: double is exact for the workbook's float inputs up to 2^29 elements of 2^-24 steps
// (and its rounding error is far below any float tolerance otherwise); int64 for ints.
double reference_sum(const std::vector<float>& x);
long long reference_sum(const std::vector<int>& x);

// How far a float sum of x may be from the exact sum. exact = true for inputs every summation
// order adds exactly (wb::random_dyadic_floats: the answer must match to the last bit); otherwise
// wb::sum_tolerance: (n-1) u sum|x|, the bound for any order (Higham 4.2), which blocks, trees,
// shuffles and atomics all meet.
double float_sum_tolerance(const std::vector<float>& x, bool exact);

// "" when `got` is right, else the teaching message: "Output untouched" (poison), NaN, read past the
// end (the guard value shows), the last k elements missed, every element counted twice, or a wrong
// sum with the likely causes. Every wrong-sum message starts with "Wrong sum".
std::string judge_sum(const std::vector<float>& x, float got, double tolerance);
std::string judge_sum(const std::vector<int>& x, int got);

// ---- 3.11 scan ------------------------------------------------------------------------------------

// The inclusive scan of ints as the GPU must compute it: out[i] = x[0] + ... + x[i] in uint32
// arithmetic, wrapping modulo 2^32 (two's complement), so the answer is exact whatever the values.
std::vector<int> reference_scan(const std::vector<int>& x);

// How far a float prefix out[i] may be from the exact x[0] + ... + x[i]: it sums i + 1 terms in some
// association, so by Higham's bound for any order (as wb::sum_tolerance for a whole sum) at most
// i u (|x[0]| + ... + |x[i]|), u = 2^-24; prefix_abs is that sum of magnitudes.
double float_prefix_tolerance(std::size_t i, double prefix_abs);

// "" when got is the inclusive scan of x: ints bit for bit (reference_scan); floats each within
// float_prefix_tolerance of the exact prefix, or to the last bit when `exact` (inputs every association
// adds exactly). Otherwise the teaching message, which starts with what went wrong: "Output untouched",
// "Exclusive scan", "The last k elements were never written" (the last, partial tile), "k elements were
// never written", "Not a number (NaN)", "Wrong carry between tiles" (the error changes only at multiples of a stride:
// what a tile adds for the tiles before it) or "Wrong values inside the tiles"; then the first wrong
// elements.
std::string judge_scan(const std::vector<int>& x, const std::vector<int>& got);
std::string judge_scan(const std::vector<float>& x, const std::vector<float>& got, bool exact);

}  // namespace p3
