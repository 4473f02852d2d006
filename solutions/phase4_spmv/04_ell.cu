// SPDX-License-Identifier: MIT
// 4.04 ell: SpMV on ELLPACK, padding every row to the longest, column-major, and when padding explodes.
//
// You learn: how a regular layout buys coalescing without a warp per row (slot k of every row stored
// together, column-major: spmv.cuh's EllView; a warp of 32 consecutive rows can read 32 consecutive
// values at every step), what the padding costs (every row pays for the longest: rows x width slots
// are read, not nnz), how to skip a padding slot (col = -1) without reading x[-1], and why ELL is
// hopeless on a power-law matrix (one row of 65536 entries pads 4M rows to 2^38 slots: the lesson
// refuses it and says so).
// Task: in spmv_ell_kernel, one thread per row, compute the row's entry of y from its width slots,
// skipping the padding.
// You decide: the order in which a thread visits its slots, and so whether a warp's loads coalesce;
//             how a padding slot is recognised before x is read through it.
// Source: Bell & Garland, "Implementing Sparse Matrix-Vector Multiplication on Throughput-Oriented Processors"
// (SC 2009), ELL: a regular, column-major layout reads coalesced at the price of stored padding
// (SPASM, 4.07, keeps the regularity and drops most of the padding).
// Run:   ./workbook run 4.04 [-- --gen poisson|uniform|banded|block --rows 4M | --matrix F]
// Check: ./workbook check 4.04
// Aim:   on an H100 at 4M rows: 135% of cuSPARSE CSR on poisson, 104% on uniform, 120% on block (even
//        rows, almost no padding); powerlaw is refused: the padded matrix would not fit.
// Previous: 4.03 csr_vector. Next: 4.05 csr_adaptive.

#include <cstddef>

#include "common/workbook.h"
#include "phase4_spmv/harness/lesson_support.h"
#include "phase4_spmv/spmv.cuh"

namespace {

constexpr int kBlockSize = 256;

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void spmv_ell_kernel(EllView a, const float* __restrict__ x, float* __restrict__ y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= a.rows) return;  // the last block reaches past the last row
  // Column-major: for a fixed slot k, rows r and r + 1 are neighbours in memory, so the warp's 32
  // threads read one contiguous 128-byte piece of val and of col per slot. size_t: rows * width can
  // pass 2^31 even when each fits in an int.
  float sum = 0.0f;
  for (int k = 0; k < a.width; ++k) {
    const std::size_t slot = static_cast<std::size_t>(k) * a.rows + row;
    const int c = a.col[slot];
    if (c >= 0) sum += a.val[slot] * x[c];  // padding has col = -1: x[-1] is outside x
  }
  y[row] = sum;
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void spmv_ell(const EllView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;  // a grid of 0 blocks is an invalid launch
  spmv_ell_kernel<<<wb::ceil_div(a.rows, kBlockSize), kBlockSize, 0, stream>>>(a, x, y);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: ELL reads rows x width slots of 8 bytes, not nnz: Poisson (width 5, 20.9M entries in 4M
// rows) pads only the grid's boundary rows, about 0.04% more; block_fem's rows are all 20 long, no
// padding; a power-law matrix with one row of 65536 entries would pad 4M rows to 2^38 slots, 2 TB,
// and the lesson refuses it. The result line still counts the CSR minimum bytes, so the padding shows
// up as lost GB/s, comparable with 4.02 and 4.03.
int ell_lesson(wb::Lesson& lesson) {
  return p4::run_spmv_lesson(lesson, "spmv_ell", [](p4::DeviceMatrix& a, const float* x, float* y, cudaStream_t s) {
    spmv_ell(a.ell(), x, y, s);
  });
}

}  // namespace

WB_LESSON(ell_lesson, "ELLPACK SpMV (column-major padding), against cuSPARSE CSR");
