// SPDX-License-Identifier: MIT
// Sparse matrices on the host: COO, CSR, ELL and 4x4 blocks (BSR-like, and the SPASM-style encoding
// of each block's nonzero pattern as one of a few templates), with converters, validators that say
// what is wrong, seeded generators, a double-precision SpMV reference, and the Matrix Market reader
// and writer. Pure C++ (no CUDA): tested on machines without a GPU. Phase 4 builds on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace p4 {
namespace sparse {

// Any structural problem: the message names the first offending index and the rule it breaks.
class SparseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Entries in any order (a reader's or a generator's raw output). Indices are 0-based.
struct Coo {
  int rows = 0, cols = 0;
  std::vector<int> row, col;
  std::vector<float> val;
  std::size_t nnz() const { return val.size(); }
};

// Compressed sparse rows: row r's entries are col/val[row_ptr[r] .. row_ptr[r+1]), columns sorted and
// unique within a row.
struct Csr {
  int rows = 0, cols = 0;
  std::vector<int> row_ptr;  // rows + 1 entries, row_ptr[0] = 0, non-decreasing
  std::vector<int> col;
  std::vector<float> val;
  std::size_t nnz() const { return val.size(); }
};

// ELLPACK, column-major: slot k of row r is at [k * rows + r], so a warp of consecutive rows reads
// consecutive addresses. Rows shorter than `width` are padded with col = -1 and val = 0.
struct Ell {
  int rows = 0, cols = 0, width = 0;
  std::vector<int> col;
  std::vector<float> val;
};

// 4x4 blocks in block-CSR order: block b covers rows 4 * block_row .. +3 and columns 4 * block_col[b]
// .. +3; its 16 values are row-major in val[16 b .. 16 b + 15], zeros included (rows/cols past the
// matrix edge are zero). rows and cols need not be multiples of 4.
struct Bsr4 {
  int rows = 0, cols = 0;
  std::vector<int> block_row_ptr;  // ceil(rows / 4) + 1 entries
  std::vector<int> block_col;
  std::vector<float> val;
  std::size_t blocks() const { return block_col.size(); }
};

// SPASM-style: the same blocks, but each stores only its nonzeros, packed, and names its pattern (a
// 16-bit mask, bit 4 * i + j for entry (i, j) of the block) through an index into `templates`, the
// distinct masks sorted by how many blocks use them (most frequent first), so kernels can specialise
// on the few common patterns and decode positions without per-entry indices.
struct PatternBlocks {
  int rows = 0, cols = 0;
  std::vector<int> block_row_ptr;
  std::vector<int> block_col;
  std::vector<std::uint16_t> templates;  // distinct masks, most frequent first
  std::vector<int> template_of_block;    // index into templates, per block
  std::vector<int> value_offset;         // blocks() + 1 entries into values
  std::vector<float> values;             // each block's nonzeros in mask-bit order
  std::size_t blocks() const { return block_col.size(); }
};

// ---- validators: throw SparseError with the first problem found -----------------------------------
void validate(const Coo& a);  // sizes >= 0, arrays of equal length, indices in range
void validate(const Csr& a);  // row_ptr size/start/end/monotone, columns in range, sorted, unique
void validate(const Ell& a);
void validate(const Bsr4& a);
void validate(const PatternBlocks& a);

// ---- converters ------------------------------------------------------------------------------------
// Sorts by (row, col). Duplicate (row, col) entries are an error (SparseError naming them).
Csr coo_to_csr(const Coo& a);
Coo csr_to_coo(const Csr& a);
// Throws SparseError when rows * width would exceed max_padded_entries (padding explodes when one row
// is much longer than the rest; the message gives the width and the padded size).
Ell csr_to_ell(const Csr& a, std::size_t max_padded_entries = std::size_t(1) << 31);
Bsr4 csr_to_bsr4(const Csr& a);
Csr bsr4_to_csr(const Bsr4& a);  // drops the zero fill: explicit zeros of the source are lost too
PatternBlocks csr_to_pattern_blocks(const Csr& a);
Csr pattern_blocks_to_csr(const PatternBlocks& a);

// y = A x in double (the grading reference for SpMV), and sum |a_ij x_j| per row (its error scale).
std::vector<double> spmv_reference(const Csr& a, const std::vector<float>& x,
                                   std::vector<double>* row_abs_sum = nullptr);

// ---- generators (seeded, deterministic on every platform) --------------------------------------
// The 5-point Laplacian on an n x n grid: n^2 rows, 4 on the diagonal, -1 to each grid neighbour.
Csr poisson_2d(int n);
// Nonzeros within `lower` below and `upper` above the diagonal, random values in [-1, 1).
Csr banded(int rows, int lower, int upper, std::uint64_t seed);
// Exactly min(per_row, cols) distinct random columns in every row.
Csr random_uniform(int rows, int cols, int per_row, std::uint64_t seed);
// Row lengths drawn from a power law (P(len) ~ len^-alpha, 1 <= len <= max_per_row): a few very long
// rows among many short ones, the case that breaks one-thread-per-row kernels.
Csr power_law(int rows, int cols, double alpha, int max_per_row, std::uint64_t seed);
// A finite-element-like matrix: `nodes` nodes with 4 degrees of freedom each, every node coupled to
// itself and `neighbours` nearby nodes by a dense 4x4 block (4 * nodes rows).
Csr block_fem(int nodes, int neighbours, std::uint64_t seed);

// ---- Matrix Market --------------------------------------------------------------------------------
// Reads "coordinate" files with field real, integer or pattern (values 1.0) and symmetry general,
// symmetric (off-diagonal entries mirrored) or skew-symmetric (mirrored negated). Anything else, a
// malformed line, an index out of range, a duplicate entry, too few or too many entries, or a
// non-number throws MatrixMarketError "<name>:<line>: <reason>". CRLF line ends are accepted.
class MatrixMarketError : public std::runtime_error {
 public:
  MatrixMarketError(const std::string& name, int line, const std::string& reason);
  int line() const { return line_; }

 private:
  int line_;
};

Coo read_matrix_market(std::istream& in, const std::string& name);
Coo read_matrix_market_file(const std::string& path);  // MatrixMarketError also when it cannot open
// Writes "coordinate real general", 1-based, values with 9 significant digits (floats round-trip).
void write_matrix_market(std::ostream& out, const Coo& a, const std::string& comment = "");

}  // namespace sparse
}  // namespace p4
