// SPDX-License-Identifier: MIT
// DeviceMatrix: one host CSR matrix (phase4_spmv/harness/sparse.h) and its copies on the GPU, in whichever formats
// a kernel asks for. CSR is uploaded at construction; COO, ELL, 4x4 blocks and pattern blocks are
// converted on the host and uploaded the first time they are asked for, then kept. The views it hands
// out (spmv.cuh) stay valid as long as the DeviceMatrix lives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "phase4_spmv/harness/sparse.h"
#include "phase4_spmv/spmv.cuh"

namespace p4 {

class DeviceMatrix {
 public:
  explicit DeviceMatrix(p4::sparse::Csr host);
  ~DeviceMatrix();
  DeviceMatrix(const DeviceMatrix&) = delete;
  DeviceMatrix& operator=(const DeviceMatrix&) = delete;

  const p4::sparse::Csr& host() const { return host_; }
  int rows() const { return host_.rows; }
  int cols() const { return host_.cols; }
  int nnz() const { return static_cast<int>(host_.nnz()); }

  CsrView csr() const;
  // Entries in CSR order (sorted by row, then column).
  CooView coo();
  // Throws p4::sparse::SparseError when rows * width exceeds max_padded_entries (padding explodes);
  // the first call's limit is the one that counts.
  EllView ell(std::size_t max_padded_entries = std::size_t(1) << 28);
  const p4::sparse::Ell& host_ell(std::size_t max_padded_entries = std::size_t(1) << 28);
  Bsr4View bsr4();
  const p4::sparse::Bsr4& host_bsr4();
  // Host only: 4.07's BlockTiledMatrix builds its own device layout from it.
  const p4::sparse::PatternBlocks& host_pattern_blocks();

 private:
  struct Storage;
  p4::sparse::Csr host_;
  std::unique_ptr<Storage> storage_;
};

// Bytes the CSR SpMV y = A x must move at least: values and column indices once, the row pointers,
// x once and y once. The same count for every format, so effective GB/s compare across the ladder.
inline double spmv_min_bytes(const p4::sparse::Csr& a) {
  return 8.0 * static_cast<double>(a.nnz()) + 4.0 * (static_cast<double>(a.rows) + 1) + 4.0 * a.cols + 4.0 * a.rows;
}
// One multiply and one add per stored entry.
inline double spmv_flop(const p4::sparse::Csr& a) {
  return 2.0 * static_cast<double>(a.nnz());
}

}  // namespace p4
