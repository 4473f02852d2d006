// SPDX-License-Identifier: MIT
// 4.09 spmm (capstone): Y = A X, a sparse matrix times a dense one, at the library's speed.
//
// You learn: to design a sparse kernel from what phase 4 taught when every entry brings a row of work:
// a_rc is read once and multiplies row c of X (k contiguous floats), so the index arrays cost little
// and the rows of X and Y are the traffic. Reuse of each entry is the new idea; the rest is what this
// phase taught, combined as you see fit.
// Task: spmm_csr computes Y = A X for A in CSR (rows x cols, any row lengths, empty rows included), X
// row-major cols x k and Y row-major rows x k, k = 64 or 128. Y arrives full of garbage and every
// element must be written (an empty row of A gives a row of zeros). A row of 60000 entries among rows of
// 5 must not keep one warp busy while the rest of the GPU idles. Scratch memory, if your design needs
// any, is the launcher's to allocate and free on the stream (cudaMallocAsync / cudaFreeAsync).
// You decide: who owns a row (a warp, part of one, several rows per warp) and which columns of Y a lane
//             owns; how rows far longer than the rest are split, and how their pieces reach Y; where a
//             row's (col, value) pairs live while the lanes use them.
// Source: the cuSPARSE documentation, cusparseSpMM; the papers behind the reference's design are named
// in the first hint (their titles answer the splitting question).
// Run:   ./workbook run 4.09 [-- --gen poisson|uniform|powerlaw|banded|block --rows 4M]
//        or --matrix file.mtx
// Check: ./workbook check 4.09
// Aim:   >= 100% of cuSPARSE SpMM (the faster of ALG_DEFAULT and CSR_ALG2, same run) on every generator
//        at 4M rows and k = 64 (H100: cuSPARSE takes 1.77 ms on poisson, 44% of memcpy for the least traffic).
// Previous: 4.08 cusparse_reference. Next: phase 4's benchmark, p4_bench.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/workbook.h"
#include "phase4_spmv/harness/spmm_lesson.h"
#include "phase4_spmv/spmv.cuh"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

// Each entry a_rc is 8 bytes of A and 4 k bytes of X (row c), added into 4 k bytes of Y (row r): the
// rows of X the entries point at and the rows of Y are nearly all the traffic. Who holds a row's sums
// while its entries stream past, how many rows of X a warp has in flight, and how a very long row is
// shared decide the speed.
__global__ void spmm_csr_kernel(CsrView a, const float* __restrict__ x, float* __restrict__ y, int k) {
  // TODO(4.09): compute Y = A X: row r of Y is the sum, over the entries e of row r (row_ptr[r] to
  //             row_ptr[r + 1]), of val[e] times row col[e] of X. Every element of Y is written: an
  //             empty row stores zeros, and every row must come out complete whatever the order in
  //             which your blocks run (its last bits may vary with that order: the tolerance allows
  //             any association). Read nothing past the arrays (row_ptr has rows + 1 entries, col and
  //             val nnz); a shuffle needs every lane of its mask (about 160 lines, with the helpers
  //             and any other kernel you write above this one).
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void spmm_csr(const CsrView& a, const float* x, float* y, int k, cudaStream_t stream) {
  if (k != 64 && k != 128) throw std::invalid_argument("spmm_csr: k must be 64 or 128, got " + std::to_string(k));
  if (reinterpret_cast<std::uintptr_t>(x) % 16 != 0 || reinterpret_cast<std::uintptr_t>(y) % 16 != 0)
    throw std::invalid_argument("spmm_csr: X and Y must start on a 16-byte boundary (cudaMalloc gives 256)");
  if (a.rows == 0) return;  // nothing to write, and a grid of 0 blocks is an invalid launch
  // TODO(4.09): enqueue on `stream` everything that computes Y = A X (your kernel or kernels). Every row
  //             must be covered whatever the matrix; replace the placeholder launch (about 15 lines).
  spmm_csr_kernel<<<1, 32, 0, stream>>>(a, x, y, k);  // TODO(4.09): placeholder launch
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: Y = A X moves at least A's 8 bytes an entry and its row pointers, X once and Y once:
// on poisson at 4M rows and k = 64 that is 0.18 GB of A and 1.07 GB each of X and Y, 2.3 GB, 0.8 ms at
// the 2.99 TB/s an H100 copies. cuSPARSE SpMM took 1.77 ms there (44% of that copy). On the uniform
// matrix each row of Y gathers 16 random rows of X (17 GB at 4M rows, k = 64) that the least-traffic
// count does not see: every kernel, cuSPARSE's too, stays far below the copy there.
int spmm_lesson(wb::Lesson& lesson) {
  return p4::run_spmm_lesson(
      lesson, "spmm_csr",
      [](p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t s) { spmm_csr(a.csr(), x, y, k, s); });
}

}  // namespace

WB_LESSON(spmm_lesson, "CSR times a dense matrix (k = 64 and 128), against cuSPARSE SpMM");
