// SPDX-License-Identifier: MIT
#include "phase4_spmv/tests/grading.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "common/buffer.h"
#include "common/data.h"
#include "common/testing.h"
#include "phase4_spmv/harness/tolerance.h"

namespace {

namespace sp = p4::sparse;

sp::Csr empty_matrix(int rows, int cols) {
  sp::Csr a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  return a;
}

// The top-left rows x cols corner: block structure whose size is no multiple of 4.
sp::Csr corner(const sp::Csr& in, int rows, int cols) {
  sp::Csr out = empty_matrix(rows, cols);
  for (int r = 0; r < rows; ++r) {
    for (int k = in.row_ptr[r]; k < in.row_ptr[r + 1]; ++k) {
      if (in.col[k] >= cols) continue;
      out.col.push_back(in.col[k]);
      out.val.push_back(in.val[k]);
    }
    out.row_ptr[r + 1] = static_cast<int>(out.col.size());
  }
  return out;
}

// One row (row 17 of 100) holds every entry: one thread per row serialises on it.
sp::Csr one_row_holds_all() {
  const sp::Csr wide = sp::random_uniform(1, 5000, 3000, 5);
  sp::Csr out = empty_matrix(100, 5000);
  out.col = wide.col;
  out.val = wide.val;
  for (int r = 17; r < 100; ++r) out.row_ptr[r + 1] = static_cast<int>(wide.nnz());
  return out;
}

sp::Csr from_file(const std::string& name) {
  return sp::coo_to_csr(sp::read_matrix_market_file(std::string(WB_P4_TEST_DATA_DIR) + "/" + name));
}

}  // namespace

std::vector<SpmvCase> spmv_suite() {
  std::vector<SpmvCase> all = {
      {"0x0 (no rows, no columns)", [] { return empty_matrix(0, 0); }},
      {"5x7 with no entries (every y_i = 0)", [] { return empty_matrix(5, 7); }},
      {"1x1", [] { return sp::random_uniform(1, 1, 1, 3); }},
      {"1x1000, one dense row (seed 4)", [] { return sp::random_uniform(1, 1000, 1000, 4); }},
      {"row 17 of 100x5000 holds all 3000 entries (seed 5)", one_row_holds_all},
      {"1000x1000, every third row empty (seed 6)",
       [] { return empty_some_rows(sp::random_uniform(1000, 1000, 5, 6), [](int r) { return r % 3 != 0; }); }},
      {"1000x1000, only the last row has entries (seed 7)",
       [] { return empty_some_rows(sp::random_uniform(1000, 1000, 9, 7), [](int r) { return r == 999; }); }},
      {"31x31, a warp minus one (seed 8)", [] { return sp::random_uniform(31, 31, 7, 8); }},
      {"33x33, a warp plus one (seed 9)", [] { return sp::random_uniform(33, 33, 7, 9); }},
      {"301x4099, wide (seed 10)", [] { return sp::random_uniform(301, 4099, 9, 10); }},
      {"4099x37, tall (seed 11)", [] { return sp::random_uniform(4099, 37, 5, 11); }},
      {"poisson 31x31 grid (961 rows)", [] { return sp::poisson_2d(31); }},
      {"uniform 1000x1000, 16 per row (seed 12)", [] { return sp::random_uniform(1000, 1000, 16, 12); }},
      {"powerlaw 2000x2000, alpha 2, rows up to 1000 (seed 13)",
       [] { return sp::power_law(2000, 2000, 2.0, 1000, 13); }},
      {"banded 777 rows, 3 below and 5 above (seed 14)", [] { return sp::banded(777, 3, 5, 14); }},
      {"block_fem 250 nodes (1000 rows), 4 neighbours (seed 15)", [] { return sp::block_fem(250, 4, 15); }},
      {"block_fem corner 1001x1003, blocks cut at the edges (seed 16)",
       [] { return corner(sp::block_fem(260, 3, 16), 1001, 1003); }},
      {"tests/data/skewed.mtx (general, empty rows, one long row)", [] { return from_file("skewed.mtx"); }},
      {"tests/data/symmetric_pattern.mtx (symmetric, pattern)", [] { return from_file("symmetric_pattern.mtx"); }},
      {"tests/data/tall_integer.mtx (integer values, 23x3)", [] { return from_file("tall_integer.mtx"); }},
      {"poisson 1024x1024 grid (1M rows)", [] { return sp::poisson_2d(1024); }, true},
      {"uniform 1M x 1M, 16 per row (seed 21)", [] { return sp::random_uniform(1 << 20, 1 << 20, 16, 21); }, true},
      {"powerlaw 1M x 1M, alpha 2, rows up to 65536 (seed 22)",
       [] { return sp::power_law(1 << 20, 1 << 20, 2.0, 65536, 22); }, true, true},
      {"banded 1M rows, 8 below and 8 above (seed 23)", [] { return sp::banded(1 << 20, 8, 8, 23); }, true},
      {"block_fem 256K nodes (1M rows), 4 neighbours (seed 24)", [] { return sp::block_fem(1 << 18, 4, 24); }, true},
  };
  if (!wb::test::sanitize_mode()) return all;
  std::vector<SpmvCase> small;
  for (const SpmvCase& c : all)
    if (!c.large) small.push_back(c);
  return small;
}

std::vector<int> spmv_suite_indices(bool skip_ell_explosions) {
  const std::vector<SpmvCase> suite = spmv_suite();
  std::vector<int> out;
  for (std::size_t i = 0; i < suite.size(); ++i)
    if (!(skip_ell_explosions && suite[i].ell_explodes)) out.push_back(static_cast<int>(i));
  return out;
}

sp::Csr empty_some_rows(const sp::Csr& in, const std::function<bool(int)>& keep) {
  sp::Csr out = empty_matrix(in.rows, in.cols);
  for (int r = 0; r < in.rows; ++r) {
    if (keep(r)) {
      for (int k = in.row_ptr[r]; k < in.row_ptr[r + 1]; ++k) {
        out.col.push_back(in.col[k]);
        out.val.push_back(in.val[k]);
      }
    }
    out.row_ptr[r + 1] = static_cast<int>(out.col.size());
  }
  return out;
}

sp::Csr rows_of_lengths(int rows, int cols, const std::function<int(int)>& length, std::uint64_t seed) {
  sp::Csr a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.push_back(0);
  std::vector<int> picked;
  for (int r = 0; r < rows; ++r) {
    const int len = length(r);
    picked.clear();
    for (int k = 0; k < len; ++k) picked.push_back((r * 7 + k) % cols);
    std::sort(picked.begin(), picked.end());
    a.col.insert(a.col.end(), picked.begin(), picked.end());
    a.row_ptr.push_back(static_cast<int>(a.col.size()));
  }
  a.val = wb::random_floats(a.col.size(), seed);
  sp::validate(a);
  return a;
}

namespace {

// One sentence on the pattern of the wrong rows, which usually names the bug.
std::string explain(const sp::Csr& a, const std::vector<float>& got, const std::vector<float>& expected,
                    const std::vector<wb::Tolerance>& tolerance) {
  std::size_t bad = 0, untouched = 0, nan = 0, bad_empty_rows = 0, empty_rows = 0;
  int first_bad = -1;
  for (int r = 0; r < a.rows; ++r) {
    const bool is_empty = a.row_ptr[r + 1] == a.row_ptr[r];
    empty_rows += is_empty;
    const bool poisoned = wb::same_bits(got[r], wb::poison_value<float>());
    if (!poisoned && wb::within(expected[r], got[r], tolerance[r])) continue;
    ++bad;
    if (first_bad < 0) first_bad = r;
    untouched += poisoned;
    nan += !poisoned && std::isnan(got[r]);
    bad_empty_rows += is_empty;
  }
  std::ostringstream why;
  if (bad == 0 || untouched == static_cast<std::size_t>(a.rows)) return "";  // describe() said it
  if (bad_empty_rows == bad && untouched == bad) {
    why << "Only rows with no entries are wrong (" << bad << " of the " << empty_rows
        << " empty rows were never written): an empty row's y_i is 0 and must still be stored.";
  } else if (untouched == bad && static_cast<std::size_t>(a.rows - first_bad) == bad) {
    why << "The last " << bad << " row(s), from row " << first_bad << " of " << a.rows
        << ", were never written: the grid or the row loop stops short (cover every row r < rows).";
  } else if (nan > 0) {
    why << nan << " rows came out NaN: x is ringed with NaN canaries, so the kernel read x out of range "
        << "(an index from past the row's end, or a padding slot's col = -1) or read a y it never wrote.";
  } else {
    why << "Wrong rows from row " << first_bad << " on: check the row's range row_ptr[r] .. row_ptr[r + 1] and "
        << "that every partial sum reaches y.";
  }
  return why.str() + "\n";
}

}  // namespace

std::string grade_spmv(const std::string& launcher, const p4::SpmvRun& run, const sp::Csr& a, std::uint64_t seed) {
  const p4::SpmvExpected e = p4::spmv_expected(a, seed);
  const std::vector<float>& x = e.x;
  const std::vector<float>& expected = e.y;
  const std::vector<wb::Tolerance>& tolerance = e.tolerance;

  p4::DeviceMatrix matrix(a);
  wb::GuardedDeviceBuffer<float> dx(x.size());  // NaN canaries around x: reading out of range gives NaN
  dx.upload(x);
  wb::GuardedDeviceBuffer<float> dy(static_cast<std::size_t>(a.rows));  // poisoned: unwritten rows show
  const std::string failed =
      wb::test::launch_and_explain(launcher, [&] { run(matrix, dx.data(), dy.data(), nullptr); });
  if (!failed.empty()) return failed;
  const wb::GuardReport guards = dy.check_guards();
  if (!guards.ok()) return guards.describe(launcher + " (y)");
  const wb::GuardReport x_guards = dx.check_guards();
  if (!x_guards.ok()) return x_guards.describe(launcher + " wrote into x, an input:");
  const std::vector<float> got = dy.download();
  const wb::CompareReport report =
      wb::compare_each(expected.data(), got.data(), got.size(), [&](std::size_t i) { return tolerance[i]; });
  if (report.ok()) return "";
  return report.describe(launcher + " (y, one element per row)") + explain(a, got, expected, tolerance);
}

void check_spmv(const std::string& launcher, const p4::SpmvRun& run, const SpmvCase& c) {
  const std::uint64_t seed = wb::test::seed();
  INFO(launcher << " on " << c.name << ", x random in [-1, 1) from seed " << seed << " (replay with WB_SEED=" << seed
                << ")");
  const sp::Csr a = c.make();
  INFO("the matrix: " << p4::describe_matrix(a));
  INFO("tolerance per row: (len + 1) u sum|a_ij x_j|, u = 2^-24 (phase4_spmv/harness/tolerance.h)");
  const std::string failure = grade_spmv(launcher, run, a, seed);
  if (!failure.empty()) FAIL(failure);
}
