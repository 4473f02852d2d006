// SPDX-License-Identifier: MIT
#include "phase3_reduction/reference.h"

#include <cmath>
#include <sstream>
#include <type_traits>

#include "common/verify.h"

namespace {

constexpr std::size_t kLongestTailChecked = 4096;

const char* kLikelyCauses =
    " Likely causes: a missing __syncthreads() between two steps of the tree (then the answer also "
    "changes from run to run), a step of the tree skipped (the last warp's steps are the usual ones), "
    "an element added twice (a second load not bounded by n, or blocks that overlap), or a block whose "
    "partial sum is never written.";

std::string format_value(double v) {
  std::ostringstream text;
  text.precision(17);
  text << v;
  return text.str();
}

// A float constant as written in the source (1e+30, not 1.0000000150474662e+30).
std::string format_value(float v) {
  std::ostringstream text;
  text.precision(6);
  text << v;
  return text.str();
}

// Common to floats and ints: untouched, NaN, read past n, a missed tail, doubled, plain wrong.
template <typename T>
std::string judge(const std::vector<T>& x, T got, double expected, double tolerance, double guard) {
  const std::size_t n = x.size();
  const std::string where = "the sum of n = " + std::to_string(n) + " elements";
  if (wb::same_bits(got, wb::poison_value<T>()))
    return "Output untouched: " + where +
           " still holds the poison value. Is the kernel implemented, and does thread 0 of the last pass "
           "write its block's sum to out[blockIdx.x]?";
  const double value = static_cast<double>(got);
  if (std::isnan(value))
    return "Wrong sum: " + where +
           " is NaN. A NaN comes from reading memory nobody wrote: most often reading past the end of a later "
           "pass's input (after the last partial sum the workspace holds NaN poison: bound every load by the "
           "pass's count), shared memory past the loaded elements, or a workspace slot never filled.";
  const double diff = value - expected;
  if (std::fabs(diff) <= tolerance) return "";
  const std::string numbers = " (expected " + format_value(expected) + ", got " + format_value(value) + ", off by " +
                              format_value(diff) + ", tolerance " + format_value(tolerance) + ")";
  // A read past n adds guard values: 1e30 for floats swamps the sum; for ints a multiple of 2^24.
  if (std::fabs(diff) >= 0.5 * guard) {
    const double k = std::round(diff / guard);
    const bool whole = std::is_integral<T>::value ? std::fabs(diff - k * guard) <= tolerance : true;
    if (whole)
      return "Wrong sum: " + where + numbers + ". The kernel read about " + format_value(std::fabs(k)) +
             " element(s) past the end of the input (they hold " +
             (std::is_integral<T>::value ? format_value(guard) : format_value(static_cast<float>(guard))) +
             " in this test): bound every load by i < n, including the second load of an add during load and "
             "the vector loads' tail.";
  }
  if (expected != 0 && value == 0)
    return "Wrong sum: " + where + " is 0" + numbers +
           ". Nothing was added: is the load (or the reduction that fills partial[0]) implemented?";
  if (expected != 0 && std::fabs(value - 2 * expected) <= 2 * tolerance)
    return "Wrong sum: " + where + numbers +
           ". It is twice the sum: every element was counted twice. With an add during load each block covers "
           "2 * blockDim.x elements, so the grid needs half as many blocks.";
  // Dropping the last k elements: the tail past the last full block, warp or vector.
  double tail = 0;
  for (std::size_t k = 1; k < n && k <= kLongestTailChecked; ++k) {
    tail += static_cast<double>(x[n - k]);
    if (std::fabs(tail) > 2 * tolerance && std::fabs(value - (expected - tail)) <= tolerance)
      return "Wrong sum: " + where + numbers + ". It equals the sum without the last " + std::to_string(k) +
             " element(s): the kernel probably missed the last " + std::to_string(k) +
             " element(s). The last block (or the tail after the last full vector) must still add the elements "
             "below n: zero-pad the missing ones instead of skipping the block or the tail.";
  }
  return "Wrong sum: " + where + numbers + "." + kLikelyCauses;
}

}  // namespace

double reference_sum(const std::vector<float>& x) {
  double s = 0;
  for (float v : x) s += static_cast<double>(v);
  return s;
}

long long reference_sum(const std::vector<int>& x) {
  long long s = 0;
  for (int v : x) s += v;
  return s;
}

double float_sum_tolerance(const std::vector<float>& x, bool exact) {
  if (exact) return 0.0;
  return wb::sum_tolerance(x.size(), wb::sum_abs(x)).abs;
}

std::string judge_sum(const std::vector<float>& x, float got, double tolerance) {
  return judge(x, got, reference_sum(x), tolerance, static_cast<double>(kFloatGuardValue));
}

std::string judge_sum(const std::vector<int>& x, int got) {
  return judge(x, got, static_cast<double>(reference_sum(x)), 0.0, static_cast<double>(kIntGuardValue));
}
