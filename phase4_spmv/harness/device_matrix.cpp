// SPDX-License-Identifier: MIT
#include "phase4_spmv/harness/device_matrix.h"

#include <utility>
#include <vector>

#include "common/buffer.h"

namespace p4 {

namespace {

template <typename T>
void upload(wb::DeviceBuffer<T>& buffer, const std::vector<T>& host) {
  buffer = wb::DeviceBuffer<T>(host);
}

}  // namespace

struct DeviceMatrix::Storage {
  wb::DeviceBuffer<int> row_ptr, col;
  wb::DeviceBuffer<float> val;

  bool has_coo = false;
  wb::DeviceBuffer<int> coo_row;

  std::unique_ptr<p4::sparse::Ell> ell;
  wb::DeviceBuffer<int> ell_col;
  wb::DeviceBuffer<float> ell_val;

  std::unique_ptr<p4::sparse::Bsr4> bsr;
  wb::DeviceBuffer<int> bsr_row_ptr, bsr_col;
  wb::DeviceBuffer<float> bsr_val;

  std::unique_ptr<p4::sparse::PatternBlocks> pb;
};

DeviceMatrix::DeviceMatrix(p4::sparse::Csr host) : host_(std::move(host)), storage_(new Storage) {
  p4::sparse::validate(host_);
  upload(storage_->row_ptr, host_.row_ptr);
  upload(storage_->col, host_.col);
  upload(storage_->val, host_.val);
}

DeviceMatrix::~DeviceMatrix() = default;

CsrView DeviceMatrix::csr() const {
  CsrView v;
  v.rows = host_.rows;
  v.cols = host_.cols;
  v.nnz = nnz();
  v.row_ptr = storage_->row_ptr.data();
  v.col = storage_->col.data();
  v.val = storage_->val.data();
  return v;
}

CooView DeviceMatrix::coo() {
  if (!storage_->has_coo) {
    std::vector<int> row(host_.nnz());
    for (int r = 0; r < host_.rows; ++r)
      for (int k = host_.row_ptr[r]; k < host_.row_ptr[r + 1]; ++k) row[static_cast<std::size_t>(k)] = r;
    upload(storage_->coo_row, row);
    storage_->has_coo = true;
  }
  CooView v;
  v.rows = host_.rows;
  v.cols = host_.cols;
  v.nnz = nnz();
  v.row = storage_->coo_row.data();
  v.col = storage_->col.data();
  v.val = storage_->val.data();
  return v;
}

const p4::sparse::Ell& DeviceMatrix::host_ell(std::size_t max_padded_entries) {
  if (!storage_->ell) {
    storage_->ell.reset(new p4::sparse::Ell(p4::sparse::csr_to_ell(host_, max_padded_entries)));
    upload(storage_->ell_col, storage_->ell->col);
    upload(storage_->ell_val, storage_->ell->val);
  }
  return *storage_->ell;
}

EllView DeviceMatrix::ell(std::size_t max_padded_entries) {
  const p4::sparse::Ell& e = host_ell(max_padded_entries);
  EllView v;
  v.rows = e.rows;
  v.cols = e.cols;
  v.width = e.width;
  v.col = storage_->ell_col.data();
  v.val = storage_->ell_val.data();
  return v;
}

const p4::sparse::Bsr4& DeviceMatrix::host_bsr4() {
  if (!storage_->bsr) {
    storage_->bsr.reset(new p4::sparse::Bsr4(p4::sparse::csr_to_bsr4(host_)));
    upload(storage_->bsr_row_ptr, storage_->bsr->block_row_ptr);
    upload(storage_->bsr_col, storage_->bsr->block_col);
    upload(storage_->bsr_val, storage_->bsr->val);
  }
  return *storage_->bsr;
}

Bsr4View DeviceMatrix::bsr4() {
  const p4::sparse::Bsr4& b = host_bsr4();
  Bsr4View v;
  v.rows = b.rows;
  v.cols = b.cols;
  v.block_rows = static_cast<int>(b.block_row_ptr.size()) - 1;
  v.blocks = static_cast<int>(b.blocks());
  v.block_row_ptr = storage_->bsr_row_ptr.data();
  v.block_col = storage_->bsr_col.data();
  v.val = storage_->bsr_val.data();
  return v;
}

const p4::sparse::PatternBlocks& DeviceMatrix::host_pattern_blocks() {
  if (!storage_->pb) storage_->pb.reset(new p4::sparse::PatternBlocks(p4::sparse::csr_to_pattern_blocks(host_)));
  return *storage_->pb;
}

}  // namespace p4
