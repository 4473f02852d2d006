// SPDX-License-Identifier: MIT
// 1.04 blocktiling_1d: each thread computes TM = 8 outputs down a column, reusing one B value 8 times.
//
// You learn: why 1.03 is bound by shared-memory loads, not by arithmetic, and how giving each
// thread a column of TM outputs lets one value of B, held in a register, feed TM multiply-adds;
// how to map 512 threads onto a 64x8 tile of A, an 8x64 tile of B and a 64x64 tile of C.
// Task: write matmul_blocktiling_1d_kernel: a block of BM * BN / TM = 512 threads computes a
// BM x BN = 64x64 tile of C, each thread TM outputs of one column, through BK = 8 deep tiles of A and
// B in shared memory (zero outside the matrices); the epilogue is 1.03's.
// You decide: which outputs thread t owns and which tile element it loads (two splits of t); the loop
//             order that lets one B value in a register feed TM FMAs; where the two barriers go.
// Source: Simon Boehm, "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog", kernel 4
// (1D blocktiling: several results per thread).
// Run:   ./workbook run 1.04 [-- --size 4096]
// Check: ./workbook check 1.04
// Aim:   >= 30% of cuBLAS SGEMM at 4096 (the reference solution: 32% on an H100).
// Previous: 1.03 smem_tiled. Next: 1.05 blocktiling_2d.

#include <stdexcept>
#include <string>

#include "common/workbook.h"
#include "phase1_matmul/harness/lesson_support.h"
#include "phase1_matmul/matmul.cuh"

namespace {

// Block tile BM x BN of C, stepping BK along K; each thread owns TM outputs of one column.
constexpr int kBM = 64;
constexpr int kBN = 64;
constexpr int kBK = 8;
constexpr int kTM = 8;

// ---- kernels ----------------------------------------------------------------------------------------

// Layout: As is BM x BK (row-major, As[r * BK + k]), Bs is BK x BN (Bs[k * BN + c]), both the
// layout of their source matrix, so each thread's load is a plain copy. Each thread computes TM
// consecutive rows of one column of the tile. Banks (bank = word address % 32): map t so that the 32
// lanes of a warp share their rows (one As word: a broadcast) and take 32 neighbouring columns (32
// neighbouring Bs words: conflict-free); the loads write As[t] and Bs[t], also conflict-free. No warp
// reads a column, so no padding is needed.
template <int BM, int BN, int BK, int TM>
__global__ void __launch_bounds__((BM * BN) / TM)
    matmul_blocktiling_1d_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                                 const float* __restrict__ B, float beta, float* __restrict__ C) {
  constexpr int kThreads = BM * BN / TM;
  static_assert(BM % TM == 0, "each thread owns TM whole rows of the tile: BM must be a multiple of TM");
  static_assert(BM * BK == kThreads, "one load per thread fills As: BM * BK must equal BM * BN / TM threads");
  static_assert(BK * BN == kThreads, "one load per thread fills Bs: BK * BN must equal BM * BN / TM threads");
  static_assert(BN % 32 == 0, "a warp must lie inside one thread row, so its As reads are one broadcast");
  // TODO(1.04): declare the flat shared tiles As (BM x BK) and Bs (BK x BN) in the layout above, and
  //             t = threadIdx.x (3 lines).
  // What this thread computes: column thread_col of the tile, rows thread_row * TM .. + TM - 1.
  // TODO(1.04): set thread_col and thread_row, a mapping with the bank behaviour described above
  //             (2 lines).
  // What this thread loads: element t of each tile, a plain copy since the tiles keep their source's
  // layout. A warp reads 4 rows x 8 floats of A (four full 32-byte sectors) and
  // 32 neighbouring floats of one row of B (coalesced).
  // TODO(1.04): find where element t sits inside each tile (a_row, a_col; b_row, b_col), the block's
  //             corner in C (row0, col0; x walks column tiles), and zero the TM accumulators (7 lines).
  for (int k0 = 0; k0 < K; k0 += BK) {
    // Zero outside the matrix: tail tiles in M, N and K then add nothing. size_t: M * K can pass 2^31.
    // TODO(1.04): fill element t of As and of Bs for this step, with 0 where the element lies outside
    //             A or B (about 4 lines).
    // Read after write: the loop below reads what other warps loaded. Reached by every thread
    // (no bounds `if` around it), as a barrier must be.
    // TODO(1.04): make the tiles safe to read (1 line).
    // TODO(1.04): add this step's share to each of the TM accumulators, reading every B value you
    //             need from shared memory only once; unroll both loops so acc stays in registers
    //             (about 7 lines).
    // Write after read: the next step overwrites As and Bs while slow warps may still read them.
    // TODO(1.04): make the tiles safe to overwrite (1 line).
  }
  // Bounds-checked stores, after the last barrier. beta == 0 never reads C (it may hold NaN).
  // TODO(1.04): write this thread's TM outputs that lie inside C: C = alpha * (A B) + beta * C, the
  //             same epilogue as 1.03's (about 9 lines).
}

// ---- launchers --------------------------------------------------------------------------------------

// One block per kBM x kBN tile of C: x over column tiles, y over row tiles (gridDim.y stops at
// 65535, so M may reach 65535 * 64 = 4,194,240 rows).
dim3 blocktiling_1d_grid(int M, int N, int K) {
  if (M < 0 || N < 0 || K < 0) throw std::invalid_argument("matmul_blocktiling_1d: M, N and K must be >= 0");
  const int row_tiles = wb::ceil_div(M, kBM);
  if (row_tiles > 65535) {
    throw std::invalid_argument("matmul_blocktiling_1d: M = " + std::to_string(M) + " needs more than 65535 row tiles");
  }
  return dim3(wb::ceil_div(N, kBN), row_tiles);
}

}  // namespace

void matmul_blocktiling_1d(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                           cudaStream_t stream) {
  const dim3 grid = blocktiling_1d_grid(M, N, K);
  if (M == 0 || N == 0) return;  // nothing to compute, and a grid of 0 blocks is an invalid launch
  matmul_blocktiling_1d_kernel<kBM, kBN, kBK, kTM><<<grid, kBM * kBN / kTM, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 2 M N K FLOPs (137 GFLOP at 4096). Global: per K-step a block loads
// (64 * 8 + 8 * 64) floats = 4 KiB for 2 * 64 * 64 * 8 = 65,536 FLOPs: 16 FLOP/byte, twice 1.03's
// 8 (a 64x64 tile of C reuses each loaded float 64 times, a 32x32 one 32 times). Shared memory,
// the wall of 1.03 (1.25 loads per FMA): here one Bs load feeds TM = 8 FMAs, and a thread's 8 As
// values of a row are contiguous, so the compiler fetches them 4 at a time (16-byte broadcasts):
// the SASS of one BK-step has 8 LDS + 16 LDS.128 for 64 FFMA, 0.375 loads per FMA. The 8
// accumulators are also 8 independent FMA chains instead of one. The H100 reference: 16.3
// TFLOP/s, 24% of peak, 1.8x 1.03. Next wall: 64 As loads' worth per step, so 1.05 caches A in
// registers too (an outer product of TM x TN values per k).
int blocktiling_1d_lesson(wb::Lesson& lesson) {
  return p1::run_matmul_lesson(lesson, "matmul_blocktiling_1d", matmul_blocktiling_1d);
}

}  // namespace

WB_LESSON(blocktiling_1d_lesson, "1D blocktiling: 8 outputs per thread, one cached B value feeds 8 FMAs");
