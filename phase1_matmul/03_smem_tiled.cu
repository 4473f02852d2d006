// SPDX-License-Identifier: MIT
// 1.03 smem_tiled: 32x32 tiles of A and B in shared memory, so each float fetched from global serves 32 FMAs.
//
// You learn: how a block cooperatively loads a tile of A and a tile of B into __shared__ memory,
// why two __syncthreads() guard every tile (one before reading it, one before overwriting it),
// why a barrier must never sit inside an `if` that some threads skip, how zero-filled loads make
// any M, N, K work, and which shared-memory reads are broadcasts, conflict-free or bank conflicts.
// Task: write matmul_smem_tiled_kernel: one thread per output, a loop over K in steps of 32, one
// load of A and one of B per thread per step, 32 multiply-adds from shared memory, then the
// epilogue C = alpha * acc + beta * C (never reading C when beta == 0).
// Source: Simon Boehm, "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog", kernel 3
// (shared memory cache-blocking): a tile cuts global reads per output from 2K to 2K / 32.
// Run:   ./workbook run 1.03 [-- --size 4096]
// Check: ./workbook check 1.03
// Aim:   >= 15% of cuBLAS SGEMM at 4096 (the reference solution: 17% on an H100).
// Previous: 1.02 coalesced. Next: 1.04 blocktiling_1d.

#include <stdexcept>
#include <string>

#include "common/workbook.h"
#include "phase1_matmul/harness/lesson_support.h"
#include "phase1_matmul/matmul.cuh"

namespace {

// One block computes one kTile x kTile tile of C with kTile x kTile threads (1024, the maximum).
constexpr int kTile = 32;
static_assert(kTile * kTile <= 1024, "one thread per output: a tile may hold at most 1024 outputs (the block limit)");
static_assert(kTile == 32, "threadIdx.x must span one warp, so a warp reads one whole row of a tile");

// Shared memory has 32 banks of 4 bytes: the float at word address a lives in bank a % 32. A warp
// is the 32 threads with the same threadIdx.y and threadIdx.x = 0..31. In the inner loop:
//   As[ty][k]: every lane reads the SAME word: a broadcast, one shared-memory transaction.
//   Bs[k][tx]: lane t reads word 32 k + t, bank t: 32 lanes, 32 banks, conflict-free.
// The loads write As[ty][tx] and Bs[ty][tx], a row each: conflict-free too. No warp ever walks
// down a column, so +1 padding (0.06 transpose) buys nothing here and the tiles stay 32 x 32.
// It would matter if you mapped threadIdx.x to rows of C (as 1.01 did): then lane t reads
// As[t][k], word 32 t + k, bank k for all 32 lanes, a 32-way conflict that kTile + 1 columns fix.

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void matmul_smem_tiled_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                                         const float* __restrict__ B, float beta, float* __restrict__ C) {
  // TODO(1.03): declare the two __shared__ tiles, As and Bs, kTile x kTile floats each (2 lines).
  // This thread owns C[row][col]: the block's tile starts at row blockIdx.y * kTile, column
  // blockIdx.x * kTile; threadIdx.x walks along a row, so a warp touches 32 neighbouring floats.
  // TODO(1.03): name this thread's place in the block (tx, ty), the element of C it owns (row, col)
  //             and its float accumulator (5 lines).
  // Step along K one tile at a time. Every thread runs every step, even those whose (row, col)
  // lies outside C: they still load their share of the tiles the others need.
  for (int k0 = 0; k0 < K; k0 += kTile) {
    // A's tile is rows blockIdx.y * kTile.., columns k0..; B's tile is rows k0.., columns
    // blockIdx.x * kTile... Each thread loads one element of each, for its own (ty, tx) slot: a warp
    // reads 32 neighbouring floats of one row of A and of B (coalesced). Outside the matrix it stores
    // 0, so the tail tiles in M, N and K add nothing to the sum. size_t: M * K can pass 2^31.
    // TODO(1.03): fill this thread's slot of As and of Bs for this step, with 0 where the element lies
    //             outside A or B (about 4 lines).
    // Barrier 1 (read after write): the loop below reads elements other warps loaded, so all
    // 1024 loads must have landed first. It sits outside any bounds `if`: a barrier that some
    // threads of the block skip is undefined behaviour (a hang or garbage), and in the tail tiles
    // some threads are out of bounds.
    // TODO(1.03): make the tiles safe to read (1 line).
    // TODO(1.03): add this step's share of the dot product to acc, from the tiles only (2 lines with
    //             #pragma unroll).
    // Barrier 2 (write after read): the next step overwrites As and Bs; a fast warp must not do
    // that while a slow warp still reads this step's tiles.
    // TODO(1.03): make the tiles safe to overwrite (1 line).
  }
  // The guard comes only now, after the last barrier: out-of-range threads simply store nothing.
  // TODO(1.03): write C as in 1.01, only where this thread's element lies inside C, never reading C
  //             when beta == 0 (about 5 lines).
}

// ---- launchers --------------------------------------------------------------------------------------

// One block per kTile x kTile tile of C: x over column tiles, y over row tiles (gridDim.y stops at
// 65535, so M may reach 65535 * 32 = 2,097,120 rows).
dim3 smem_tiled_grid(int M, int N, int K) {
  if (M < 0 || N < 0 || K < 0) throw std::invalid_argument("matmul_smem_tiled: M, N and K must be >= 0");
  const int row_tiles = wb::ceil_div(M, kTile);
  if (row_tiles > 65535) {
    throw std::invalid_argument("matmul_smem_tiled: M = " + std::to_string(M) + " needs more than 65535 row tiles");
  }
  return dim3(wb::ceil_div(N, kTile), row_tiles);
}

}  // namespace

void matmul_smem_tiled(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream) {
  const dim3 grid = smem_tiled_grid(M, N, K);
  if (M == 0 || N == 0) return;  // nothing to compute, and a grid of 0 blocks is an invalid launch
  matmul_smem_tiled_kernel<<<grid, dim3(kTile, kTile), 0, stream>>>(M, N, K, alpha, A, B, beta, C);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 2 M N K FLOPs; at 4096 that is 137 GFLOP. Per K-step a block loads 2 * 32 * 32
// floats (8 KiB) and does 2 * 32^3 = 65,536 FLOPs: 8 FLOP per byte of global (mostly L2) traffic,
// 32x the naive kernel's 0.25. Now the inner loop binds: each FMA needs a Bs load, and As is a
// broadcast that the compiler fetches 4 k at a time (the SASS of one K-step: 32 LDS + 8 LDS.128
// for 32 FFMA, 1.25 shared loads per FMA). An SM serves about one warp-wide shared load per
// clock, so at best ~0.8 warp FMA per clock against the 4 its 128 FP32 lanes could issue, and the
// 32 FMAs into one `acc` form a dependent chain. The H100 reference: 8.9 TFLOP/s, 13% of peak.
int smem_tiled_lesson(wb::Lesson& lesson) {
  return p1::run_matmul_lesson(lesson, "matmul_smem_tiled", matmul_smem_tiled);
}

}  // namespace

WB_LESSON(smem_tiled_lesson, "shared-memory tiling: 32x32 tiles of A and B, two barriers per tile");
