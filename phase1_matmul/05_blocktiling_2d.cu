// SPDX-License-Identifier: MIT
// 1.05 blocktiling_2d: each thread computes an 8 x 8 register tile of C from outer products.
//
// You learn: how a TM x TN tile of accumulators in registers turns TM + TN shared-memory loads into
// TM * TN FMAs (16 loads for 64 FMAs here, against 2 per FMA in 1.03's source, 1.25 in its SASS), and
// how to keep arrays in registers: index them only with compile-time constants, inside fully unrolled
// loops.
// Task: write matmul_blocktiling_2d_kernel: 256 threads compute a 128 x 128 tile of C, 8 x 8 outputs
// each, through 128 x 8 and 8 x 128 tiles of A and B in shared memory (zeros outside the matrices).
// You decide: how 256 threads share the loads of 2048 elements, coalesced; what each thread holds in
//             registers per k so that 16 shared loads feed 64 FMAs; how every index into the register
//             arrays stays a compile-time constant.
// Source: Simon Boehm, "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog", kernel 5
// (2D blocktiling: a register outer product); PMPP calls this thread coarsening.
// Run:   ./workbook run 1.05 [-- --size 4096]
// Check: ./workbook check 1.05
// Aim:   >= 50% of cuBLAS at 4096 on an H100 (the reference: 28.9 TFLOP/s, 56%).
// Previous: 1.04 blocktiling_1d. Next: 1.06 vectorized.

#include "common/workbook.h"
#include "phase1_matmul/harness/lesson_support.h"
#include "phase1_matmul/matmul.cuh"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

// One block computes a BM x BN tile of C with (BM / TM) * (BN / TN) threads; each thread owns the
// TM x TN sub-tile at rows thread_row * TM.., columns thread_col * TN.. of the block's tile.
// __launch_bounds__(threads, 2) asks ptxas for 2 resident blocks per SM, i.e. at most 128 registers
// per thread: left free it takes about 150 and only one block (8 warps) fits, too few to hide latency.
template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
    matmul_blocktiling_2d_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                                 const float* __restrict__ B, float beta, float* __restrict__ C) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  static_assert(BM % TM == 0 && BN % TN == 0, "the thread tiles TM x TN must cover the block tile BM x BN exactly");
  static_assert((BM * BK) % kThreads == 0 && (BK * BN) % kThreads == 0,
                "every thread must load the same number of A and B elements per tile (no leftover loop)");

  // Read in the k loop by all threads: one BM x BK tile of A and one BK x BN tile of B (8 KiB).
  // TODO(1.05): the shared tiles that one step of the k loop reads (2 lines).

  // Neighbouring threads take neighbouring TN-wide column groups, so a warp covers 2 rows of
  // 16 thread tiles: its A fragments come from just 2 addresses (a broadcast).
  // TODO(1.05): where this thread's TM x TN sub-tile and the block's tile sit in C, with the thread
  //             layout just described (4 lines).

  // The register tile: 64 floats per thread, in registers only because every index below is a
  // compile-time constant once the loops are unrolled.
  // TODO(1.05): the registers a thread keeps: its TM x TN outputs, starting from 0, and what it reads
  //             from the tiles per k (3 lines).

  for (int k0 = 0; k0 < K; k0 += BK) {
    // Strided cooperative load: the block sweeps each tile kThreads elements at a time, so consecutive
    // threads read consecutive addresses (rows of BK floats of A, rows of BN floats of B). Outside A or B the
    // tile gets 0: a zero adds nothing to any dot product, so the tails in M, N and K need no
    // special case in the math below. The tile corners in size_t (row * K can pass 2^31), the
    // offsets inside a tile in int (at most 127 * K): fewer 64-bit registers.
    // TODO(1.05): fill both tiles with this step's pieces of A and B, coalesced, every thread the same
    //             number of elements, zeros outside the matrices (about 16 lines).
    // Both tiles must be complete before any thread reads a value another thread stored.
    __syncthreads();

    // Per k, TM + TN shared loads feed TM * TN FMAs: the register reuse this rung is about.
    // TODO(1.05): add this tile's contribution to the thread's outputs: TM + TN shared loads per k, and
    //             every index into a register array a compile-time constant (about 12 lines).
    // No thread may overwrite the tiles for the next k0 while a slower one still reads these.
    __syncthreads();
  }

  // Bounded epilogue: the last row and column blocks hang over C. beta == 0 must not read C (it may
  // hold NaN, and 0 * NaN is NaN), so the beta term is skipped, not multiplied by zero.
  // TODO(1.05): store the sub-tile's outputs that lie inside C, with alpha and beta as in 1.03
  //             (about 14 lines).
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void matmul_blocktiling_2d(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                           cudaStream_t stream) {
  if (M == 0 || N == 0) return;  // nothing to write, and a grid of 0 blocks is an invalid launch
  // 128 x 128 tiles, 8 deep: 8 KiB of shared memory and 256 threads of 8 x 8 outputs per block.
  // K = 0 still launches: the k loop runs zero times and the epilogue writes beta * C.
  constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  const dim3 block((BM / TM) * (BN / TN));
  const dim3 grid(wb::ceil_div(N, BN), wb::ceil_div(M, BM));  // x walks columns of C, y rows
  matmul_blocktiling_2d_kernel<BM, BN, BK, TM, TN><<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 2 M N K = 137 GFLOP at 4096^3. Per 8-deep step a block reads (128 + 128) * 8 floats =
// 8 KiB and does 128 * 128 * 8 * 2 = 262144 FLOP: 32 FLOP per byte from L2/DRAM, far above the
// H100's ~20 FLOP/B balance point, so global memory no longer limits. Per thread and k it issues
// 16 shared loads for 64 FMAs (1.03: 2 per FMA in the source, 1.25 in SASS), which makes
// shared-memory instruction issue the next wall: 1.06 widens those loads to float4.
int blocktiling_2d_lesson(wb::Lesson& lesson) {
  return p1::run_matmul_lesson(lesson, "matmul_blocktiling_2d", matmul_blocktiling_2d);
}

}  // namespace

WB_LESSON(blocktiling_2d_lesson, "2D blocktiling: an 8x8 register tile per thread");
