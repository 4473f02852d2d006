// SPDX-License-Identifier: MIT
// The sparse formats feed every SpMV lesson and grade it through spmv_reference, so prove the validators
// catch each defect by name, the converters round-trip exactly (edge shapes included), and the
// generators are deterministic and have the structure they promise.
#include "phase4_spmv/harness/sparse.h"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/data.h"
#include "common/testing.h"

namespace sp = p4::sparse;

namespace {

// The message validate() (or any call) throws, or "" when it does not throw.
std::string error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const sp::SparseError& e) {
    return e.what();
  }
  return "";
}

#define CHECK_ERROR(call, substring)                         \
  do {                                                       \
    const std::string wb_message_ = error_of([&] { call; }); \
    INFO("message: " << wb_message_);                        \
    CHECK(wb_message_.find(substring) != std::string::npos); \
  } while (0)

sp::Csr make_csr(int rows, int cols, std::vector<int> row_ptr, std::vector<int> col, std::vector<float> val) {
  sp::Csr a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr = std::move(row_ptr);
  a.col = std::move(col);
  a.val = std::move(val);
  return a;
}

// 4 x 8, 20 entries; row 2 is entries 10..15 with columns 0 1 2 4 5 6.
sp::Csr valid_csr() {
  std::vector<float> val(20);
  for (int k = 0; k < 20; ++k) val[k] = static_cast<float>(k + 1);
  return make_csr(4, 8, {0, 5, 10, 16, 20}, {0, 1, 2, 3, 4, 1, 2, 3, 5, 7, 0, 1, 2, 4, 5, 6, 0, 3, 6, 7}, val);
}

bool same(const sp::Csr& a, const sp::Csr& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col == b.col && a.val == b.val;
}

// y = A x from the ELL arrays, slot by slot in each row: the same order as spmv_reference, so equal.
std::vector<double> ell_spmv(const sp::Ell& a, const std::vector<float>& x) {
  std::vector<double> y(static_cast<std::size_t>(a.rows), 0.0);
  for (int r = 0; r < a.rows; ++r) {
    for (int k = 0; k < a.width; ++k) {
      const std::size_t i = static_cast<std::size_t>(k) * a.rows + r;
      if (a.col[i] >= 0) y[r] += static_cast<double>(a.val[i]) * static_cast<double>(x[a.col[i]]);
    }
  }
  return y;
}

// The hand-made edge shapes and a few generated matrices; none holds an explicit zero.
std::vector<std::pair<std::string, sp::Csr>> round_trip_cases() {
  std::vector<std::pair<std::string, sp::Csr>> cases;
  cases.emplace_back("0x0", make_csr(0, 0, {0}, {}, {}));
  cases.emplace_back("1x1", make_csr(1, 1, {0, 1}, {0}, {2.5f}));
  cases.emplace_back("1x1 empty", make_csr(1, 1, {0, 0}, {}, {}));
  cases.emplace_back("empty rows", make_csr(6, 6, {0, 0, 2, 2, 2, 3, 3}, {1, 5, 0}, {1.0f, -2.0f, 3.0f}));
  cases.emplace_back("one row holds all",
                     make_csr(5, 7, {0, 0, 0, 7, 7, 7}, {0, 1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6, 7}));
  cases.emplace_back("3x5", make_csr(3, 5, {0, 2, 3, 6}, {0, 4, 2, 1, 3, 4}, {1, 2, 3, 4, 5, 6}));
  cases.emplace_back("5x3", make_csr(5, 3, {0, 1, 3, 3, 4, 6}, {2, 0, 1, 2, 0, 2}, {1, 2, 3, 4, 5, 6}));
  cases.emplace_back("7x9", sp::random_uniform(7, 9, 4, 5));
  cases.emplace_back("poisson_2d(5)", sp::poisson_2d(5));
  cases.emplace_back("banded", sp::banded(37, 2, 3, 11));
  cases.emplace_back("random_uniform", sp::random_uniform(50, 41, 6, 12));
  cases.emplace_back("power_law", sp::power_law(203, 150, 1.5, 100, 13));
  cases.emplace_back("block_fem", sp::block_fem(13, 3, 14));
  return cases;
}

}  // namespace

// ---- validators -------------------------------------------------------------------------------------

TEST_CASE("validate accepts a correct CSR matrix", "[host][sparse]") {
  CHECK(error_of([] { sp::validate(valid_csr()); }) == "");
  CHECK(error_of([] { sp::validate(make_csr(0, 0, {0}, {}, {})); }) == "");
}

TEST_CASE("validate names each CSR defect and where it is", "[host][sparse]") {
  sp::Csr a = valid_csr();
  SECTION("negative size") {
    a.rows = -1;
    CHECK_ERROR(sp::validate(a), "csr: negative size: rows = -1");
  }
  SECTION("row_ptr of the wrong length") {
    a.row_ptr.pop_back();
    CHECK_ERROR(sp::validate(a), "csr: row_ptr must have rows + 1 = 5 entries, has 4");
  }
  SECTION("row_ptr not starting at 0") {
    a.row_ptr[0] = 1;
    CHECK_ERROR(sp::validate(a), "csr: row_ptr[0] = 1, must be 0");
  }
  SECTION("a decreasing row_ptr") {
    a.row_ptr = {0, 5, 9, 7, 20};
    CHECK_ERROR(sp::validate(a), "csr: row_ptr[3] = 7 < row_ptr[2] = 9 (must not decrease)");
  }
  SECTION("row_ptr ending before the entries do") {
    a.col.pop_back();
    a.val.pop_back();
    CHECK_ERROR(sp::validate(a), "csr: row_ptr[rows] = 20 but 19 entries");
  }
  SECTION("col and val of different lengths") {
    a.val.pop_back();
    CHECK_ERROR(sp::validate(a), "csr: col has 20 entries but val has 19");
  }
  SECTION("a column out of range") {
    a.col[13] = 9;
    CHECK_ERROR(sp::validate(a), "csr: row 2: column 9 out of range 0..7 at entry 13");
    a.col[13] = -1;
    CHECK_ERROR(sp::validate(a), "csr: row 2: column -1 out of range 0..7 at entry 13");
  }
  SECTION("unsorted columns") {
    a.col[13] = 6;
    a.col[14] = 5;
    CHECK_ERROR(sp::validate(a), "csr: row 2: columns not sorted (5 after 6) at entry 14");
  }
  SECTION("a duplicate column") {
    a.col[14] = 4;
    CHECK_ERROR(sp::validate(a), "csr: row 2: duplicate column 4 at entry 14");
  }
  SECTION("only the first of two defects is reported") {
    a.col[17] = 9;  // row 3
    a.col[11] = 0;  // row 2, earlier
    CHECK_ERROR(sp::validate(a), "csr: row 2: duplicate column 0 at entry 11");
  }
}

TEST_CASE("validate names each COO defect", "[host][sparse]") {
  sp::Coo a;
  a.rows = 3;
  a.cols = 4;
  a.row = {0, 2, 1};
  a.col = {3, 0, 1};
  a.val = {1, 2, 3};
  CHECK(error_of([&] { sp::validate(a); }) == "");
  SECTION("negative size") {
    a.cols = -2;
    CHECK_ERROR(sp::validate(a), "coo: negative size: rows = 3, cols = -2");
  }
  SECTION("arrays of different lengths") {
    a.col.push_back(0);
    CHECK_ERROR(sp::validate(a), "coo: row, col and val must have equal lengths, have 3, 4, 3");
  }
  SECTION("a row out of range") {
    a.row[1] = 3;
    CHECK_ERROR(sp::validate(a), "coo: entry 1: row 3 out of range 0..2");
  }
  SECTION("a column out of range") {
    a.col[2] = 4;
    CHECK_ERROR(sp::validate(a), "coo: entry 2: column 4 out of range 0..3");
  }
}

TEST_CASE("validate names each ELL defect", "[host][sparse]") {
  sp::Ell a = sp::csr_to_ell(make_csr(3, 5, {0, 2, 3, 6}, {0, 4, 2, 1, 3, 4}, {1, 2, 3, 4, 5, 6}));
  REQUIRE(a.width == 3);
  CHECK(a.col == std::vector<int>{0, 2, 1, 4, -1, 3, -1, -1, 4});
  SECTION("negative width") {
    a.width = -1;
    CHECK_ERROR(sp::validate(a), "ell: negative size: rows = 3, cols = 5, width = -1");
  }
  SECTION("arrays that are not rows * width long") {
    a.col.pop_back();
    CHECK_ERROR(sp::validate(a), "ell: col and val must have rows * width = 9 entries, have 8 and 9");
  }
  SECTION("a column out of range") {
    a.col[5] = 5;
    CHECK_ERROR(sp::validate(a), "ell: row 2, slot 1 (index 5): column 5 out of range 0..4");
  }
  SECTION("a column after the padding started") {
    a.col[7] = 0;  // row 1, slot 2, after the -1 of slot 1
    CHECK_ERROR(sp::validate(a), "ell: row 1, slot 2 (index 7): column 0 after padding (-1)");
  }
  SECTION("padding with a non-zero value") {
    a.val[4] = 1.5f;
    CHECK_ERROR(sp::validate(a), "ell: row 1, slot 1 (index 4): padding (column -1) must have value 0");
  }
}

TEST_CASE("validate names each BSR4 defect", "[host][sparse]") {
  // 6 x 10: block rows 0..1, block columns 0..2; the last block row and column are partial.
  sp::Csr csr = make_csr(6, 10, {0, 2, 3, 3, 3, 5, 6}, {0, 9, 5, 1, 8, 9}, {1, 2, 3, 4, 5, 6});
  sp::Bsr4 a = sp::csr_to_bsr4(csr);
  REQUIRE(a.block_row_ptr == std::vector<int>{0, 3, 5});
  CHECK(a.block_col == std::vector<int>{0, 1, 2, 0, 2});
  CHECK(error_of([&] { sp::validate(a); }) == "");
  SECTION("block_row_ptr of the wrong length") {
    a.block_row_ptr.push_back(5);
    CHECK_ERROR(sp::validate(a), "bsr4: block_row_ptr must have block rows + 1 = 3 entries, has 4");
  }
  SECTION("a block column out of range") {
    a.block_col[4] = 3;
    CHECK_ERROR(sp::validate(a), "bsr4: block row 1: block column 3 out of range 0..2 at block 4");
  }
  SECTION("unsorted block columns") {
    std::swap(a.block_col[0], a.block_col[1]);
    CHECK_ERROR(sp::validate(a), "bsr4: block row 0: block columns not sorted (0 after 1) at block 1");
  }
  SECTION("a duplicate block column") {
    a.block_col[4] = 0;
    CHECK_ERROR(sp::validate(a), "bsr4: block row 1: duplicate block column 0 at block 4");
  }
  SECTION("val that is not 16 per block") {
    a.val.resize(a.val.size() - 1);
    CHECK_ERROR(sp::validate(a), "bsr4: val must have 16 * blocks = 80 entries, has 79");
  }
  SECTION("a value past the matrix edge") {
    a.val[16 * 4 + 4 * 3 + 0] = 1.0f;  // block row 1, row 3 of the block = matrix row 7 >= 6
    CHECK_ERROR(sp::validate(a), "bsr4: block 4: entry (3, 0) is past the matrix edge (row 7, column 8)");
  }
}

TEST_CASE("validate names each pattern-blocks defect", "[host][sparse]") {
  // 4 x 12: three blocks; blocks 0 and 2 share pattern 0x0001, block 1 has 0x0021.
  sp::Csr csr = make_csr(4, 12, {0, 3, 4, 4, 4}, {0, 4, 8, 5}, {1, 2, 3, 4});
  sp::PatternBlocks a = sp::csr_to_pattern_blocks(csr);
  REQUIRE(a.templates == std::vector<std::uint16_t>{0x0001, 0x0021});
  REQUIRE(a.template_of_block == std::vector<int>{0, 1, 0});
  REQUIRE(a.value_offset == std::vector<int>{0, 1, 3, 4});
  CHECK(error_of([&] { sp::validate(a); }) == "");
  SECTION("a duplicate template") {
    a.templates[1] = 0x0001;
    CHECK_ERROR(sp::validate(a), "pattern_blocks: template 1 (0x0001) appears twice");
  }
  SECTION("templates not sorted by frequency") {
    std::swap(a.templates[0], a.templates[1]);
    a.template_of_block = {1, 0, 1};
    a.value_offset = {0, 1, 3, 4};
    CHECK_ERROR(sp::validate(a), "templates not sorted by frequency: template 1 (0x0001, 2 blocks) after template 0");
  }
  SECTION("a template index out of range") {
    a.template_of_block[2] = 2;
    CHECK_ERROR(sp::validate(a), "pattern_blocks: block 2: template 2 out of range 0..1");
  }
  SECTION("a template no block uses") {
    a.templates.push_back(0x0003);
    CHECK_ERROR(sp::validate(a), "pattern_blocks: template 2 (0x0003) is used by no block");
  }
  SECTION("value_offset disagreeing with the popcount of the mask") {
    a.value_offset = {0, 1, 2, 4};
    CHECK_ERROR(sp::validate(a),
                "pattern_blocks: block 1: value_offset[2] - value_offset[1] = 1 but its template "
                "0x0021 has 2 bits");
  }
  SECTION("values of the wrong size") {
    a.values.push_back(0);
    CHECK_ERROR(sp::validate(a), "pattern_blocks: value_offset[blocks] = 4 but values has 5 entries");
  }
  SECTION("a pattern bit past the matrix edge") {
    a.rows = 3;
    a.templates[1] = 0x1000 | 0x0001;  // bit 12 = (3, 0), row 3 >= 3 rows
    a.value_offset = {0, 1, 3, 4};
    CHECK_ERROR(sp::validate(a), "pattern_blocks: block 1: template 0x1001 has bit 12 set, past the matrix edge");
  }
}

// ---- converters -------------------------------------------------------------------------------------

TEST_CASE("coo_to_csr sorts entries by row then column", "[host][sparse]") {
  sp::Coo coo;
  coo.rows = 3;
  coo.cols = 4;
  coo.row = {2, 0, 2, 1, 0};
  coo.col = {3, 2, 0, 1, 0};
  coo.val = {1, 2, 3, 4, 5};
  const sp::Csr a = sp::coo_to_csr(coo);
  CHECK(a.row_ptr == std::vector<int>{0, 2, 3, 5});
  CHECK(a.col == std::vector<int>{0, 2, 1, 0, 3});
  CHECK(a.val == std::vector<float>{5, 2, 4, 3, 1});
}

TEST_CASE("coo_to_csr rejects duplicate entries and invalid input by name", "[host][sparse]") {
  sp::Coo coo;
  coo.rows = 3;
  coo.cols = 4;
  coo.row = {2, 1, 0, 1};
  coo.col = {3, 2, 0, 2};
  coo.val = {1, 2, 3, 4};
  CHECK_ERROR(sp::coo_to_csr(coo), "coo_to_csr: duplicate entry (row 1, col 2) at entries 1 and 3");
  coo.col[3] = 4;
  CHECK_ERROR(sp::coo_to_csr(coo), "coo: entry 3: column 4 out of range 0..3");
}

TEST_CASE("every conversion round-trips on edge shapes and generated matrices", "[host][sparse]") {
  for (const auto& [name, a] : round_trip_cases()) {
    INFO("matrix: " << name << " (" << a.rows << " x " << a.cols << ", " << a.nnz() << " nonzeros)");
    REQUIRE(error_of([&] { sp::validate(a); }) == "");

    const sp::Coo coo = sp::csr_to_coo(a);
    REQUIRE(error_of([&] { sp::validate(coo); }) == "");
    CHECK(same(sp::coo_to_csr(coo), a));
    // Reversed entry order must not matter.
    sp::Coo reversed = coo;
    std::reverse(reversed.row.begin(), reversed.row.end());
    std::reverse(reversed.col.begin(), reversed.col.end());
    std::reverse(reversed.val.begin(), reversed.val.end());
    CHECK(same(sp::coo_to_csr(reversed), a));

    const sp::Ell ell = sp::csr_to_ell(a);
    REQUIRE(error_of([&] { sp::validate(ell); }) == "");
    const std::vector<float> x = wb::random_floats(static_cast<std::size_t>(a.cols), 99);
    CHECK(ell_spmv(ell, x) == sp::spmv_reference(a, x));

    const sp::Bsr4 bsr = sp::csr_to_bsr4(a);
    REQUIRE(error_of([&] { sp::validate(bsr); }) == "");
    CHECK(bsr.block_row_ptr.size() == static_cast<std::size_t>((a.rows + 3) / 4 + 1));
    CHECK(same(sp::bsr4_to_csr(bsr), a));

    const sp::PatternBlocks pb = sp::csr_to_pattern_blocks(a);
    REQUIRE(error_of([&] { sp::validate(pb); }) == "");
    CHECK(pb.values.size() == a.nnz());
    CHECK(pb.block_col == bsr.block_col);
    CHECK(same(sp::pattern_blocks_to_csr(pb), a));
  }
}

TEST_CASE("explicit zeros stay entries in pattern blocks but vanish through BSR4", "[host][sparse]") {
  const sp::Csr a = make_csr(2, 3, {0, 2, 3}, {0, 2, 1}, {1.0f, 0.0f, 5.0f});
  CHECK(same(sp::pattern_blocks_to_csr(sp::csr_to_pattern_blocks(a)), a));
  CHECK(sp::csr_to_pattern_blocks(a).templates == std::vector<std::uint16_t>{0x0025});
  const sp::Csr dropped = sp::bsr4_to_csr(sp::csr_to_bsr4(a));
  CHECK(dropped.row_ptr == std::vector<int>{0, 1, 2});
  CHECK(dropped.col == std::vector<int>{0, 1});
  CHECK(dropped.val == std::vector<float>{1.0f, 5.0f});
}

TEST_CASE("csr_to_bsr4 places values row-major in their block, zero-filled", "[host][sparse]") {
  const sp::Csr a = make_csr(5, 6, {0, 2, 2, 2, 2, 3}, {1, 5, 4}, {1.0f, 2.0f, 3.0f});
  const sp::Bsr4 b = sp::csr_to_bsr4(a);
  CHECK(b.block_row_ptr == std::vector<int>{0, 2, 3});
  CHECK(b.block_col == std::vector<int>{0, 1, 1});
  std::vector<float> expected(48, 0.0f);
  expected[0 * 16 + 1] = 1.0f;  // (0, 1)
  expected[1 * 16 + 1] = 2.0f;  // (0, 5) = block col 1, (0, 1)
  expected[2 * 16 + 0] = 3.0f;  // (4, 4) = block (1, 1), (0, 0)
  CHECK(b.val == expected);
}

TEST_CASE("pattern-block templates are ordered by frequency, ties by mask, values in bit order", "[host][sparse]") {
  // 4 x 24: six blocks in one block row. Patterns in block order: C B A A B A, where
  // A = {(0,0)} = 0x0001 (3 blocks), B = {(1,1), (0,2)} = 0x0024 (2 blocks), C = {(3,3)} = 0x8000 (1 block).
  sp::Coo coo;
  coo.rows = 4;
  coo.cols = 24;
  auto add = [&coo](int r, int c, float v) {
    coo.row.push_back(r);
    coo.col.push_back(c);
    coo.val.push_back(v);
  };
  add(3, 3, 1);  // block 0: C
  add(1, 5, 2);  // block 1: B; bit 5 = (1, 1), stored after bit 2 = (0, 2)
  add(0, 6, 3);
  add(0, 8, 4);   // block 2: A
  add(0, 12, 5);  // block 3: A
  add(0, 18, 6);  // block 4: B
  add(1, 17, 7);
  add(0, 20, 8);  // block 5: A
  const sp::PatternBlocks pb = sp::csr_to_pattern_blocks(sp::coo_to_csr(coo));
  CHECK(pb.templates == std::vector<std::uint16_t>{0x0001, 0x0024, 0x8000});
  CHECK(pb.template_of_block == std::vector<int>{2, 1, 0, 0, 1, 0});
  CHECK(pb.value_offset == std::vector<int>{0, 1, 3, 4, 5, 7, 8});
  CHECK(pb.values == std::vector<float>{1, 3, 2, 4, 5, 6, 7, 8});

  // A tie in frequency goes to the smaller mask, whatever the block order.
  const sp::Csr tie = make_csr(2, 8, {0, 1, 2}, {6, 0}, {1, 2});  // blocks: {(1, 0)} = 0x0010, {(0, 2)} = 0x0004
  CHECK(sp::csr_to_pattern_blocks(tie).templates == std::vector<std::uint16_t>{0x0004, 0x0010});
}

TEST_CASE("csr_to_ell pads column-major and refuses to explode", "[host][sparse]") {
  const sp::Csr a = make_csr(3, 4, {0, 1, 3, 3}, {2, 0, 3}, {1, 2, 3});
  const sp::Ell e = sp::csr_to_ell(a);
  CHECK(e.width == 2);
  CHECK(e.col == std::vector<int>{2, 0, -1, -1, 3, -1});
  CHECK(e.val == std::vector<float>{1, 2, 0, 0, 3, 0});

  // 1000 rows, one of them holding 1000 entries: a million padded slots for 1999 nonzeros.
  std::vector<int> row_ptr(1001), col;
  for (int r = 0; r < 1000; ++r) {
    if (r == 7) {
      for (int c = 0; c < 1000; ++c) col.push_back(c);
    } else {
      col.push_back(r);
    }
    row_ptr[r + 1] = static_cast<int>(col.size());
  }
  const sp::Csr skewed = make_csr(1000, 1000, row_ptr, col, std::vector<float>(col.size(), 1.0f));
  CHECK_ERROR(sp::csr_to_ell(skewed, 100000),
              "csr_to_ell: width 1000 (the length of row 7) times 1000 rows = "
              "1000000 padded entries");
  CHECK(sp::csr_to_ell(skewed, 1000000).width == 1000);
}

TEST_CASE("spmv_reference matches a hand-computed product and its error scale", "[host][sparse]") {
  // [ 1  0  2 ]       [1]       [ 7]                     [ 7]
  // [ 0  0  0 ]  x =  [2]  y =  [ 0]   sum |a_ij x_j| =  [ 0]
  // [-3  4  0 ]       [3]       [ 5]                     [11]
  const sp::Csr a = make_csr(3, 3, {0, 2, 2, 4}, {0, 2, 0, 1}, {1, 2, -3, 4});
  std::vector<double> abs_sum;
  CHECK(sp::spmv_reference(a, {1, 2, 3}, &abs_sum) == std::vector<double>{7, 0, 5});
  CHECK(abs_sum == std::vector<double>{7, 0, 11});
  CHECK(sp::spmv_reference(a, {1, 2, 3}) == std::vector<double>{7, 0, 5});
  CHECK_ERROR(sp::spmv_reference(a, {1, 2}), "spmv_reference: x has 2 entries but the matrix has 3 columns");
}

// ---- generators -------------------------------------------------------------------------------------

TEST_CASE("poisson_2d(3) is the 5-point Laplacian on a 3 x 3 grid", "[host][sparse]") {
  const sp::Csr a = sp::poisson_2d(3);
  REQUIRE(error_of([&] { sp::validate(a); }) == "");
  CHECK(a.rows == 9);
  CHECK(a.cols == 9);
  CHECK(a.row_ptr == std::vector<int>{0, 3, 7, 10, 14, 19, 23, 26, 30, 33});  // degrees 3 4 3 4 5 4 3 4 3
  CHECK(std::vector<int>(a.col.begin() + 14, a.col.begin() + 19) == std::vector<int>{1, 3, 4, 5, 7});
  CHECK(std::vector<int>(a.col.begin(), a.col.begin() + 3) == std::vector<int>{0, 1, 3});
  for (int r = 0; r < a.rows; ++r) {
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) CHECK(a.val[k] == (a.col[k] == r ? 4.0f : -1.0f));
  }
  CHECK(sp::poisson_2d(0).rows == 0);
  CHECK(sp::poisson_2d(1).val == std::vector<float>{4.0f});
}

TEST_CASE("generators give the same matrix for a seed and another for another seed", "[host][sparse]") {
  CHECK(same(sp::banded(100, 3, 2, 1), sp::banded(100, 3, 2, 1)));
  CHECK_FALSE(same(sp::banded(100, 3, 2, 1), sp::banded(100, 3, 2, 2)));
  CHECK(same(sp::random_uniform(100, 80, 7, 1), sp::random_uniform(100, 80, 7, 1)));
  CHECK_FALSE(same(sp::random_uniform(100, 80, 7, 1), sp::random_uniform(100, 80, 7, 2)));
  CHECK(same(sp::power_law(100, 80, 1.5, 50, 1), sp::power_law(100, 80, 1.5, 50, 1)));
  CHECK_FALSE(same(sp::power_law(100, 80, 1.5, 50, 1), sp::power_law(100, 80, 1.5, 50, 2)));
  CHECK(same(sp::block_fem(30, 4, 1), sp::block_fem(30, 4, 1)));
  CHECK_FALSE(same(sp::block_fem(30, 4, 1), sp::block_fem(30, 4, 2)));
  // Pinned: wb::Rng is specified bit for bit, so these never change across platforms.
  const sp::Csr pinned = sp::random_uniform(2, 1000, 3, 7);
  INFO("columns " << pinned.col[0] << " " << pinned.col[1] << " " << pinned.col[2]);
  CHECK(same(pinned, sp::random_uniform(2, 1000, 3, 7)));
}

TEST_CASE("generators handle empty, single-row and over-wide requests, and always validate", "[host][sparse]") {
  const std::vector<std::pair<std::string, sp::Csr>> cases = {
      {"banded 0", sp::banded(0, 2, 2, 1)},
      {"banded 1", sp::banded(1, 2, 2, 1)},
      {"banded wide band", sp::banded(5, 10, 10, 1)},
      {"random_uniform 0 rows", sp::random_uniform(0, 5, 3, 1)},
      {"random_uniform 0 cols", sp::random_uniform(4, 0, 3, 1)},
      {"random_uniform 1 row", sp::random_uniform(1, 5, 3, 1)},
      {"power_law 0 rows", sp::power_law(0, 10, 1.5, 5, 1)},
      {"power_law 0 cols", sp::power_law(5, 0, 1.5, 5, 1)},
      {"power_law 1 row", sp::power_law(1, 10, 1.5, 5, 1)},
      {"power_law max > cols", sp::power_law(50, 3, 0.5, 100, 1)},
      {"block_fem 0", sp::block_fem(0, 4, 1)},
      {"block_fem 1", sp::block_fem(1, 4, 1)},
      {"block_fem more neighbours than nodes", sp::block_fem(3, 9, 1)},
  };
  for (const auto& [name, a] : cases) {
    INFO(name);
    CHECK(error_of([&] { sp::validate(a); }) == "");
  }
  CHECK(sp::banded(5, 10, 10, 1).nnz() == 25);
  CHECK(sp::block_fem(1, 4, 1).nnz() == 16);
  CHECK_ERROR(sp::random_uniform(-1, 5, 3, 1), "random_uniform: rows = -1");
  CHECK_ERROR(sp::power_law(5, 5, 1.5, 0, 1), "max_per_row >= 1");
}

TEST_CASE("random_uniform gives exactly per_row distinct sorted columns in every row", "[host][sparse]") {
  const sp::Csr a = sp::random_uniform(2000, 300, 17, 5);
  REQUIRE(error_of([&] { sp::validate(a); }) == "");  // sorted and distinct within each row
  for (int r = 0; r < a.rows; ++r) REQUIRE(a.row_ptr[r + 1] - a.row_ptr[r] == 17);
  // Columns cover the range rather than clustering: every column is used somewhere.
  std::vector<int> used(300, 0);
  for (int c : a.col) used[c] = 1;
  CHECK(std::count(used.begin(), used.end(), 1) == 300);
  for (float v : a.val) REQUIRE(v != 0.0f);

  // per_row > cols: every row holds every column.
  const sp::Csr full = sp::random_uniform(10, 6, 9, 5);
  for (int r = 0; r < full.rows; ++r)
    CHECK(std::vector<int>(full.col.begin() + full.row_ptr[r], full.col.begin() + full.row_ptr[r + 1]) ==
          std::vector<int>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("power_law has a few rows far longer than the typical row", "[host][sparse]") {
  const sp::Csr a = sp::power_law(100000, 100000, 1.5, 2000, 9);
  REQUIRE(error_of([&] { sp::validate(a); }) == "");
  std::vector<int> length(static_cast<std::size_t>(a.rows));
  for (int r = 0; r < a.rows; ++r) length[r] = a.row_ptr[r + 1] - a.row_ptr[r];
  const int longest = *std::max_element(length.begin(), length.end());
  std::nth_element(length.begin(), length.begin() + length.size() / 2, length.end());
  const int median = length[length.size() / 2];
  INFO("longest " << longest << ", median " << median);
  CHECK(median >= 1);
  CHECK(longest >= 10 * median);
  CHECK(longest <= 2000);
}

TEST_CASE("block_fem is made of dense 4x4 blocks in a symmetric pattern", "[host][sparse]") {
  for (int neighbours : {0, 1, 4, 5}) {
    INFO("neighbours " << neighbours);
    const sp::Csr a = sp::block_fem(50, neighbours, 3);
    REQUIRE(error_of([&] { sp::validate(a); }) == "");
    CHECK(a.rows == 200);
    // An interior node couples to itself and `neighbours` others: (neighbours + 1) blocks of 4 columns.
    CHECK(a.row_ptr[4 * 25 + 1] - a.row_ptr[4 * 25] == 4 * (neighbours + 1));

    const sp::Bsr4 b = sp::csr_to_bsr4(a);
    CHECK(b.blocks() * 16 == a.nnz());
    for (float v : b.val) REQUIRE(v != 0.0f);  // every block fully dense

    const sp::PatternBlocks pb = sp::csr_to_pattern_blocks(a);
    CHECK(pb.templates == std::vector<std::uint16_t>{0xFFFF});

    // Symmetric pattern: block (i, j) exists exactly when block (j, i) does.
    std::vector<std::vector<int>> nodes(50);
    for (int br = 0; br < 50; ++br) {
      for (int k = b.block_row_ptr[br]; k < b.block_row_ptr[br + 1]; ++k) nodes[br].push_back(b.block_col[k]);
    }
    for (int i = 0; i < 50; ++i) {
      for (int j : nodes[i]) REQUIRE(std::binary_search(nodes[j].begin(), nodes[j].end(), i));
    }
  }
}
