// SPDX-License-Identifier: MIT
// The Matrix Market reader decides what "the matrix" is for every SpMV test, so it must read every legal
// layout the same way and reject every broken file at the right line, for the right reason, without
// guessing. Inputs are tiny strings written here, plus a few files in phase4_spmv/tests/data/mtx read by path.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "common/catch.h"
#include "common/data.h"
#include "common/verify.h"
#include "phase4_spmv/harness/sparse.h"

// The directory holding mtx/; CMake passes the absolute path. The fallback works when the tests run from
// the repository root.
#ifndef WB_TEST_DATA_DIR
#define WB_TEST_DATA_DIR "phase4_spmv/tests/data"
#endif

using p4::sparse::Coo;
using p4::sparse::MatrixMarketError;
using p4::sparse::read_matrix_market;

namespace {

using Entry = std::tuple<int, int, float>;

Coo read_text(const std::string& text) {
  std::istringstream in(text);
  return read_matrix_market(in, "test.mtx");
}

// Entries in file order (the reader's order), for exact comparisons.
std::vector<Entry> entries(const Coo& a) {
  std::vector<Entry> out;
  for (std::size_t k = 0; k < a.nnz(); ++k) out.emplace_back(a.row[k], a.col[k], a.val[k]);
  return out;
}

// Identical matrices: same shape, same entries in the same order, values equal bit for bit.
bool identical(const Coo& a, const Coo& b) {
  if (a.rows != b.rows || a.cols != b.cols || a.nnz() != b.nnz()) return false;
  if (a.row.size() != a.nnz() || a.col.size() != a.nnz() || b.row.size() != b.nnz() || b.col.size() != b.nnz())
    return false;
  for (std::size_t k = 0; k < a.nnz(); ++k)
    if (a.row[k] != b.row[k] || a.col[k] != b.col[k] || !wb::same_bits(a.val[k], b.val[k])) return false;
  return true;
}

struct Rejection {
  bool threw = false;
  int line = -1;
  std::string what;
};

Rejection reject(const std::string& text) {
  Rejection r;
  try {
    read_text(text);
  } catch (const MatrixMarketError& e) {
    r.threw = true;
    r.line = e.line();
    r.what = e.what();
  }
  return r;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The reader rejects `text` at `line`, and the message is "test.mtx:<line>: ..." containing `reason`.
#define CHECK_REJECTED(text, expected_line, reason)                                  \
  do {                                                                               \
    const Rejection wb_r_ = reject(text);                                            \
    INFO("input:\n" << (text) << "\nmessage: " << wb_r_.what);                       \
    REQUIRE(wb_r_.threw);                                                            \
    CHECK(wb_r_.line == (expected_line));                                            \
    CHECK(contains(wb_r_.what, "test.mtx:" + std::to_string(expected_line) + ": ")); \
    CHECK(contains(wb_r_.what, reason));                                             \
  } while (0)

const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";

}  // namespace

// ---- valid files -------------------------------------------------------------------------------

TEST_CASE("a general real file gives 0-based entries in file order with the declared shape", "[host][mtx]") {
  const Coo a = read_text(kGeneral + "3 4 3\n1 1 1.5\n3 4 -2\n2 1 0.25\n");
  CHECK(a.rows == 3);
  CHECK(a.cols == 4);
  REQUIRE(a.nnz() == 3);
  CHECK(a.row.size() == 3);
  CHECK(a.col.size() == 3);
  CHECK(entries(a) == std::vector<Entry>{{0, 0, 1.5f}, {2, 3, -2.0f}, {1, 0, 0.25f}});
}

TEST_CASE("comments, %%GraphBLAS lines, blank lines, tabs and indentation are all skipped", "[host][mtx]") {
  const Coo plain = read_text(kGeneral + "5 5 3\n1 1 1\n2 2 2\n5 5 5\n");
  const Coo fancy = read_text(kGeneral +
                              "% a comment\n\n%%GraphBLAS type double\n\n% another\n"
                              "   5 \t 5\t3\n\n1 1 1\n  \t\n% a comment among the data is skipped too\n"
                              "\t2   2\t2\n\n5 5 5\n\n\n");
  CHECK(identical(plain, fancy));
}

TEST_CASE("CRLF line ends and trailing blanks read exactly like plain LF lines", "[host][mtx]") {
  const std::string lf = kGeneral + "% c\n\n3 3 2\n1 2 1.5\n3 1 -4\n";
  std::string crlf;
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const std::string trailing = kGeneral + "% c   \n  \n3 3 2  \t\n1 2 1.5   \n3 1 -4\t\t \r\n \r\n";
  CHECK(identical(read_text(lf), read_text(crlf)));
  CHECK(identical(read_text(lf), read_text(trailing)));
}

TEST_CASE("the banner's words are case-insensitive and may be separated by any blanks", "[host][mtx]") {
  const Coo a = read_text("%%matrixmarket   MATRIX\tCoordinate  REAL    General\n2 2 1\n2 2 3\n");
  CHECK(entries(a) == std::vector<Entry>{{1, 1, 3.0f}});
}

TEST_CASE("real values in every decimal spelling parse to the nearest float", "[host][mtx]") {
  const Coo a = read_text(kGeneral +
                          "1 8 8\n1 1 12.\n1 2 1.5e-2\n1 3 -2.8E2\n1 4 +3\n1 5 .5\n1 6 -0\n1 7 1e-45\n"
                          "1 8 0.1\n");
  REQUIRE(a.nnz() == 8);
  CHECK(a.val[0] == 12.0f);
  CHECK(a.val[1] == 0.015f);
  CHECK(a.val[2] == -280.0f);
  CHECK(a.val[3] == 3.0f);
  CHECK(a.val[4] == 0.5f);
  CHECK(wb::same_bits(a.val[5], -0.0f));
  CHECK(a.val[6] == std::numeric_limits<float>::denorm_min());  // underflow to a subnormal is not an error
  CHECK(a.val[7] == 0.1f);                                      // rounded once, straight to float
}

TEST_CASE("explicit zeros are kept as entries", "[host][mtx]") {
  const Coo a = read_text(kGeneral + "2 2 2\n1 1 0\n2 2 0.0e0\n");
  CHECK(entries(a) == std::vector<Entry>{{0, 0, 0.0f}, {1, 1, 0.0f}});
}

TEST_CASE("integer files give their integers as floats and refuse fractions", "[host][mtx]") {
  const std::string banner = "%%MatrixMarket matrix coordinate integer general\n";
  const Coo a = read_text(banner + "2 3 3\n1 1 42\n2 3 -7\n1 3 0\n");
  CHECK(entries(a) == std::vector<Entry>{{0, 0, 42.0f}, {1, 2, -7.0f}, {0, 2, 0.0f}});
  CHECK_REJECTED(banner + "2 3 1\n1 1 2.5\n", 3, "non-numeric value '2.5'");
  CHECK_REJECTED(banner + "2 3 1\n1 1 99999999999999999999\n", 3, "out of range");
}

TEST_CASE("pattern files have no values: every entry is 1.0, and a value is an extra field", "[host][mtx]") {
  const std::string banner = "%%MatrixMarket matrix coordinate pattern general\n";
  const Coo a = read_text(banner + "4 2 3\n1 1\n4 2\n2 1\n");
  CHECK(entries(a) == std::vector<Entry>{{0, 0, 1.0f}, {3, 1, 1.0f}, {1, 0, 1.0f}});
  CHECK_REJECTED(banner + "4 2 1\n1 1 5.0\n", 3, "unexpected extra field '5.0'");
}

TEST_CASE("symmetric files mirror off-diagonal entries after the file's entries; the diagonal once", "[host][mtx]") {
  const Coo a = read_text("%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 -1\n3 2 -2\n3 3 7\n");
  CHECK(a.rows == 3);
  CHECK(a.cols == 3);
  CHECK(entries(a) ==
        std::vector<Entry>{{0, 0, 4.0f}, {1, 0, -1.0f}, {2, 1, -2.0f}, {2, 2, 7.0f}, {0, 1, -1.0f}, {1, 2, -2.0f}});
  // The upper triangle is mirrored the same way.
  const Coo upper = read_text("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n1 3\n");
  CHECK(entries(upper) == std::vector<Entry>{{0, 2, 1.0f}, {2, 0, 1.0f}});
}

TEST_CASE("skew-symmetric files mirror entries negated; a nonzero diagonal is an error", "[host][mtx]") {
  const std::string banner = "%%MatrixMarket matrix coordinate real skew-symmetric\n";
  const Coo a = read_text(banner + "3 3 2\n3 1 10\n3 2 20\n");
  CHECK(entries(a) == std::vector<Entry>{{2, 0, 10.0f}, {2, 1, 20.0f}, {0, 2, -10.0f}, {1, 2, -20.0f}});
  CHECK_REJECTED(banner + "3 3 2\n3 1 10\n2 2 5\n", 4, "nonzero diagonal entry (2, 2) in a skew-symmetric");
  // An explicit zero on the diagonal is legal, and kept once like any explicit zero.
  CHECK(entries(read_text(banner + "2 2 1\n2 2 0\n")) == std::vector<Entry>{{1, 1, 0.0f}});
}

TEST_CASE("empty matrices (nnz = 0) load with their shape, even 0 x 0", "[host][mtx]") {
  const Coo a = read_text(kGeneral + "%%GraphBLAS type int32_t\n3 4 0\n");
  CHECK(a.rows == 3);
  CHECK(a.cols == 4);
  CHECK(a.nnz() == 0);
  CHECK(a.row.empty());
  CHECK(a.col.empty());
  const Coo z = read_text(kGeneral + "0 0 0\n\n");
  CHECK(z.rows == 0);
  CHECK(z.cols == 0);
  CHECK(z.nnz() == 0);
}

TEST_CASE("rows and cols are not swapped in a wide matrix, and the last line needs no newline", "[host][mtx]") {
  const Coo a = read_text(kGeneral + "2 5 2\n2 5 1\n1 4 2");
  CHECK(a.rows == 2);
  CHECK(a.cols == 5);
  CHECK(entries(a) == std::vector<Entry>{{1, 4, 1.0f}, {0, 3, 2.0f}});
}

// ---- the banner ------------------------------------------------------------------------------

TEST_CASE("a missing, blank or wrong line 1 is an invalid banner at line 1", "[host][mtx]") {
  CHECK_REJECTED("", 1, "invalid or missing banner");
  CHECK_REJECTED("\n" + kGeneral + "2 2 0\n", 1, "invalid or missing banner");
  CHECK_REJECTED("%%__BadBanner matrix coordinate real general\n4 4 0\n", 1, "invalid or missing banner");
  CHECK_REJECTED("% just a comment\n2 2 0\n", 1, "invalid or missing banner");
  CHECK_REJECTED("%%MatrixMarket matrix coordinate real\n2 2 0\n", 1, "invalid or missing banner");
  CHECK_REJECTED("%%MatrixMarket matrix coordinate real general extra\n2 2 0\n", 1, "invalid or missing banner");
  CHECK_REJECTED("2 2 0\n", 1, "invalid or missing banner");
}

TEST_CASE("unsupported formats, fields, symmetries and objects are named at line 1", "[host][mtx]") {
  CHECK_REJECTED("%%MatrixMarket matrix array real general\n3 3\n1\n0\n0\n0\n1\n0\n0\n0\n1\n", 1,
                 "unsupported format array");
  CHECK_REJECTED("%%MatrixMarket matrix coordinate complex hermitian\n3 3 1\n1 1 1. 0.\n", 1,
                 "unsupported field complex");
  CHECK_REJECTED("%%MatrixMarket matrix coordinate real hermitian\n3 3 1\n1 1 1\n", 1,
                 "unsupported symmetry hermitian");
  CHECK_REJECTED("%%MatrixMarket matrix coordinate double general\n3 3 0\n", 1, "unsupported field double");
  CHECK_REJECTED("%%MatrixMarket vector coordinate real general\n3 3 0\n", 1, "unsupported object vector");
  CHECK_REJECTED("%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 0\n", 1,
                 "unsupported pattern skew-symmetric");
}

// ---- the size line ----------------------------------------------------------------------------

TEST_CASE("a file that ends before its size line is reported as such, whatever its banner", "[host][mtx]") {
  CHECK_REJECTED(kGeneral, 2, "missing size line (unexpected end of file)");
  CHECK_REJECTED(kGeneral + "% only comments\n\n", 4, "missing size line (unexpected end of file)");
  // An array banner too: the truncation is the problem to report, not the format.
  CHECK_REJECTED("%%MatrixMarket matrix array real general\n% no dimension line\n", 3, "missing size line");
}

TEST_CASE("a size line that is negative, non-numeric, too big or the wrong length is rejected there", "[host][mtx]") {
  CHECK_REJECTED(kGeneral + "% Negative nrows\n-3 3 3\n1 1 1\n", 3, "negative dimension rows = -3");
  CHECK_REJECTED(kGeneral + "3 -3 0\n", 2, "negative dimension cols = -3");
  CHECK_REJECTED(kGeneral + "3 3 -1\n", 2, "negative nnz = -1");
  CHECK_REJECTED(kGeneral + "3 x 3\n", 2, "non-numeric cols 'x'");
  CHECK_REJECTED(kGeneral + "3 3 2.0\n", 2, "non-numeric nnz '2.0'");
  CHECK_REJECTED(kGeneral + "3 3\n", 2, "expected \"rows cols nnz\", found 2 fields");
  CHECK_REJECTED(kGeneral + "3 3 1 1\n1 1 1\n", 2, "found 4 fields");
  CHECK_REJECTED(kGeneral + "3000000000 3 0\n", 2, "rows = 3000000000 does not fit in int");
  CHECK_REJECTED(kGeneral + "3 99999999999999999999999 0\n", 2, "does not fit in int");
  CHECK_REJECTED(kGeneral + "2 3 7\n", 2, "nnz = 7 exceeds rows * cols = 6");
  CHECK_REJECTED("%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n", 2, "must be square");
  CHECK_REJECTED("%%MatrixMarket matrix coordinate real symmetric\n3 3 7\n", 2, "exceeds the 6 entries of a triangle");
}

// ---- entry lines ------------------------------------------------------------------------------

TEST_CASE("indices outside 1..rows and 1..cols are rejected before they are used", "[host][mtx]") {
  const std::string head = kGeneral + "7 5 2\n2 1 1\n";
  CHECK_REJECTED(head + "0 2 1\n", 4, "row index 0 out of range 1..7");
  CHECK_REJECTED(head + "5000 2 1\n", 4, "row index 5000 out of range 1..7");
  CHECK_REJECTED(head + "8 2 1\n", 4, "row index 8 out of range 1..7");
  CHECK_REJECTED(head + "-1 2 1\n", 4, "row index -1 out of range 1..7");
  CHECK_REJECTED(head + "2 6 1\n", 4, "column index 6 out of range 1..5");
  CHECK_REJECTED(head + "2 0 1\n", 4, "column index 0 out of range 1..5");
  CHECK_REJECTED(head + "99999999999999999999 1 1\n", 4, "row index 99999999999999999999 out of range");
  CHECK_REJECTED(head + "4294967297 1 1\n", 4, "out of range 1..7");  // 2^32 + 1 must not wrap to 1
}

TEST_CASE("non-numbers are rejected where atoi or strtod alone would read 0", "[host][mtx]") {
  const std::string head = kGeneral + "3 4 2\n1 1 1\n";
  CHECK_REJECTED(head + "1 zero pi\n", 4, "non-numeric column index 'zero'");
  CHECK_REJECTED(head + "one 2 3\n", 4, "non-numeric row index 'one'");
  CHECK_REJECTED(head + "2 2 forty-two\n", 4, "non-numeric value 'forty-two'");
  CHECK_REJECTED(head + "2 2 1.5x\n", 4, "non-numeric value '1.5x'");
  CHECK_REJECTED(head + "2 2 1.5.2\n", 4, "non-numeric value '1.5.2'");
  CHECK_REJECTED(head + "2 2 1e\n", 4, "non-numeric value '1e'");
  CHECK_REJECTED(head + "2 2 nan\n", 4, "non-numeric value 'nan'");
  CHECK_REJECTED(head + "2 2 inf\n", 4, "non-numeric value 'inf'");
  CHECK_REJECTED(head + "2 2 0x10\n", 4, "non-numeric value '0x10'");
  CHECK_REJECTED(head + "2.0 2 1\n", 4, "non-numeric row index '2.0'");
  CHECK_REJECTED(head + "2 2 1e39\n", 4, "value 1e39 out of range of float");
}

TEST_CASE("a missing value or index and an extra field are errors at their line", "[host][mtx]") {
  const std::string head = kGeneral + "7 7 3\n2 1 1\n";
  CHECK_REJECTED(head + "5 2", 4, "missing value");  // the truncated last line, no newline
  CHECK_REJECTED(head + "5 2\n3 3 3\n", 4, "missing value");
  CHECK_REJECTED(head + "5\n", 4, "missing column index");
  CHECK_REJECTED(head + "5 2 1 0\n", 4, "unexpected extra field '0'");
  CHECK_REJECTED(head + "5 2 1 % trailing comment\n", 4, "unexpected extra field '%'");
}

TEST_CASE("fewer entries than nnz is a truncated file; more is an error at the first extra line", "[host][mtx]") {
  CHECK_REJECTED(kGeneral + "7 7 12\n2 1 1\n4 1 1\n3 3 1\n", 6, "truncated file: expected 12 entries, found 3");
  CHECK_REJECTED(kGeneral + "7 7 1\n", 3, "truncated file: expected 1 entries, found 0");
  CHECK_REJECTED(kGeneral + "% Too many entries\n3 3 3\n1 1 1\n2 2 1\n3 3 1\n3 3 2\n", 7,
                 "more entries than declared (nnz = 3)");
  CHECK_REJECTED(kGeneral + "3 3 0\n\n1 1 1\n", 4, "more entries than declared (nnz = 0)");
}

TEST_CASE("duplicate positions are rejected, never summed, also when symmetry creates them", "[host][mtx]") {
  CHECK_REJECTED(kGeneral + "3 4 3\n1 1 3.0\n2 2 3.4\n2 2 7.1\n", 5, "duplicate entry (2, 2), first given at line 4");
  const std::string sym = "%%MatrixMarket matrix coordinate real symmetric\n";
  CHECK_REJECTED(sym + "3 3 2\n2 1 1\n1 2 1\n", 4, "duplicate entry (1, 2), first given at line 3");
  CHECK_REJECTED(sym + "3 3 2\n2 2 1\n2 2 1\n", 4, "duplicate entry (2, 2), first given at line 3");
  const std::string skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n";
  CHECK_REJECTED(skew + "3 3 2\n3 1 1\n1 3 -1\n", 4, "duplicate entry (1, 3), first given at line 3");
}

TEST_CASE("the error says <name>:<line>: <reason> and line() gives the 1-based line", "[host][mtx]") {
  std::istringstream in(kGeneral + "% c\n2 2 1\n3 1 1\n");
  try {
    read_matrix_market(in, "my/file.mtx");
    FAIL("an out-of-range row was accepted");
  } catch (const MatrixMarketError& e) {
    CHECK(e.line() == 4);
    CHECK(std::string(e.what()) == "my/file.mtx:4: row index 3 out of range 1..2");
  }
  const MatrixMarketError direct("x.mtx", 12, "some reason");
  CHECK(std::string(direct.what()) == "x.mtx:12: some reason");
  CHECK(direct.line() == 12);
}

TEST_CASE("damaged files never crash the reader: each parses or throws MatrixMarketError", "[host][mtx]") {
  // Deterministic mutations (byte flips, cuts, inserted junk) of a valid file; run under the sanitizers
  // this also shows that no mutation reads uninitialised memory or writes out of bounds.
  const std::string base =
      "%%MatrixMarket matrix coordinate real symmetric\n% c\n4 4 5\n1 1 1.5\n2 1 -2\n3 2 4e1\n"
      "4 4 .5\n4 3 7\n";
  const char junk[] = {'0', '9', '-', '+', '.', 'e', ' ', '\n', '\r', '%', '\t', 'x', '\0'};
  wb::Rng rng(wb::kDefaultSeed);
  int parsed = 0, rejected = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    std::string text = base;
    const int edits = static_cast<int>(rng.integer(1, 3));
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(text.size()) - 1));
      switch (rng.integer(0, 2)) {
        case 0:
          text[at] = junk[rng.integer(0, sizeof junk - 1)];
          break;
        case 1:
          text.erase(at, static_cast<std::size_t>(rng.integer(1, 8)));
          break;
        default:
          text.insert(at, 1, junk[rng.integer(0, sizeof junk - 1)]);
          break;
      }
    }
    try {
      const Coo a = read_text(text);
      ++parsed;
      REQUIRE(a.row.size() == a.nnz());
      REQUIRE(a.col.size() == a.nnz());
      for (std::size_t k = 0; k < a.nnz(); ++k) {
        REQUIRE(a.row[k] >= 0);
        REQUIRE(a.row[k] < a.rows);
        REQUIRE(a.col[k] >= 0);
        REQUIRE(a.col[k] < a.cols);
      }
    } catch (const MatrixMarketError& e) {
      ++rejected;
      REQUIRE(e.line() >= 1);
    }
  }
  INFO("parsed " << parsed << ", rejected " << rejected);
  CHECK(parsed > 0);
  CHECK(rejected > 0);
}

// ---- files on disk ---------------------------------------------------------------------------

TEST_CASE("the project's own .mtx files read by path, CRLF and LF alike", "[host][mtx]") {
  const std::string dir = std::string(WB_TEST_DATA_DIR) + "/mtx/";
  const Coo a = p4::sparse::read_matrix_market_file(dir + "general.mtx");
  CHECK(a.rows == 3);
  CHECK(a.cols == 4);
  CHECK(entries(a) == std::vector<Entry>{{0, 0, 1.5f}, {1, 2, -0.25f}, {2, 3, 12.0f}, {0, 3, 0.0f}, {2, 0, -280.0f}});
  CHECK(identical(a, p4::sparse::read_matrix_market_file(dir + "general_crlf.mtx")));

  const Coo s = p4::sparse::read_matrix_market_file(dir + "symmetric.mtx");
  CHECK(s.rows == 3);
  CHECK(entries(s) ==
        std::vector<Entry>{{0, 0, 4.0f}, {1, 0, -1.0f}, {2, 1, -2.0f}, {2, 2, 7.0f}, {0, 1, -1.0f}, {1, 2, -2.0f}});
}

TEST_CASE("errors from a file carry its path and line", "[host][mtx]") {
  const std::string dir = std::string(WB_TEST_DATA_DIR) + "/mtx/";
  for (const auto& c : std::vector<std::tuple<std::string, int, std::string>>{
           {"duplicate.mtx", 6, "duplicate entry (2, 2), first given at line 5"},
           {"truncated.mtx", 5, "truncated file: expected 5 entries, found 2"}}) {
    const std::string path = dir + std::get<0>(c);
    INFO(path);
    try {
      p4::sparse::read_matrix_market_file(path);
      FAIL("accepted a malformed file");
    } catch (const MatrixMarketError& e) {
      CHECK(e.line() == std::get<1>(c));
      CHECK(contains(e.what(), path + ":" + std::to_string(std::get<1>(c)) + ": " + std::get<2>(c)));
    }
  }
}

TEST_CASE("a file that cannot be opened is a MatrixMarketError at line 0", "[host][mtx]") {
  try {
    p4::sparse::read_matrix_market_file("/nonexistent/dir/missing.mtx");
    FAIL("opening a missing file did not throw");
  } catch (const MatrixMarketError& e) {
    CHECK(e.line() == 0);
    CHECK(contains(e.what(), "/nonexistent/dir/missing.mtx:0: cannot open"));
  }
}

// ---- the writer -------------------------------------------------------------------------------

TEST_CASE("the writer emits the banner, % comment lines, the size line and 1-based entries", "[host][mtx]") {
  Coo a;
  a.rows = 2;
  a.cols = 3;
  a.row = {0, 1};
  a.col = {2, 0};
  a.val = {0.1f, -3.0f};
  std::ostringstream out;
  p4::sparse::write_matrix_market(out, a, "first line\nsecond line");
  CHECK(out.str() ==
        "%%MatrixMarket matrix coordinate real general\n% first line\n% second line\n2 3 2\n1 3 0.100000001\n2 1 -3\n");
  std::ostringstream bare;
  p4::sparse::write_matrix_market(bare, a);
  CHECK(bare.str() == "%%MatrixMarket matrix coordinate real general\n2 3 2\n1 3 0.100000001\n2 1 -3\n");
}

TEST_CASE("write then read gives the identical matrix, every float bit for bit", "[host][mtx]") {
  // Random bit patterns cover every exponent, subnormals and -0; 9 significant digits must survive.
  wb::Rng rng(wb::kDefaultSeed);
  Coo a;
  a.rows = 300;
  a.cols = 70;
  for (int r = 0; r < a.rows; ++r) {
    for (int c = 0; c < a.cols; c += 1 + static_cast<int>(rng.integer(0, 4))) {
      float v;
      do {
        const std::uint32_t bits = static_cast<std::uint32_t>(rng.next_u64());
        std::memcpy(&v, &bits, sizeof v);
      } while (!std::isfinite(v));
      a.row.push_back(r);
      a.col.push_back(c);
      a.val.push_back(v);
    }
  }
  const float specials[] = {0.0f,
                            -0.0f,
                            0.1f,
                            1.0f / 3.0f,
                            std::numeric_limits<float>::max(),
                            -std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::min(),
                            std::numeric_limits<float>::denorm_min(),
                            16777217.0f,
                            3.4028234e38f};
  for (std::size_t k = 0; k < sizeof specials / sizeof specials[0]; ++k) a.val[k] = specials[k];
  std::stringstream file;
  p4::sparse::write_matrix_market(file, a, "round trip");
  const Coo b = read_matrix_market(file, "round_trip.mtx");
  CHECK(identical(a, b));

  Coo empty;
  empty.rows = 3;
  empty.cols = 4;
  std::stringstream empty_file;
  p4::sparse::write_matrix_market(empty_file, empty);
  CHECK(identical(empty, read_matrix_market(empty_file, "empty.mtx")));
}

TEST_CASE("the writer refuses what it could not write readably: NaN, bad indices, ragged arrays", "[host][mtx]") {
  Coo a;
  a.rows = 2;
  a.cols = 2;
  a.row = {0};
  a.col = {1};
  a.val = {std::numeric_limits<float>::quiet_NaN()};
  std::ostringstream out;
  CHECK_THROWS_AS(p4::sparse::write_matrix_market(out, a), p4::sparse::SparseError);
  a.val = {1.0f};
  a.col = {2};
  CHECK_THROWS_AS(p4::sparse::write_matrix_market(out, a), p4::sparse::SparseError);
  a.col = {1, 0};
  CHECK_THROWS_AS(p4::sparse::write_matrix_market(out, a), p4::sparse::SparseError);
  CHECK(out.str().empty());  // nothing half-written
}
