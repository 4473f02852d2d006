// SPDX-License-Identifier: MIT
// 4.03 csr_vector: SpMV in CSR with one warp per row and a shuffle reduction.
//
// You learn: to turn a row's scattered loads into coalesced ones by giving the row to a whole warp
// (lane l reads entries l, l + 32, ..., so a warp reads 128 contiguous bytes of val and of col at a
// time), to add up the 32 partial sums with __shfl_down_sync in five steps, and what the warp costs
// on short rows: a Poisson row has 5 entries, so 27 of 32 lanes idle.
// Task: in spmv_csr_vector_kernel let the 32 lanes of a warp share its row so that their loads
// coalesce, combine their partial sums without shared memory, and store y[row] once (0 for an empty
// row).
// Source: Bell & Garland, "Implementing Sparse Matrix-Vector Multiplication on Throughput-Oriented Processors"
// (SC 2009), the vector CSR kernel: a warp per row reads the row's entries coalesced.
// Run:   ./workbook run 4.03 [-- --gen poisson|uniform|powerlaw|banded|block --rows 4M]
//        or --matrix file.mtx
// Check: ./workbook check 4.03
// Aim:   on an H100 at 4M rows: 32% of cuSPARSE CSR on powerlaw (4.6x 4.02), but 16% on poisson and
//        73% on uniform, where most lanes idle; 4.05 sizes the group to the rows, 4.06 balances them.
// Previous: 4.02 csr_scalar. Next: 4.04 ell.

#include "common/workbook.h"
#include "phase4_spmv/harness/lesson_support.h"
#include "phase4_spmv/spmv.cuh"

namespace {

constexpr int kWarpSize = 32;
constexpr int kBlockSize = 256;                               // 8 warps, 8 rows per block
[[maybe_unused]] constexpr unsigned kFullMask = 0xffffffffu;  // all 32 lanes take part in the shuffles

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void spmv_csr_vector_kernel(CsrView a, const float* __restrict__ x, float* __restrict__ y) {
  // 64-bit: rows up to 2^28 times 32 threads would overflow an int thread index.
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long warp = thread / kWarpSize;
  // The row is the same for all 32 lanes, so a warp leaves together: the shuffles below need every
  // lane of the mask present.
  if (warp >= a.rows) return;
  [[maybe_unused]] const int row = static_cast<int>(warp);
  [[maybe_unused]] const int lane = threadIdx.x % kWarpSize;
  // Lane l takes entries l, l + 32, ...: consecutive lanes read consecutive val and col.
  float sum = 0.0f;
  for (int k = a.row_ptr[row] + lane; k < a.row_ptr[row + 1]; k += kWarpSize) sum += a.val[k] * x[a.col[k]];
  // Halving tree: after offset 16 lanes 0-15 hold pairs, ..., after offset 1 lane 0 holds all 32.
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(kFullMask, sum, offset);
  if (lane == 0) y[row] = sum;  // one store per row; an empty row stores the 0 it started with
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void spmv_csr_vector(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;  // a grid of 0 blocks is an invalid launch
  constexpr int rows_per_block = kBlockSize / kWarpSize;
  spmv_csr_vector_kernel<<<wb::ceil_div(a.rows, rows_per_block), kBlockSize, 0, stream>>>(a, x, y);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: the same bytes as 4.02 (8 per entry, plus row pointers, x and y), read differently: a
// warp's loads of val and col are 128 contiguous bytes, one line each, where 4.02 touched up to 32
// sectors. A row of 16 entries fills half the warp, a Poisson row of 5 fills 5 lanes: the kernel then
// pays for 32 lanes' worth of instructions per 5 entries: 4M warps of a few dependent loads each run
// at the speed of latency (0.74 ms on an H100, about 9x 4.02's time). The long power-law rows are
// where it pays.
int csr_vector_lesson(wb::Lesson& lesson) {
  return p4::run_spmv_lesson(
      lesson, "spmv_csr_vector",
      [](p4::DeviceMatrix& a, const float* x, float* y, cudaStream_t s) { spmv_csr_vector(a.csr(), x, y, s); });
}

}  // namespace

WB_LESSON(csr_vector_lesson, "CSR SpMV with one warp per row and a shuffle reduction, against cuSPARSE CSR");
