// SPDX-License-Identifier: MIT
#include "phase3_reduction/harness/reference.h"

#include <cmath>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <type_traits>

#include "common/verify.h"

namespace p3 {

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

// ---- 3.11 scan ------------------------------------------------------------------------------------

std::vector<int> reference_scan(const std::vector<int>& x) {
  std::vector<int> out(x.size());
  std::uint32_t run = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    run += static_cast<std::uint32_t>(x[i]);
    out[i] = static_cast<int>(run);
  }
  return out;
}

double float_prefix_tolerance(std::size_t i, double prefix_abs) {
  return wb::sum_tolerance(i + 1, prefix_abs).abs;
}

namespace {

constexpr std::size_t kScanShown = 5;

struct ScanMismatch {
  std::size_t index = 0;
  std::string expected, got;
};

std::string scan_value(int v) {
  return std::to_string(v);
}
std::string scan_value(double v) {
  std::ostringstream text;
  text.precision(9);
  text << v;
  return text.str();
}

// One pass over the scan: the expected prefix (ints in uint32, floats in double with their bound), and
// what the wrong elements have in common. The error e[i] = got[i] - expected[i] of a scan whose tiles
// are right inside but carry a wrong prefix is constant over each tile and changes only where a tile
// starts: its steps fall on multiples of the tile size.
template <typename T>
std::string judge_scan_values(const std::vector<T>& x, const std::vector<T>& got, bool exact) {
  constexpr bool kInt = std::is_integral<T>::value;
  const std::size_t n = x.size();
  if (got.size() != n)
    return "grader defect: " + std::to_string(got.size()) + " outputs for " + std::to_string(n) + " inputs";
  const T poison = wb::poison_value<T>();
  std::uint32_t int_run = 0, int_previous = 0, int_error_before = 0;
  double run = 0, previous = 0, magnitude = 0, tolerance = 0, tolerance_before = 0, error_before = 0;
  bool error_before_known = true;  // e[-1] = 0: an error at index 0 is a step too
  std::size_t bad = 0, untouched = 0, nans = 0, first_bad = n, last_bad = 0, first_untouched = n;
  std::size_t steps = 0, step_gcd = 0;
  std::vector<std::size_t> first_steps;
  std::vector<ScanMismatch> shown;
  bool exclusive = n > 0;
  for (std::size_t i = 0; i < n; ++i) {
    const T g = got[i];
    bool right = false, like_exclusive = false, is_untouched = false, is_nan = false, step = false;
    if constexpr (kInt) {
      int_previous = int_run;
      int_run += static_cast<std::uint32_t>(x[i]);
      const std::uint32_t bits = static_cast<std::uint32_t>(g);
      // A right answer may happen to have the poison's bits: then it is right, not untouched.
      is_untouched = wb::same_bits(g, poison) && int_run != static_cast<std::uint32_t>(poison);
      right = bits == int_run;
      like_exclusive = bits == int_previous;
      if (!is_untouched) {
        const std::uint32_t error = bits - int_run;
        step = !error_before_known || error != int_error_before;
        int_error_before = error;
      }
    } else {
      previous = run;
      tolerance_before = tolerance;
      run += static_cast<double>(x[i]);
      magnitude += std::fabs(static_cast<double>(x[i]));
      tolerance = exact ? 0.0 : float_prefix_tolerance(i, magnitude);
      const double value = static_cast<double>(g);
      is_untouched = wb::same_bits(g, poison);
      is_nan = !is_untouched && std::isnan(value);
      right = !is_untouched && !is_nan && std::fabs(value - run) <= tolerance;
      like_exclusive = !is_untouched && !is_nan && std::fabs(value - previous) <= tolerance_before;
      if (!is_untouched && !is_nan) {
        const double error = value - run;
        step = !error_before_known || std::fabs(error - error_before) > tolerance + tolerance_before;
        error_before = error;
      }
    }
    error_before_known = !is_untouched && !is_nan;
    exclusive = exclusive && like_exclusive && !is_untouched;
    if (step && (i > 0 || !right)) {
      ++steps;
      step_gcd = std::gcd(step_gcd, i);
      if (first_steps.size() < kScanShown) first_steps.push_back(i);
    }
    if (right) continue;
    ++bad;
    if (first_bad == n) first_bad = i;
    last_bad = i;
    if (is_untouched) {
      ++untouched;
      if (first_untouched == n) first_untouched = i;
    }
    if (is_nan) ++nans;
    if (shown.size() < kScanShown) {
      // Text only for the elements shown: formatting all of 256M values would take minutes.
      const std::string expected_text = kInt ? scan_value(static_cast<int>(int_run)) : scan_value(run);
      std::string got_text = is_untouched
                                 ? std::string("untouched (poison)")
                                 : (kInt ? scan_value(static_cast<int>(g)) : scan_value(static_cast<double>(g)));
      shown.push_back(ScanMismatch{i, expected_text, got_text});
    }
  }
  if (bad == 0) return "";

  const std::string count = " (n = " + std::to_string(n) + ")";
  std::ostringstream out;
  if (untouched == n) {
    out << "Output untouched: no element of out was written" << count
        << ". Is the kernel implemented, and is it launched (a grid of at least one block per tile)?";
  } else if (untouched > 0 && untouched == n - first_untouched) {
    out << "The last " << untouched << " elements were never written: poison from index " << first_untouched << " on"
        << count
        << ". The last, partial tile is dropped, or the grid covers too few tiles. With n not a multiple of "
           "the tile, ceil(n / tile) tiles are needed; the last one loads zeros (the identity of +) past n and "
           "stores only below n.";
  } else if (untouched > 0) {
    out << untouched << " elements were never written: still poison, the first at index " << first_untouched << count
        << ". Some threads, vectors or warps of a tile never store their results (a bound that skips the "
           "partial vector at the end of the data, a warp that returns early).";
  } else if (nans > 0) {
    out << "Not a number (NaN) in " << nans << " elements: the first at index " << first_bad << count
        << ". A NaN comes from reading memory nobody wrote: a status word or counter of the workspace before "
           "the launcher initialised it (it arrives full of garbage), a shared-memory slot never filled, or a "
           "load past n.";
  } else if (exclusive) {
    out << "Exclusive scan: out[i] holds in[0] + ... + in[i - 1], without in[i] itself (out[0] is 0)" << count
        << ". This task is the inclusive scan: every element adds its own value too.";
  } else if (first_bad > 0 && steps > 0 && step_gcd >= 32 && steps * 32 <= n) {
    out << "Wrong carry between tiles: out is right up to index " << first_bad - 1
        << ", and from there the error (got - expected) is constant over long stretches and changes only at " << steps
        << " indices (";
    for (std::size_t k = 0; k < first_steps.size(); ++k) out << (k ? ", " : "") << first_steps[k];
    out << (steps > first_steps.size() ? ", ..." : "") << "), all multiples of " << step_gcd << count
        << ". The scan inside each tile is right; what a tile adds for the elements before it is not. A "
           "tile's exclusive prefix is the sum of every earlier tile: add the predecessors' aggregates (each "
           "tile's own sum) until you reach one that has published its inclusive prefix (the sum of it and "
           "everything before it), add that, and stop. Wrong from the second tile on: no prefix added at "
           "all; from the third: a predecessor's aggregate taken as if it were its inclusive prefix; a look-back "
           "that stops early, or trusts a status word left by an earlier call, gives such errors too.";
  } else {
    out << "Wrong values inside the tiles: " << bad << " of " << n << " elements are wrong, the first at index "
        << first_bad
        << ", and the error changes from element to element, not only where a tile starts: the scan within "
           "a tile is wrong. Look for a barrier missing between writing a partial and reading it (then the "
           "values also change from run to run), a shuffle with the wrong offset or lanes, the partial of a "
           "thread, vector or warp added twice or not at all, or elements loaded from the wrong place.";
  }
  out << "\n"
      << bad << " of " << n << " elements wrong (first at index " << first_bad << ", last at " << last_bad
      << "); the first ones:\n";
  for (const ScanMismatch& m : shown)
    out << "  out[" << m.index << "] = " << m.got << ", expected " << m.expected << "\n";
  return out.str();
}

}  // namespace

std::string judge_scan(const std::vector<int>& x, const std::vector<int>& got) {
  return judge_scan_values(x, got, true);
}

std::string judge_scan(const std::vector<float>& x, const std::vector<float>& got, bool exact) {
  return judge_scan_values(x, got, exact);
}

}  // namespace p3
