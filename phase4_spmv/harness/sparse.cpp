// SPDX-License-Identifier: MIT
// Sparse formats, converters, validators, generators and the SpMV reference (the Matrix Market reader
// and writer live in matrix_market.cpp). Everything is single-threaded and draws its randomness from
// wb::Rng in a fixed order, so a seed gives the same matrix on every platform.
#include "phase4_spmv/harness/sparse.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <utility>

#include "common/data.h"
#include "common/util.h"

namespace p4 {
namespace sparse {
namespace {

[[noreturn]] void fail(const std::string& message) {
  throw SparseError(message);
}

std::string str(long long v) {
  return std::to_string(v);
}

// "0..7" for 8 columns; an empty range is spelled out, since "0..-1" reads like a typo.
std::string range_text(long long n) {
  return n > 0 ? "0.." + str(n - 1) : "(none: the size is 0)";
}

std::string hex_mask(unsigned mask) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%04x", mask);
  return text;
}

int popcount16(unsigned mask) {
  int n = 0;
  for (; mask != 0; mask &= mask - 1) ++n;
  return n;
}

// Every index array is int (what the kernels use), so counts past INT_MAX cannot be represented.
int checked_int(long long n, const std::string& what) {
  if (n > std::numeric_limits<int>::max())
    fail(what + ": " + str(n) + " exceeds the int indices of the sparse formats (at most 2^31 - 1)");
  return static_cast<int>(n);
}

// Generated values are never exactly 0, so every generated entry is a true nonzero and survives the
// conversions that drop zero fill (bsr4_to_csr). uniform() hits 0 with probability 2^-24 per draw, which
// a 100M-entry matrix would meet several times.
float nonzero_value(wb::Rng& rng) {
  float v = rng.uniform(-1.0f, 1.0f);
  while (v == 0.0f) v = rng.uniform(-1.0f, 1.0f);
  return v;
}

// Checks a (block_)row_ptr: its size, start, monotonicity and end. `what` is "csr: row_ptr" etc.
void validate_row_ptr(const std::vector<int>& ptr, int rows, std::size_t entries, const std::string& prefix,
                      const std::string& name, const std::string& rows_name) {
  const std::size_t want = static_cast<std::size_t>(rows) + 1;
  if (ptr.size() != want)
    fail(prefix + name + " must have " + rows_name + " + 1 = " + str(static_cast<long long>(want)) + " entries, has " +
         str(static_cast<long long>(ptr.size())));
  if (ptr[0] != 0) fail(prefix + name + "[0] = " + str(ptr[0]) + ", must be 0");
  for (int r = 1; r <= rows; ++r) {
    if (ptr[r] < ptr[r - 1])
      fail(prefix + name + "[" + str(r) + "] = " + str(ptr[r]) + " < " + name + "[" + str(r - 1) +
           "] = " + str(ptr[r - 1]) + " (must not decrease)");
  }
  if (static_cast<std::size_t>(ptr[rows]) != entries)
    fail(prefix + name + "[" + rows_name + "] = " + str(ptr[rows]) + " but " + str(static_cast<long long>(entries)) +
         " entries");
}

// Block columns in range, sorted and unique within each block row (shared by Bsr4 and PatternBlocks).
void validate_block_cols(const std::vector<int>& ptr, const std::vector<int>& block_col, int block_rows, int block_cols,
                         const std::string& prefix) {
  for (int br = 0; br < block_rows; ++br) {
    for (int b = ptr[br]; b < ptr[br + 1]; ++b) {
      const int c = block_col[b];
      auto where = [&] { return prefix + "block row " + str(br) + ": "; };  // built only on failure
      if (c < 0 || c >= block_cols)
        fail(where() + "block column " + str(c) + " out of range " + range_text(block_cols) + " at block " + str(b));
      if (b > ptr[br] && c == block_col[b - 1])
        fail(where() + "duplicate block column " + str(c) + " at block " + str(b));
      if (b > ptr[br] && c < block_col[b - 1])
        fail(where() + "block columns not sorted (" + str(c) + " after " + str(block_col[b - 1]) + ") at block " +
             str(b));
    }
  }
}

void validate_sizes(const std::string& prefix, int rows, int cols) {
  if (rows < 0 || cols < 0) fail(prefix + "negative size: rows = " + str(rows) + ", cols = " + str(cols));
}

// The block structure of a CSR matrix: which 4x4 blocks hold at least one entry (explicit zeros
// count: they are entries), in block-CSR order, and the block of every CSR entry.
struct BlockLayout {
  std::vector<int> block_row_ptr;
  std::vector<int> block_col;
  std::vector<int> block_of_entry;
};

BlockLayout block_layout(const Csr& a) {
  const int block_rows = wb::ceil_div(a.rows, 4);
  BlockLayout out;
  out.block_row_ptr.assign(static_cast<std::size_t>(block_rows) + 1, 0);
  out.block_of_entry.resize(a.nnz());
  // stamp[bc] = the block row that last saw block column bc; where[bc] = its block index there.
  // Touching only the block columns a block row uses keeps this O(nnz), not O(block rows * block cols).
  std::vector<int> stamp(static_cast<std::size_t>(wb::ceil_div(a.cols, 4)), -1), where(stamp.size());
  std::vector<int> seen;
  for (int br = 0; br < block_rows; ++br) {
    const int r0 = 4 * br, r1 = std::min(a.rows, r0 + 4);
    seen.clear();
    for (int k = a.row_ptr[r0]; k < a.row_ptr[r1]; ++k) {
      const int bc = a.col[k] >> 2;
      if (stamp[bc] != br) {
        stamp[bc] = br;
        seen.push_back(bc);
      }
    }
    std::sort(seen.begin(), seen.end());
    const int base = static_cast<int>(out.block_col.size());
    for (std::size_t i = 0; i < seen.size(); ++i) {
      where[seen[i]] = base + static_cast<int>(i);
      out.block_col.push_back(seen[i]);
    }
    for (int k = a.row_ptr[r0]; k < a.row_ptr[r1]; ++k) out.block_of_entry[k] = where[a.col[k] >> 2];
    out.block_row_ptr[br + 1] = static_cast<int>(out.block_col.size());
  }
  return out;
}

Csr finish_csr(int rows, int cols, std::vector<int> row_ptr, std::vector<int> col, std::vector<float> val) {
  Csr out;
  out.rows = rows;
  out.cols = cols;
  out.row_ptr = std::move(row_ptr);
  out.col = std::move(col);
  out.val = std::move(val);
  return out;
}

// Floyd's sampling: exactly k distinct columns out of [0, cols) with exactly k draws, whatever k is
// (no rejection loop that crawls when k is close to cols). Short rows look each draw up in the few columns
// taken so far; long rows in `taken`, a bitmap of the columns (cols / 8 bytes, small enough to stay in
// cache where an int per column would not), cleared again bit by bit afterwards. Both give the same
// columns for the same draws. The result is sorted.
void sample_columns(wb::Rng& rng, int cols, int k, std::vector<std::uint64_t>& taken, std::vector<int>& out) {
  constexpr int kShortRow = 64;
  out.clear();
  for (int j = cols - k; j < cols; ++j) {
    int t = static_cast<int>(rng.integer(0, j));
    if (k <= kShortRow) {
      if (std::find(out.begin(), out.end(), t) != out.end()) t = j;
    } else {
      if (taken[t >> 6] >> (t & 63) & 1u) t = j;
      taken[t >> 6] |= std::uint64_t(1) << (t & 63);
    }
    out.push_back(t);
  }
  if (k > kShortRow) {
    for (int t : out) taken[t >> 6] = 0;
  }
  std::sort(out.begin(), out.end());
}

// Appends sorted distinct columns with fresh random values and closes the row.
void append_row(wb::Rng& rng, const std::vector<int>& cols, Csr& out) {
  for (int c : cols) {
    out.col.push_back(c);
    out.val.push_back(nonzero_value(rng));
  }
  out.row_ptr.push_back(static_cast<int>(out.col.size()));
}

}  // namespace

// ---- validators -------------------------------------------------------------------------------------

void validate(const Coo& a) {
  validate_sizes("coo: ", a.rows, a.cols);
  if (a.row.size() != a.val.size() || a.col.size() != a.val.size())
    fail("coo: row, col and val must have equal lengths, have " + str(static_cast<long long>(a.row.size())) + ", " +
         str(static_cast<long long>(a.col.size())) + ", " + str(static_cast<long long>(a.val.size())));
  for (std::size_t k = 0; k < a.val.size(); ++k) {
    if (a.row[k] < 0 || a.row[k] >= a.rows)
      fail("coo: entry " + str(static_cast<long long>(k)) + ": row " + str(a.row[k]) + " out of range " +
           range_text(a.rows));
    if (a.col[k] < 0 || a.col[k] >= a.cols)
      fail("coo: entry " + str(static_cast<long long>(k)) + ": column " + str(a.col[k]) + " out of range " +
           range_text(a.cols));
  }
}

void validate(const Csr& a) {
  validate_sizes("csr: ", a.rows, a.cols);
  if (a.col.size() != a.val.size())
    fail("csr: col has " + str(static_cast<long long>(a.col.size())) + " entries but val has " +
         str(static_cast<long long>(a.val.size())));
  validate_row_ptr(a.row_ptr, a.rows, a.val.size(), "csr: ", "row_ptr", "rows");
  for (int r = 0; r < a.rows; ++r) {
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const int c = a.col[k];
      auto where = [&] { return "csr: row " + str(r) + ": "; };  // built only on failure
      if (c < 0 || c >= a.cols)
        fail(where() + "column " + str(c) + " out of range " + range_text(a.cols) + " at entry " + str(k));
      if (k > a.row_ptr[r] && c == a.col[k - 1]) fail(where() + "duplicate column " + str(c) + " at entry " + str(k));
      if (k > a.row_ptr[r] && c < a.col[k - 1])
        fail(where() + "columns not sorted (" + str(c) + " after " + str(a.col[k - 1]) + ") at entry " + str(k));
    }
  }
}

void validate(const Ell& a) {
  if (a.rows < 0 || a.cols < 0 || a.width < 0)
    fail("ell: negative size: rows = " + str(a.rows) + ", cols = " + str(a.cols) + ", width = " + str(a.width));
  const std::size_t want = static_cast<std::size_t>(a.rows) * static_cast<std::size_t>(a.width);
  if (a.col.size() != want || a.val.size() != want)
    fail("ell: col and val must have rows * width = " + str(static_cast<long long>(want)) + " entries, have " +
         str(static_cast<long long>(a.col.size())) + " and " + str(static_cast<long long>(a.val.size())));
  // Walked in storage order (slot by slot), which is the cache-friendly order for column-major data;
  // "first" means the lowest storage index.
  std::vector<char> padded(static_cast<std::size_t>(a.rows), 0);
  for (int k = 0; k < a.width; ++k) {
    for (int r = 0; r < a.rows; ++r) {
      const std::size_t i = static_cast<std::size_t>(k) * a.rows + r;
      const int c = a.col[i];
      auto where = [&] {  // built only on failure
        return "ell: row " + str(r) + ", slot " + str(k) + " (index " + str(static_cast<long long>(i)) + "): ";
      };
      if (c == -1) {
        padded[r] = 1;
        if (a.val[i] != 0.0f) fail(where() + "padding (column -1) must have value 0, has " + std::to_string(a.val[i]));
        continue;
      }
      if (c < 0 || c >= a.cols) fail(where() + "column " + str(c) + " out of range " + range_text(a.cols));
      if (padded[r]) fail(where() + "column " + str(c) + " after padding (-1): padding only at the end of a row");
    }
  }
}

void validate(const Bsr4& a) {
  validate_sizes("bsr4: ", a.rows, a.cols);
  const int block_rows = wb::ceil_div(a.rows, 4), block_cols = wb::ceil_div(a.cols, 4);
  validate_row_ptr(a.block_row_ptr, block_rows, a.block_col.size(), "bsr4: ", "block_row_ptr", "block rows");
  const std::size_t want = 16 * a.blocks();
  if (a.val.size() != want)
    fail("bsr4: val must have 16 * blocks = " + str(static_cast<long long>(want)) + " entries, has " +
         str(static_cast<long long>(a.val.size())));
  validate_block_cols(a.block_row_ptr, a.block_col, block_rows, block_cols, "bsr4: ");
  // Kernels may read whole blocks without edge checks, so the part past the matrix edge must be zero.
  for (int br = 0; br < block_rows; ++br) {
    for (int b = a.block_row_ptr[br]; b < a.block_row_ptr[br + 1]; ++b) {
      for (int e = 0; e < 16; ++e) {
        const int r = 4 * br + e / 4, c = 4 * a.block_col[b] + e % 4;
        const float v = a.val[16 * static_cast<std::size_t>(b) + e];
        if ((r >= a.rows || c >= a.cols) && v != 0.0f)
          fail("bsr4: block " + str(b) + ": entry (" + str(e / 4) + ", " + str(e % 4) +
               ") is past the matrix edge (row " + str(r) + ", column " + str(c) + ") but holds " + std::to_string(v) +
               ", must be 0");
      }
    }
  }
}

void validate(const PatternBlocks& a) {
  validate_sizes("pattern_blocks: ", a.rows, a.cols);
  const int block_rows = wb::ceil_div(a.rows, 4), block_cols = wb::ceil_div(a.cols, 4);
  const std::string prefix = "pattern_blocks: ";
  validate_row_ptr(a.block_row_ptr, block_rows, a.block_col.size(), prefix, "block_row_ptr", "block rows");
  validate_block_cols(a.block_row_ptr, a.block_col, block_rows, block_cols, prefix);
  const std::size_t blocks = a.blocks();
  if (a.template_of_block.size() != blocks)
    fail(prefix + "template_of_block must have blocks = " + str(static_cast<long long>(blocks)) + " entries, has " +
         str(static_cast<long long>(a.template_of_block.size())));
  const int templates = static_cast<int>(a.templates.size());
  std::vector<long long> uses(a.templates.size(), 0);
  for (std::size_t b = 0; b < blocks; ++b) {
    const int t = a.template_of_block[b];
    if (t < 0 || t >= templates)
      fail(prefix + "block " + str(static_cast<long long>(b)) + ": template " + str(t) + " out of range " +
           range_text(templates));
    ++uses[t];
  }
  std::vector<char> seen(1 << 16, 0);
  for (int t = 0; t < templates; ++t) {
    const unsigned mask = a.templates[t];
    if (seen[mask]) fail(prefix + "template " + str(t) + " (" + hex_mask(mask) + ") appears twice");
    seen[mask] = 1;
    if (uses[t] == 0) fail(prefix + "template " + str(t) + " (" + hex_mask(mask) + ") is used by no block");
    if (t > 0) {
      const unsigned prev = a.templates[t - 1];
      if (uses[t] > uses[t - 1] || (uses[t] == uses[t - 1] && mask < prev))
        fail(prefix + "templates not sorted by frequency: template " + str(t) + " (" + hex_mask(mask) + ", " +
             str(uses[t]) + " blocks) after template " + str(t - 1) + " (" + hex_mask(prev) + ", " + str(uses[t - 1]) +
             " blocks); ties go by ascending mask");
    }
  }
  if (a.value_offset.size() != blocks + 1)
    fail(prefix + "value_offset must have blocks + 1 = " + str(static_cast<long long>(blocks + 1)) + " entries, has " +
         str(static_cast<long long>(a.value_offset.size())));
  if (a.value_offset[0] != 0) fail(prefix + "value_offset[0] = " + str(a.value_offset[0]) + ", must be 0");
  for (std::size_t b = 0; b < blocks; ++b) {
    const int count = popcount16(a.templates[a.template_of_block[b]]);
    const long long got = static_cast<long long>(a.value_offset[b + 1]) - a.value_offset[b];
    if (got != count)
      fail(prefix + "block " + str(static_cast<long long>(b)) + ": value_offset[" + str(static_cast<long long>(b + 1)) +
           "] - value_offset[" + str(static_cast<long long>(b)) + "] = " + str(got) + " but its template " +
           hex_mask(a.templates[a.template_of_block[b]]) + " has " + str(count) + " bits");
  }
  if (static_cast<std::size_t>(a.value_offset[blocks]) != a.values.size())
    fail(prefix + "value_offset[blocks] = " + str(a.value_offset[blocks]) + " but values has " +
         str(static_cast<long long>(a.values.size())) + " entries");
  for (int br = 0; br < block_rows; ++br) {
    for (int b = a.block_row_ptr[br]; b < a.block_row_ptr[br + 1]; ++b) {
      const unsigned mask = a.templates[a.template_of_block[b]];
      for (int e = 0; e < 16; ++e) {
        const int r = 4 * br + e / 4, c = 4 * a.block_col[b] + e % 4;
        if ((mask >> e & 1u) && (r >= a.rows || c >= a.cols))
          fail(prefix + "block " + str(b) + ": template " + hex_mask(mask) + " has bit " + str(e) +
               " set, past the matrix edge (row " + str(r) + ", column " + str(c) + ")");
      }
    }
  }
}

// ---- converters -------------------------------------------------------------------------------------

Csr coo_to_csr(const Coo& a) {
  validate(a);
  const int nnz = checked_int(static_cast<long long>(a.nnz()), "coo_to_csr: the number of entries");
  // Counting sort by row keeps the input order within a row; the stable sort by column then makes the
  // first of two duplicates the earlier one, which is the one the error names first.
  std::vector<int> row_ptr(static_cast<std::size_t>(a.rows) + 1, 0);
  for (int k = 0; k < nnz; ++k) ++row_ptr[a.row[k] + 1];
  for (int r = 0; r < a.rows; ++r) row_ptr[r + 1] += row_ptr[r];
  std::vector<int> order(nnz), next(row_ptr.begin(), row_ptr.end() - 1);
  for (int k = 0; k < nnz; ++k) order[next[a.row[k]]++] = k;
  std::vector<int> col(nnz);
  std::vector<float> val(nnz);
  for (int r = 0; r < a.rows; ++r) {
    const auto first = order.begin() + row_ptr[r], last = order.begin() + row_ptr[r + 1];
    std::stable_sort(first, last, [&a](int x, int y) { return a.col[x] < a.col[y]; });
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) {
      if (k > row_ptr[r] && a.col[order[k]] == a.col[order[k - 1]])
        fail("coo_to_csr: duplicate entry (row " + str(r) + ", col " + str(a.col[order[k]]) + ") at entries " +
             str(order[k - 1]) + " and " + str(order[k]));
      col[k] = a.col[order[k]];
      val[k] = a.val[order[k]];
    }
  }
  return finish_csr(a.rows, a.cols, std::move(row_ptr), std::move(col), std::move(val));
}

Coo csr_to_coo(const Csr& a) {
  validate(a);
  Coo out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.row.resize(a.nnz());
  for (int r = 0; r < a.rows; ++r) std::fill(out.row.begin() + a.row_ptr[r], out.row.begin() + a.row_ptr[r + 1], r);
  out.col = a.col;
  out.val = a.val;
  return out;
}

Ell csr_to_ell(const Csr& a, std::size_t max_padded_entries) {
  validate(a);
  int width = 0, longest = 0;
  for (int r = 0; r < a.rows; ++r) {
    if (a.row_ptr[r + 1] - a.row_ptr[r] > width) {
      width = a.row_ptr[r + 1] - a.row_ptr[r];
      longest = r;
    }
  }
  const std::size_t padded = static_cast<std::size_t>(a.rows) * static_cast<std::size_t>(width);
  if (padded > max_padded_entries)
    fail("csr_to_ell: width " + str(width) + " (the length of row " + str(longest) + ") times " + str(a.rows) +
         " rows = " + str(static_cast<long long>(padded)) + " padded entries for " +
         str(static_cast<long long>(a.nnz())) + " nonzeros, over the limit of " +
         str(static_cast<long long>(max_padded_entries)) + "; one long row makes ELL explode");
  Ell out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.width = width;
  out.col.assign(padded, -1);
  out.val.assign(padded, 0.0f);
  // A tile of rows at a time, slot by slot, so the writes run along the column-major arrays instead of
  // striding `rows` entries apart (a cache miss per entry on a matrix of millions of rows).
  constexpr int kTile = 1024;
  for (int r0 = 0; r0 < a.rows; r0 += kTile) {
    const int r1 = std::min(a.rows, r0 + kTile);
    for (int slot = 0; slot < width; ++slot) {
      const std::size_t base = static_cast<std::size_t>(slot) * a.rows;
      for (int r = r0; r < r1; ++r) {
        const int k = a.row_ptr[r] + slot;
        if (k >= a.row_ptr[r + 1]) continue;
        out.col[base + r] = a.col[k];
        out.val[base + r] = a.val[k];
      }
    }
  }
  return out;
}

Bsr4 csr_to_bsr4(const Csr& a) {
  validate(a);
  BlockLayout layout = block_layout(a);
  Bsr4 out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.val.assign(16 * layout.block_col.size(), 0.0f);
  for (int r = 0; r < a.rows; ++r) {
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      out.val[16 * static_cast<std::size_t>(layout.block_of_entry[k]) + 4 * (r % 4) + a.col[k] % 4] = a.val[k];
  }
  out.block_row_ptr = std::move(layout.block_row_ptr);
  out.block_col = std::move(layout.block_col);
  return out;
}

Csr bsr4_to_csr(const Bsr4& a) {
  validate(a);
  std::vector<int> row_ptr(static_cast<std::size_t>(a.rows) + 1, 0), col;
  std::vector<float> val;
  for (int r = 0; r < a.rows; ++r) {
    const int br = r / 4, i = r % 4;
    for (int b = a.block_row_ptr[br]; b < a.block_row_ptr[br + 1]; ++b) {
      for (int j = 0; j < 4; ++j) {
        const float v = a.val[16 * static_cast<std::size_t>(b) + 4 * i + j];
        if (v == 0.0f) continue;  // zero fill and explicit zeros look the same here
        col.push_back(4 * a.block_col[b] + j);
        val.push_back(v);
      }
    }
    row_ptr[r + 1] = checked_int(static_cast<long long>(col.size()), "bsr4_to_csr: the number of nonzeros");
  }
  return finish_csr(a.rows, a.cols, std::move(row_ptr), std::move(col), std::move(val));
}

PatternBlocks csr_to_pattern_blocks(const Csr& a) {
  validate(a);
  BlockLayout layout = block_layout(a);
  const std::size_t blocks = layout.block_col.size();
  std::vector<unsigned> mask(blocks, 0);
  for (int r = 0; r < a.rows; ++r) {
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k)
      mask[layout.block_of_entry[k]] |= 1u << (4 * (r % 4) + a.col[k] % 4);
  }
  PatternBlocks out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.value_offset.assign(blocks + 1, 0);
  for (std::size_t b = 0; b < blocks; ++b) out.value_offset[b + 1] = out.value_offset[b] + popcount16(mask[b]);
  // An entry's place in its block's packed values is the number of set mask bits below its own bit.
  out.values.resize(a.nnz());
  for (int r = 0; r < a.rows; ++r) {
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const int b = layout.block_of_entry[k];
      const unsigned bit = 4 * (r % 4) + a.col[k] % 4;
      out.values[out.value_offset[b] + popcount16(mask[b] & ((1u << bit) - 1))] = a.val[k];
    }
  }
  // Templates: distinct masks, most used first, ties by mask value so the order is canonical.
  std::vector<long long> uses(1 << 16, 0);
  for (unsigned m : mask) ++uses[m];
  for (unsigned m = 0; m < (1u << 16); ++m) {
    if (uses[m] > 0) out.templates.push_back(static_cast<std::uint16_t>(m));
  }
  std::stable_sort(out.templates.begin(), out.templates.end(),
                   [&uses](std::uint16_t x, std::uint16_t y) { return uses[x] > uses[y]; });
  std::vector<int> index_of(1 << 16, -1);
  for (std::size_t t = 0; t < out.templates.size(); ++t) index_of[out.templates[t]] = static_cast<int>(t);
  out.template_of_block.resize(blocks);
  for (std::size_t b = 0; b < blocks; ++b) out.template_of_block[b] = index_of[mask[b]];
  out.block_row_ptr = std::move(layout.block_row_ptr);
  out.block_col = std::move(layout.block_col);
  return out;
}

Csr pattern_blocks_to_csr(const PatternBlocks& a) {
  validate(a);
  std::vector<int> row_ptr(static_cast<std::size_t>(a.rows) + 1, 0), col;
  std::vector<float> val;
  col.reserve(a.values.size());
  val.reserve(a.values.size());
  for (int r = 0; r < a.rows; ++r) {
    const int br = r / 4, i = r % 4;
    for (int b = a.block_row_ptr[br]; b < a.block_row_ptr[br + 1]; ++b) {
      const unsigned mask = a.templates[a.template_of_block[b]];
      for (int j = 0; j < 4; ++j) {
        const unsigned bit = 4 * i + j;
        if (!(mask >> bit & 1u)) continue;  // set bits are entries, explicit zeros included
        col.push_back(4 * a.block_col[b] + j);
        val.push_back(a.values[a.value_offset[b] + popcount16(mask & ((1u << bit) - 1))]);
      }
    }
    row_ptr[r + 1] = static_cast<int>(col.size());
  }
  return finish_csr(a.rows, a.cols, std::move(row_ptr), std::move(col), std::move(val));
}

std::vector<double> spmv_reference(const Csr& a, const std::vector<float>& x, std::vector<double>* row_abs_sum) {
  validate(a);
  if (x.size() != static_cast<std::size_t>(a.cols))
    fail("spmv_reference: x has " + str(static_cast<long long>(x.size())) + " entries but the matrix has " +
         str(a.cols) + " columns");
  std::vector<double> y(static_cast<std::size_t>(a.rows));
  if (row_abs_sum != nullptr) row_abs_sum->assign(y.size(), 0.0);
  for (int r = 0; r < a.rows; ++r) {
    double sum = 0, abs_sum = 0;
    for (int k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const double term = static_cast<double>(a.val[k]) * static_cast<double>(x[a.col[k]]);
      sum += term;
      abs_sum += std::fabs(term);
    }
    y[r] = sum;
    if (row_abs_sum != nullptr) (*row_abs_sum)[r] = abs_sum;
  }
  return y;
}

// ---- generators -------------------------------------------------------------------------------------

Csr poisson_2d(int n) {
  if (n < 0) fail("poisson_2d: n = " + str(n) + " must not be negative");
  const int rows = checked_int(static_cast<long long>(n) * n, "poisson_2d: n^2 rows");
  checked_int(5LL * rows, "poisson_2d: the number of nonzeros");
  Csr out;
  out.rows = out.cols = rows;
  out.row_ptr.reserve(static_cast<std::size_t>(rows) + 1);
  out.col.reserve(5 * static_cast<std::size_t>(rows));
  out.val.reserve(5 * static_cast<std::size_t>(rows));
  out.row_ptr.push_back(0);
  for (int gy = 0; gy < n; ++gy) {
    for (int gx = 0; gx < n; ++gx) {
      const int r = gy * n + gx;
      // Ascending column order: up, left, centre, right, down.
      const int cols[5] = {gy > 0 ? r - n : -1, gx > 0 ? r - 1 : -1, r, gx + 1 < n ? r + 1 : -1,
                           gy + 1 < n ? r + n : -1};
      for (int c : cols) {
        if (c < 0) continue;
        out.col.push_back(c);
        out.val.push_back(c == r ? 4.0f : -1.0f);
      }
      out.row_ptr.push_back(static_cast<int>(out.col.size()));
    }
  }
  return out;
}

Csr banded(int rows, int lower, int upper, std::uint64_t seed) {
  if (rows < 0 || lower < 0 || upper < 0)
    fail("banded: rows = " + str(rows) + ", lower = " + str(lower) + ", upper = " + str(upper) +
         " must not be negative");
  long long total = 0;
  for (int r = 0; r < rows; ++r)
    total += std::min<long long>(rows - 1, static_cast<long long>(r) + upper) - std::max<long long>(0, r - lower) + 1;
  checked_int(total, "banded: the number of nonzeros");
  wb::Rng rng(seed);
  Csr out;
  out.rows = out.cols = rows;
  out.row_ptr.reserve(static_cast<std::size_t>(rows) + 1);
  out.col.reserve(static_cast<std::size_t>(total));
  out.val.reserve(static_cast<std::size_t>(total));
  out.row_ptr.push_back(0);
  for (int r = 0; r < rows; ++r) {
    const int first = static_cast<int>(std::max<long long>(0, static_cast<long long>(r) - lower));
    const int last = static_cast<int>(std::min<long long>(rows - 1, static_cast<long long>(r) + upper));
    for (int c = first; c <= last; ++c) {
      out.col.push_back(c);
      out.val.push_back(nonzero_value(rng));
    }
    out.row_ptr.push_back(static_cast<int>(out.col.size()));
  }
  return out;
}

Csr random_uniform(int rows, int cols, int per_row, std::uint64_t seed) {
  if (rows < 0 || cols < 0 || per_row < 0)
    fail("random_uniform: rows = " + str(rows) + ", cols = " + str(cols) + ", per_row = " + str(per_row) +
         " must not be negative");
  const int k = std::min(per_row, cols);
  const int total = checked_int(static_cast<long long>(rows) * k, "random_uniform: the number of nonzeros");
  wb::Rng rng(seed);
  Csr out;
  out.rows = rows;
  out.cols = cols;
  out.row_ptr.reserve(static_cast<std::size_t>(rows) + 1);
  out.col.reserve(static_cast<std::size_t>(total));
  out.val.reserve(static_cast<std::size_t>(total));
  out.row_ptr.push_back(0);
  std::vector<std::uint64_t> taken(static_cast<std::size_t>(cols) / 64 + 1, 0);
  std::vector<int> picked;
  for (int r = 0; r < rows; ++r) {
    sample_columns(rng, cols, k, taken, picked);
    append_row(rng, picked, out);
  }
  return out;
}

Csr power_law(int rows, int cols, double alpha, int max_per_row, std::uint64_t seed) {
  if (rows < 0 || cols < 0 || max_per_row < 1 || !std::isfinite(alpha))
    fail("power_law: rows = " + str(rows) + ", cols = " + str(cols) + ", max_per_row = " + str(max_per_row) +
         ", alpha = " + std::to_string(alpha) + ": sizes must not be negative, max_per_row >= 1, alpha finite");
  // Distinct columns: a row cannot be longer than the matrix is wide.
  const int longest = std::min(max_per_row, cols);
  // cdf[l - 1] = P(len <= l); a uniform u in [0, 1) maps to the first l with u < cdf[l - 1].
  std::vector<double> cdf(static_cast<std::size_t>(std::max(longest, 0)));
  double total_weight = 0;
  for (int l = 1; l <= longest; ++l) {
    total_weight += std::pow(static_cast<double>(l), -alpha);
    cdf[l - 1] = total_weight;
  }
  for (double& c : cdf) c /= total_weight;
  wb::Rng rng(seed);
  std::vector<int> length(static_cast<std::size_t>(rows), 0);
  long long total = 0;
  if (longest > 0) {
    for (int& len : length) {
      const double u = static_cast<double>(rng.next_u64() >> 11) * (1.0 / 9007199254740992.0);  // 53 bits
      len = std::min(longest, static_cast<int>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin()) + 1);
      total += len;
    }
  }
  checked_int(total, "power_law: the number of nonzeros");
  Csr out;
  out.rows = rows;
  out.cols = cols;
  out.row_ptr.reserve(static_cast<std::size_t>(rows) + 1);
  out.col.reserve(static_cast<std::size_t>(total));
  out.val.reserve(static_cast<std::size_t>(total));
  out.row_ptr.push_back(0);
  std::vector<std::uint64_t> taken(static_cast<std::size_t>(cols) / 64 + 1, 0);
  std::vector<int> picked;
  for (int r = 0; r < rows; ++r) {
    sample_columns(rng, cols, length[r], taken, picked);
    append_row(rng, picked, out);
  }
  return out;
}

Csr block_fem(int nodes, int neighbours, std::uint64_t seed) {
  if (nodes < 0 || neighbours < 0)
    fail("block_fem: nodes = " + str(nodes) + ", neighbours = " + str(neighbours) + " must not be negative");
  const int rows = checked_int(4LL * nodes, "block_fem: 4 * nodes rows");
  // Node i couples to i +- 1 .. i +- half (a 1-D mesh); an odd count adds one partner at distance half + 1,
  // paired up in groups of 2 (half + 1) so the coupling stays symmetric. Couplings past either end are
  // clipped, like the boundary nodes of a mesh: interior nodes get exactly `neighbours` others.
  const int half = neighbours / 2;
  const bool odd = neighbours % 2 != 0;
  auto coupled = [&](int i, std::vector<int>& out) {
    out.clear();
    for (int d = -half; d <= half; ++d) {
      const long long j = static_cast<long long>(i) + d;
      if (j >= 0 && j < nodes) out.push_back(static_cast<int>(j));
    }
    if (odd) {
      const long long step = half + 1;
      const long long j = (i / step) % 2 == 0 ? i + step : i - step;
      if (j >= 0 && j < nodes) out.push_back(static_cast<int>(j));
    }
    std::sort(out.begin(), out.end());
  };
  std::vector<int> near;
  long long total = 0;
  for (int i = 0; i < nodes; ++i) {
    coupled(i, near);
    total += 16LL * static_cast<long long>(near.size());
  }
  checked_int(total, "block_fem: the number of nonzeros");
  wb::Rng rng(seed);
  Csr out;
  out.rows = out.cols = rows;
  out.row_ptr.reserve(static_cast<std::size_t>(rows) + 1);
  out.col.reserve(static_cast<std::size_t>(total));
  out.val.reserve(static_cast<std::size_t>(total));
  out.row_ptr.push_back(0);
  for (int i = 0; i < nodes; ++i) {
    coupled(i, near);
    for (int dof = 0; dof < 4; ++dof) {
      for (int j : near) {
        for (int e = 0; e < 4; ++e) {
          out.col.push_back(4 * j + e);
          out.val.push_back(nonzero_value(rng));
        }
      }
      out.row_ptr.push_back(static_cast<int>(out.col.size()));
    }
  }
  return out;
}

}  // namespace sparse
}  // namespace p4
