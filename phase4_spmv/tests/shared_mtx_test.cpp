// SPDX-License-Identifier: MIT
// The reader against real Matrix Market files nobody here wrote (SuiteSparse, fast_matrix_market, Ginkgo,
// AMGX; see shared/data/mtx/README.md for their provenance and the expectations checked here). The files
// stay outside the project: CMake defines WB_SHARED_MTX_DIR only when the directory exists, and without it
// this file contributes no tests.
#ifdef WB_SHARED_MTX_DIR

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common/catch.h"
#include "phase4_spmv/harness/sparse.h"

using p4::sparse::Coo;
using p4::sparse::MatrixMarketError;

namespace {

const std::string kDir = WB_SHARED_MTX_DIR;

Coo load(const std::string& relative) {
  return p4::sparse::read_matrix_market_file(kDir + "/" + relative);
}

// Entries sorted by position: files may list the same matrix in different orders.
std::vector<std::tuple<int, int, float>> sorted_entries(const Coo& a) {
  std::vector<std::tuple<int, int, float>> out;
  for (std::size_t k = 0; k < a.nnz(); ++k) out.emplace_back(a.row[k], a.col[k], a.val[k]);
  std::sort(out.begin(), out.end());
  return out;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("every valid shared file loads with the README's shape and expanded entry count", "[host][mtx]") {
  struct Expected {
    const char* file;
    int rows, cols;
    std::size_t entries;  // after symmetric expansion
  };
  const Expected all[] = {
      {"nist_ex1.mtx", 5, 5, 8},          {"nist_ex1_more_freeformat.mtx", 5, 5, 8},
      {"row_3by4.mtx", 3, 4, 4},          {"west0067.mtx", 67, 67, 294},
      {"LFAT5.mtx", 14, 14, 46},          {"LFAT5_hypersparse.mtx", 2000, 2000, 46},
      {"ash219.mtx", 219, 85, 438},       {"can___24.mtx", 24, 24, 160},
      {"lp_afiro.mtx", 27, 51, 102},      {"arrow.mtx", 100, 100, 298},
      {"rajat19.mtx", 1157, 1157, 5399},  {"1138_bus.mtx", 1138, 1138, 4054},
      {"Trefethen_20b.mtx", 19, 19, 147}, {"amgx_matrix.mtx", 12, 12, 61},
      {"bcsstk03.mtx", 112, 112, 640},
  };
  for (const Expected& e : all) {
    INFO(e.file);
    const Coo a = load(std::string("valid/") + e.file);
    CHECK(a.rows == e.rows);
    CHECK(a.cols == e.cols);
    CHECK(a.nnz() == e.entries);
    REQUIRE(a.row.size() == a.nnz());
    REQUIRE(a.col.size() == a.nnz());
    // No position twice, even after expansion (the reader rejects duplicates; this checks it expanded right).
    std::set<std::pair<int, int>> positions;
    for (std::size_t k = 0; k < a.nnz(); ++k) positions.emplace(a.row[k], a.col[k]);
    CHECK(positions.size() == a.nnz());
  }
}

TEST_CASE("the shared files' particular features come through: zeros, patterns, integers, blocks", "[host][mtx]") {
  const Coo rajat = load("valid/rajat19.mtx");
  CHECK(std::count(rajat.val.begin(), rajat.val.end(), 0.0f) == 1700);  // explicit zeros are entries

  const Coo ash = load("valid/ash219.mtx");
  CHECK(std::count(ash.val.begin(), ash.val.end(), 1.0f) == 438);  // pattern entries are ones

  const Coo arrow = load("valid/arrow.mtx");  // row 1 and column 1 are dense
  CHECK(std::count(arrow.row.begin(), arrow.row.end(), 0) == 100);
  CHECK(std::count(arrow.col.begin(), arrow.col.end(), 0) == 100);

  const Coo row = load("valid/row_3by4.mtx");  // only row 1 is set
  CHECK(std::count(row.row.begin(), row.row.end(), 0) == 4);

  const Coo bcsstk = load("valid/bcsstk03.mtx");  // 28 nodes x 4 DOF: 82 nonzero 4x4 blocks
  std::set<std::pair<int, int>> blocks;
  for (std::size_t k = 0; k < bcsstk.nnz(); ++k) blocks.emplace(bcsstk.row[k] / 4, bcsstk.col[k] / 4);
  CHECK(blocks.size() == 82);
}

TEST_CASE("the NIST example reads the same in its plain, free-format and CRLF layouts", "[host][mtx]") {
  const Coo plain = load("valid/nist_ex1.mtx");
  const Coo free_format = load("valid/nist_ex1_more_freeformat.mtx");
  const Coo crlf = load("edge/windows_lineendings_nist_ex1_more_freeformat.mtx");
  for (const Coo* other : {&free_format, &crlf}) {
    CHECK(other->rows == plain.rows);
    CHECK(other->cols == plain.cols);
    CHECK(sorted_entries(*other) == sorted_entries(plain));
  }
  CHECK(sorted_entries(plain) == std::vector<std::tuple<int, int, float>>{{0, 0, 1.0f},
                                                                          {0, 3, 6.0f},
                                                                          {1, 1, 10.5f},
                                                                          {2, 2, 0.015f},
                                                                          {3, 1, 250.5f},
                                                                          {3, 3, -280.0f},
                                                                          {3, 4, 33.32f},
                                                                          {4, 4, 12.0f}});
}

TEST_CASE("LFAT5 embedded in 2000 x 2000 has exactly LFAT5's entries", "[host][mtx]") {
  const Coo small = load("valid/LFAT5.mtx");
  const Coo hyper = load("valid/LFAT5_hypersparse.mtx");
  CHECK(sorted_entries(hyper) == sorted_entries(small));
}

TEST_CASE("the edge files: empty loads as 3 x 4, skew-symmetric expands negated, array and complex are refused",
          "[host][mtx]") {
  const Coo empty = load("edge/empty.mtx");
  CHECK(empty.rows == 3);
  CHECK(empty.cols == 4);
  CHECK(empty.nnz() == 0);

  const Coo skew = load("edge/coordinate_skew_symmetric_row.mtx");
  CHECK(skew.rows == 3);
  CHECK(sorted_entries(skew) ==
        std::vector<std::tuple<int, int, float>>{{0, 2, -10.0f}, {1, 2, -20.0f}, {2, 0, 10.0f}, {2, 1, 20.0f}});

  for (const auto& c : std::vector<std::pair<std::string, std::string>>{
           {"edge/eye3_array.mtx", "unsupported format array"}, {"edge/c.mtx", "unsupported field complex"}}) {
    INFO(c.first);
    try {
      load(c.first);
      FAIL("an unsupported file was accepted");
    } catch (const MatrixMarketError& e) {
      CHECK(e.line() == 1);
      CHECK(contains(e.what(), c.second));
    }
  }
}

TEST_CASE("every malformed shared file is rejected at the README's line for the README's reason", "[host][mtx]") {
  struct Expected {
    const char* file;
    int line;                         // 0: the README gives none (the file ends early)
    std::vector<const char*> reason;  // the message contains one of these
  };
  const Expected all[] = {
      {"invalid_bad_banner.mtx", 1, {"invalid or missing banner"}},
      {"row0.mtx", 1, {"invalid or missing banner"}},
      {"invalid_truncated_header_1.mtx", 0, {"size line", "end of file"}},
      {"invalid_dimensions_out_of_range_1.mtx", 3, {"dimension"}},
      {"invalid_indices_out_of_range_1.mtx", 5, {"row index 5000 out of range 1..7"}},
      {"invalid_indices_out_of_range_3.mtx", 5, {"row index 0 out of range 1..7"}},
      {"invalid_matrix_coord_too_long.mtx", 7, {"more entries"}},
      {"invalid_truncated_line_1.mtx", 5, {"truncated", "missing value"}},
      {"mangled11.mtx", 5, {"non-numeric"}},
      {"mangled14.mtx", 8, {"duplicate entry (2, 2)"}},
  };
  for (const Expected& e : all) {
    const std::string path = kDir + "/malformed/" + e.file;
    INFO(path);
    try {
      p4::sparse::read_matrix_market_file(path);
      FAIL("a malformed file was accepted");
    } catch (const MatrixMarketError& error) {
      const std::string what = error.what();
      INFO(what);
      if (e.line > 0) {
        CHECK(error.line() == e.line);
        CHECK(contains(what, path + ":" + std::to_string(e.line) + ": "));
      } else {
        CHECK(error.line() >= 1);
      }
      CHECK(std::any_of(e.reason.begin(), e.reason.end(), [&](const char* r) { return contains(what, r); }));
    }
  }
}

#endif  // WB_SHARED_MTX_DIR
