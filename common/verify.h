// SPDX-License-Identifier: MIT
// Host-side verification: compare an output with a reference under an abs + rel tolerance,
// recognise untouched outputs (poison), NaNs and damaged guard canaries, and explain the
// failure in a sentence a learner can act on. Pure C++: tested on machines without a GPU.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace wb {

// ---- poison and canary values ------------------------------------------------------------
// Bit patterns no correct kernel produces from the workbook's inputs: quiet NaNs with a payload
// for floating point, odd constants for integers. Compared bit for bit, never with ==.
template <typename T>
T value_from_bits(std::uint64_t bits) {
  T value;
  if constexpr (sizeof(T) == 8) {
    std::memcpy(&value, &bits, 8);
  } else if constexpr (sizeof(T) == 4) {
    const std::uint32_t b = static_cast<std::uint32_t>(bits);
    std::memcpy(&value, &b, 4);
  } else if constexpr (sizeof(T) == 2) {
    // Through void*: __nv_bfloat16 and __half are classes, whose bits GCC would rather not see copied.
    const std::uint16_t b = static_cast<std::uint16_t>(bits);
    std::memcpy(static_cast<void*>(&value), &b, 2);
  } else {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                  "poison/canary values exist for 2-, 4- and 8-byte types");
  }
  return value;
}

// 2-byte types (__nv_bfloat16, __half): 0x7FDE and 0x7FCA are quiet NaNs in both BF16 (8 exponent
// bits) and FP16 (5 exponent bits), so a kernel that reads a canary or a poisoned input gets NaN.
template <typename T>
T poison_value() {
  return value_from_bits<T>(sizeof(T) == 8 ? 0x7FF8DEADDEADDEADull : sizeof(T) == 2 ? 0x7FDEull : 0x7FC0DEADull);
}
template <typename T>
T canary_value() {
  return value_from_bits<T>(sizeof(T) == 8 ? 0x7FF8CA7CA7CA7CA7ull : sizeof(T) == 2 ? 0x7FCAull : 0x7FC0CA7Cull);
}
template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// ---- tolerances -----------------------------------------------------------------------------
// |got - expected| <= abs + rel * |expected|
struct Tolerance {
  double abs = 0.0;
  double rel = 0.0;
};

constexpr double kFloatEpsilon = 1.0 / (1 << 24);  // unit roundoff u of float (2^-24)

// Any order of summing n floats (sequential, tree, atomics) errs by at most (n-1)·u·Σ|x|
// (Higham, Accuracy and Stability of Numerical Algorithms, §4.2). This bound never rejects a
// correct parallel sum; tests pair it with exactly-summable inputs to catch a missing element.
inline Tolerance sum_tolerance(std::size_t n, double sum_abs) {
  const double terms = n > 1 ? static_cast<double>(n - 1) : 1.0;
  return Tolerance{terms * kFloatEpsilon * sum_abs + 1e-30, 0.0};
}

inline bool within(double expected, double got, Tolerance tol) {
  if (std::isnan(expected)) return std::isnan(got);
  if (std::isinf(expected)) return got == expected;
  return std::fabs(got - expected) <= tol.abs + tol.rel * std::fabs(expected);
}

// ---- comparing arrays -------------------------------------------------------------------------
struct Mismatch {
  std::size_t index = 0;
  double expected = 0;
  double got = 0;
  bool untouched = false;  // still the poison pattern
};

struct CompareReport {
  std::size_t count = 0;      // elements compared
  std::size_t bad = 0;        // elements outside the tolerance (includes the two below)
  std::size_t untouched = 0;  // elements never written (poison)
  std::size_t nan = 0;        // NaN where a number was expected
  std::size_t first_bad = 0;
  std::size_t last_bad = 0;
  std::size_t tail_untouched_from = 0;  // when every element from here on is untouched
  bool untouched_is_tail = false;
  std::size_t cols = 0;  // > 0: indices are printed as [row, col]
  Tolerance tolerance;
  std::vector<Mismatch> first;  // up to kShown, in index order
  std::vector<Mismatch> last;   // up to kShown, the last bad ones
  static constexpr std::size_t kShown = 5;

  bool ok() const { return bad == 0; }
  // The failure report: counts, the first and last bad entries, then one sentence on the cause.
  std::string describe(const std::string& what) const;
  // The cause in a few words, for a result line: "output untouched", "3 of 1000 elements wrong".
  std::string reason() const;
};

namespace detail {
void record_mismatch(CompareReport& report, const Mismatch& m);
void finish_report(CompareReport& report);
}  // namespace detail

// Like compare(), with a tolerance per element: `tolerance_of(i)` returns element i's bound (the
// error bound of a prefix sum, say, grows with its number of terms). The report quotes the first bad
// element's bound.
template <typename T, typename ToleranceOf>
CompareReport compare_each(const T* expected, const T* got, std::size_t n, ToleranceOf tolerance_of,
                           std::size_t cols = 0) {
  static_assert(std::is_arithmetic<T>::value, "compare() works on arithmetic element types");
  CompareReport report;
  report.count = n;
  report.cols = cols;
  const T poison = poison_value<T>();
  for (std::size_t i = 0; i < n; ++i) {
    const Tolerance tol = tolerance_of(i);
    Mismatch m{i, static_cast<double>(expected[i]), static_cast<double>(got[i]), same_bits(got[i], poison)};
    if (!m.untouched && within(m.expected, m.got, tol)) continue;
    if (report.bad == 0) report.tolerance = tol;
    if (!m.untouched && std::isnan(m.got)) ++report.nan;
    detail::record_mismatch(report, m);
  }
  detail::finish_report(report);
  return report;
}

template <typename T>
CompareReport compare(const T* expected, const T* got, std::size_t n, Tolerance tol, std::size_t cols = 0) {
  CompareReport report = compare_each(
      expected, got, n, [tol](std::size_t) { return tol; }, cols);
  report.tolerance = tol;
  return report;
}

template <typename T>
CompareReport compare(const std::vector<T>& expected, const std::vector<T>& got, Tolerance tol, std::size_t cols = 0) {
  if (expected.size() != got.size()) {
    CompareReport report;
    report.count = expected.size();
    report.bad = expected.size() > got.size() ? expected.size() - got.size() : got.size() - expected.size();
    return report;  // describe() says the sizes differ
  }
  return compare(expected.data(), got.data(), expected.size(), tol, cols);
}

// ---- guard canaries ------------------------------------------------------------------------------
struct GuardReport {
  std::size_t count = 0;          // elements of the guarded array
  std::size_t front_damaged = 0;  // canaries changed before index 0
  std::size_t back_damaged = 0;   // canaries changed after index count-1
  long long first_before = 0;     // most negative damaged index (-1 = just before the array)
  std::size_t first_after = 0;    // first damaged index at or after count
  bool ok() const { return front_damaged == 0 && back_damaged == 0; }
  std::string describe(const std::string& what) const;
  // "wrote past the end", "wrote before the start" (or both): the result line's cause.
  std::string reason() const;
};

template <typename T>
GuardReport inspect_guards(const T* all, std::size_t front, std::size_t count, std::size_t back, T canary) {
  GuardReport report;
  report.count = count;
  for (std::size_t i = 0; i < front; ++i) {
    if (!same_bits(all[i], canary)) {
      if (report.front_damaged == 0) report.first_before = static_cast<long long>(i) - static_cast<long long>(front);
      ++report.front_damaged;
    }
  }
  for (std::size_t i = 0; i < back; ++i) {
    if (!same_bits(all[front + count + i], canary)) {
      if (report.back_damaged == 0) report.first_after = count + i;
      ++report.back_damaged;
    }
  }
  return report;
}

// Exact reference sums (double accumulation) and Σ|x| for the sum tolerance.
template <typename T>
double sum_abs(const std::vector<T>& x) {
  double s = 0;
  for (T v : x) s += std::fabs(static_cast<double>(v));
  return s;
}

}  // namespace wb
