// SPDX-License-Identifier: MIT
// 4.02 csr_scalar: SpMV in CSR with one thread per row, and why skewed rows hurt.
//
// You learn: to read CSR the way a kernel does (row_ptr bounds a row, col says where to look in x),
// that an empty row still owes y a 0, and when one thread per row works and when it collapses: with
// short, even rows (Poisson: 5 per row) a warp's 32 rows sit next to each other and L1 serves the
// neighbours' sectors, so it even beats cuSPARSE; with 16 per row the loads spread over more lines;
// and on a power-law matrix one lane walks a row of 60000 entries while its warp, its block and
// finally the whole GPU wait for it.
// Task: write spmv_csr_scalar_kernel, y = A x with one thread per row: thread r computes y[r], the
// dot product of row r with x, in a register, and stores it once.
// Source: Bell & Garland, "Implementing Sparse Matrix-Vector Multiplication on Throughput-Oriented Processors"
// (SC 2009), the scalar CSR kernel: irregular row lengths and random column indices leave a
// warp little to coalesce.
// Run:   ./workbook run 4.02 [-- --gen poisson|uniform|powerlaw|banded|block --rows 4M]
//        or --matrix file.mtx
// Check: ./workbook check 4.02
// Aim:   on an H100 at 4M rows: 139% of cuSPARSE CSR on poisson (short, even rows suit it), 88% on
//        uniform, 7% on powerlaw, where one long row stalls its warp; 4.03 and 4.06 attack that.
// Previous: 4.01 coo_to_csr. Next: 4.03 csr_vector.

#include "common/workbook.h"
#include "phase4_spmv/harness/lesson_support.h"
#include "phase4_spmv/spmv.cuh"

namespace {

constexpr int kBlockSize = 256;

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void spmv_csr_scalar_kernel(CsrView a, const float* __restrict__ x, float* __restrict__ y) {
  // One thread owns one row from start to end: no other thread touches y[row], so no atomics and no
  // synchronisation. The row's entries are contiguous in col/val, but a warp's 32 rows start 32
  // different places: every load of the loop is a scattered gather.
  // TODO(4.02): give this thread its row and compute that row's entry of y (about 5 lines). The last
  //             block reaches past the last row: those threads must do nothing. An empty row must still
  //             store its 0. Accumulate in a float register, not in y.
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void spmv_csr_scalar(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;  // a grid of 0 blocks is an invalid launch
  spmv_csr_scalar_kernel<<<wb::ceil_div(a.rows, kBlockSize), kBlockSize, 0, stream>>>(a, x, y);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: each entry costs 8 bytes (a float value and an int column) for 2 FLOP, plus a 4-byte
// gather from x, so SpMV sits at 1/4 FLOP per byte or less: memory-bound on every GPU. The 2-D Poisson
// matrix at 4M rows has 20.9M entries: 167 MB of values and columns + 17 MB of row pointers + 34 MB of
// x and y = 218 MB, about 0.07 ms at the ~3 TB/s an H100's HBM gives a copy. Thread r reads its 5
// entries (40 bytes) in 4-byte pieces; the warp's 32 rows are neighbours, so the pieces share lines
// that L1 keeps for the next load. A power-law matrix has no such luck: its time is its longest row.
int csr_scalar_lesson(wb::Lesson& lesson) {
  return p4::run_spmv_lesson(
      lesson, "spmv_csr_scalar",
      [](p4::DeviceMatrix& a, const float* x, float* y, cudaStream_t s) { spmv_csr_scalar(a.csr(), x, y, s); });
}

}  // namespace

WB_LESSON(csr_scalar_lesson, "CSR SpMV with one thread per row, against cuSPARSE CSR");
