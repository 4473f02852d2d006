// SPDX-License-Identifier: MIT
#include "phase4_spmv/tests/spmm_grading.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <sstream>

#include "common/buffer.h"
#include "common/testing.h"
#include "common/verify.h"
#include "phase4_spmv/harness/device_matrix.h"
#include "phase4_spmv/harness/lesson_support.h"
#include "phase4_spmv/tests/grading.h"

namespace {

namespace sp = p4::sparse;

// Rows of 31 to 2049 entries, around the lengths a kernel splits or switches at (a warp, 512, 1024,
// 2048), one every 200 rows among rows of 0 to 5 entries.
sp::Csr rows_around_split_lengths() {
  static const int kLengths[] = {31, 32, 33, 511, 512, 513, 1023, 1024, 1025, 2049};
  return rows_of_lengths(
      2000, 4000, [](int r) { return r % 200 == 7 ? kLengths[r / 200] : r % 6; }, 53);
}

// A power-law matrix (rows up to 1000 entries) with three rows far longer than any split threshold:
// the first (every column), one in the middle and the last (a prime length).
sp::Csr power_law_with_very_long_rows() {
  const sp::Csr base = sp::power_law(20011, 65536, 2.0, 1000, 54);
  return rows_of_lengths(
      base.rows, base.cols,
      [&base](int r) {
        if (r == 0) return 65536;
        if (r == 10005) return 40000;
        if (r == 20010) return 50021;
        return base.row_ptr[r + 1] - base.row_ptr[r];
      },
      54);
}

bool within_bound(float expected, float got, float bound) {
  return !wb::same_bits(got, wb::poison_value<float>()) && wb::within(expected, got, wb::Tolerance{bound, 0.0});
}

// True when `got` is A times X read column-major (element (c, j) at x[c + j * cols]), within the bound.
bool matches_column_major_x(const sp::Csr& a, int k, const std::vector<float>& x, const std::vector<float>& got) {
  if (a.rows == 0 || a.cols < 2 || a.nnz() == 0) return false;
  const std::size_t cols = static_cast<std::size_t>(a.cols), kk = static_cast<std::size_t>(k);
  std::vector<float> x_read(x.size());
  for (std::size_t c = 0; c < cols; ++c)
    for (std::size_t j = 0; j < kk; ++j) x_read[c * kk + j] = x[c + j * cols];
  std::vector<float> y, bound;
  p4::spmm_reference(a, x_read, k, &y, &bound);
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!within_bound(y[i], got[i], bound[i])) return false;
  return true;
}

// One sentence on the pattern of the wrong elements, which usually names the bug.
std::string explain(const sp::Csr& a, int k, const p4::SpmmExpected& e, const std::vector<float>& got) {
  const std::size_t kk = static_cast<std::size_t>(k);
  std::size_t bad = 0, untouched = 0, nan = 0, empty_rows = 0, untouched_in_empty_rows = 0;
  std::vector<std::size_t> untouched_in_column(kk, 0);
  int first_bad_row = -1, shortest_bad = INT_MAX, longest_right = -1;
  bool tail_untouched = true;  // the wrong rows are whole untouched rows, all of them after the right ones
  for (int r = 0; r < a.rows; ++r) {
    const int len = a.row_ptr[r + 1] - a.row_ptr[r];
    empty_rows += len == 0;
    std::size_t row_bad = 0, row_untouched = 0, row_nan = 0;
    for (std::size_t j = 0; j < kk; ++j) {
      const std::size_t i = static_cast<std::size_t>(r) * kk + j;
      if (within_bound(e.y[i], got[i], e.tolerance[i])) continue;
      ++row_bad;
      if (wb::same_bits(got[i], wb::poison_value<float>())) {
        ++row_untouched;
        ++untouched_in_column[j];
      } else if (std::isnan(got[i])) {
        ++row_nan;
      }
    }
    bad += row_bad;
    untouched += row_untouched;
    nan += row_nan;
    if (len == 0) untouched_in_empty_rows += row_untouched;
    if (row_bad == 0) {
      longest_right = std::max(longest_right, len);
      if (first_bad_row >= 0) tail_untouched = false;
      continue;
    }
    if (first_bad_row < 0) first_bad_row = r;
    shortest_bad = std::min(shortest_bad, len);
    if (row_untouched != kk) tail_untouched = false;
  }
  std::ostringstream why;
  if (bad == 0 || untouched == got.size()) return "";  // the report said it
  if (untouched == bad && untouched_in_empty_rows == bad) {
    why << "Only rows with no entries are wrong (" << bad / kk << " of the " << empty_rows
        << " empty rows of A were never written): an empty row gives a row of zeros in Y, and it must still be "
        << "stored.";
  } else if (untouched == bad &&
             std::all_of(untouched_in_column.begin(), untouched_in_column.end(),
                         [&](std::size_t n) { return n == 0 || n == static_cast<std::size_t>(a.rows); })) {
    std::size_t first = kk, last = 0, count = 0;
    for (std::size_t j = 0; j < kk; ++j) {
      if (untouched_in_column[j] == 0) continue;
      first = std::min(first, j);
      last = j;
      ++count;
    }
    why << count << " of the k = " << k << " columns of Y (from column " << first << " to " << last
        << ") were never written, in any row: the lanes' columns do not cover a whole row of Y (k / 32 floats a "
        << "lane, the last ones included).";
  } else if (untouched == bad && tail_untouched) {
    why << "The last " << bad / kk << " rows, from row " << first_bad_row << " of " << a.rows
        << ", were never written: the grid or the loop over rows stops short (cover every row r < rows).";
  } else if (untouched + nan == bad && longest_right > 0 && shortest_bad > longest_right) {
    // Poison plus anything is NaN, which a GPU may return as the poison's own bits or as another NaN.
    why << "Only the longest rows are wrong (the shortest of them has " << shortest_bad
        << " entries, the longest right row " << longest_right
        << "), and they hold NaN or the poison: the pieces of a split row were added (atomicAdd) into a row of Y "
        << "that still held the poison, or the row was never stored. A shared row must be zero before the first "
        << "piece arrives.";
  } else if (nan > 0) {
    why << nan << " elements came out NaN: X is ringed with NaN canaries and Y starts as NaN poison, so the "
        << "kernel read X out of range (row c of X is X[c * k] .. X[c * k + k - 1]; a column index from past a "
        << "row's end) or added into an element of Y before writing it.";
  } else if (matches_column_major_x(a, k, e.x, got)) {
    why << "Y is A times X read column-major (element (c, j) taken from X[c + j * cols]): X is row-major, "
        << "element (c, j) is X[c * k + j], so row c of X is k contiguous floats.";
  } else if (longest_right > 0 && shortest_bad > longest_right) {
    why << "Every wrong row is longer than every right one (the shortest wrong row has " << shortest_bad
        << " entries, the longest right one " << longest_right
        << "): the pieces of a long row do not all reach Y (one lost, or one added twice).";
  } else if (untouched > 0) {
    why << untouched << " elements were never written (still poison): check which rows each warp covers and "
        << "which columns of Y each lane stores.";
  } else {
    why << "Wrong values from row " << first_bad_row << " on: check which entries each row takes (row_ptr[r] .. "
        << "row_ptr[r + 1]), which row of X each entry multiplies and that every partial sum reaches Y.";
  }
  return why.str() + "\n";
}

}  // namespace

std::vector<SpmmCase> spmm_suite() {
  std::vector<SpmmCase> all;
  // The phase's SpMV matrices: no rows, no entries, 1x1, a dense row, one row holding every entry,
  // empty rows, warp-size +- 1 rows, wide, tall, the five generators near 1000 rows, .mtx files.
  for (const SpmvCase& c : spmv_suite())
    if (!c.large) all.push_back(SpmmCase{c.name, c.make, false});
  const std::vector<SpmmCase> more = {
      {"uniform 1009 x 1013 (primes), 7 per row (seed 51)", [] { return sp::random_uniform(1009, 1013, 7, 51); }},
      {"powerlaw 10007 x 10007 (a prime), rows up to 4096 (seed 52)",
       [] { return sp::power_law(10007, 10007, 2.0, 4096, 52); }},
      {"rows of 31, 32, 33, 511, 512, 513, 1023, 1024, 1025 and 2049 entries among rows of 0 to 5, 2000 x 4000 "
       "(seed 53)",
       rows_around_split_lengths},
      {"powerlaw 20011 x 65536 (rows up to 1000) whose rows 0, 10005 and 20010 hold 65536 (all columns), 40000 "
       "and 50021 entries (seed 54)",
       power_law_with_very_long_rows},
      {"row 5000 of 10001 holds 30000 entries, every other row is empty (seed 55)",
       [] {
         return rows_of_lengths(
             10001, 40000, [](int r) { return r == 5000 ? 30000 : 0; }, 55);
       }},
      {"poisson 512x512 grid (262144 rows)", [] { return sp::poisson_2d(512); }, true},
      {"uniform 262147 x 262147 (a prime), 16 per row (seed 56)",
       [] { return sp::random_uniform(262147, 262147, 16, 56); }, true},
      {"powerlaw 262144 x 262144, rows up to 65536 (seed 57)",
       [] { return sp::power_law(1 << 18, 1 << 18, 2.0, 65536, 57); }, true},
      {"banded 262144 rows, 8 below and 8 above (seed 58)", [] { return sp::banded(1 << 18, 8, 8, 58); }, true},
      {"block_fem 65536 nodes (262144 rows), 4 neighbours (seed 59)", [] { return sp::block_fem(1 << 16, 4, 59); },
       true},
  };
  for (const SpmmCase& c : more)
    if (!c.large || !wb::test::sanitize_mode()) all.push_back(c);
  return all;
}

std::vector<int> spmm_suite_indices() {
  std::vector<int> out;
  for (std::size_t i = 0; i < spmm_suite().size(); ++i) out.push_back(static_cast<int>(i));
  return out;
}

std::string grade_spmm(const std::string& launcher, const p4::SpmmRun& run, const sp::Csr& a, int k, std::uint64_t seed,
                       int calls) {
  const p4::SpmmExpected e = p4::spmm_expected(a, k, seed);
  p4::DeviceMatrix matrix(a);
  wb::GuardedDeviceBuffer<float> dx(e.x.size());  // NaN canaries around X: reading out of range gives NaN
  dx.upload(e.x);
  wb::GuardedDeviceBuffer<float> dy(e.y.size());  // poisoned: unwritten elements show
  for (int call = 0; call < calls; ++call) {
    const std::string failed =
        wb::test::launch_and_explain(launcher, [&] { run(matrix, dx.data(), dy.data(), k, nullptr); });
    if (!failed.empty()) return failed;
  }
  const std::string what = launcher + " (Y, " + std::to_string(a.rows) + " x " + std::to_string(k) +
                           (calls > 1 ? ", after " + std::to_string(calls) + " calls on the same Y)" : ")");
  const wb::GuardReport guards = dy.check_guards();
  if (!guards.ok()) return guards.describe(what);
  const wb::GuardReport x_guards = dx.check_guards();
  if (!x_guards.ok()) return x_guards.describe(launcher + " wrote into X, an input:");
  const std::vector<float> got = dy.download();
  const wb::CompareReport report = wb::compare_each(
      e.y.data(), got.data(), got.size(),
      [&](std::size_t i) {
        return wb::Tolerance{e.tolerance[i], 0.0};
      },
      static_cast<std::size_t>(k));
  if (report.ok()) return "";
  return report.describe(what) + explain(a, k, e, got);
}

void check_spmm(const std::string& launcher, const p4::SpmmRun& run, const SpmmCase& c, int k, int calls) {
  const std::uint64_t seed = wb::test::seed();
  INFO(launcher << " on " << c.name << ", k = " << k << ", X random in [-1, 1) from seed " << seed
                << " (replay with WB_SEED=" << seed << ")");
  const sp::Csr a = c.make();
  INFO("the matrix: " << p4::describe_matrix(a));
  INFO("bound per element: (len + 1) u sum_i |a_ri X[c_i, j]|, u = 2^-24 (phase4_spmv/harness/spmm_reference.h)");
  const std::string failure = grade_spmm(launcher, run, a, k, seed, calls);
  if (!failure.empty()) FAIL(failure);
}
