// SPDX-License-Identifier: MIT
// 1.02 coalesced: the same kernel as 1.01 with two index formulas swapped, and several times faster.
//
// You learn: that a warp is 32 consecutive threadIdx.x, so threadIdx.x must walk along the
// contiguous (row-major: column) direction of the arrays the warp reads and writes; then one load
// instruction moves one 128-byte line instead of 32 scattered sectors.
// Task: in matmul_coalesced_kernel let threadIdx.x pick the COLUMN and threadIdx.y the row, and
// write the same k loop and guarded epilogue as in 1.01. The launcher's grid is already swapped.
// Source: Simon Boehm, "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog", kernel 2
// (global memory coalescing: neighbouring threads read neighbouring addresses).
// Run:   ./workbook run 1.02 [-- --size 4096]
// Check: ./workbook check 1.02
// Aim:   about 10-15% of cuBLAS on an H100, about 10-12x the naive rung.
// Previous: 1.01 naive. Next: 1.03 smem_tiled.

#include "common/workbook.h"
#include "phase1_matmul/harness/lesson_support.h"
#include "phase1_matmul/matmul.cuh"

namespace {

// One 32 x 32 block of threads covers a 32 x 32 tile of C; each warp is one row of that tile.
constexpr int kTile = 32;

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void matmul_coalesced_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                                        const float* __restrict__ B, float beta, float* __restrict__ C) {
  // threadIdx.x picks the COLUMN. A warp (32 consecutive threadIdx.x, one threadIdx.y) now holds
  // one row and 32 neighbouring columns: at each k it reads the same A[row][k] (one broadcast) and
  // B[k][col .. col + 31], 32 consecutive floats (one 128-byte line, every byte used), and at the
  // end it stores 32 consecutive floats of C.
  // TODO(1.02): find row and col, the element of C this thread owns, now with threadIdx.x walking
  //             ALONG a row of C; the launcher's grid is already swapped to match (2 lines).
  // The last blocks overhang C when M or N is no multiple of 32: those threads have nothing to do,
  // and with no __syncthreads() in this kernel they may simply return.
  // TODO(1.02): send home the threads whose element lies outside C (1 line).
  // 64-bit offsets: at 65536 x 65536, row * K overflows an int.
  // TODO(1.02): the dot product, as in 1.01 (about 3 lines).
  // K == 0 leaves acc = 0, so C = beta * C as the math says. beta == 0 must not read C: it may hold
  // NaN, and 0 * NaN is NaN.
  // TODO(1.02): the epilogue, as in 1.01 (about 2 lines).
}

// ---- launchers --------------------------------------------------------------------------------------

}  // namespace

void matmul_coalesced(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                      cudaStream_t stream) {
  if (M == 0 || N == 0) return;  // nothing to write, and a grid of 0 blocks is an invalid launch
  // Columns along grid x now (up to 2^31 - 1 blocks), rows along grid y (at most 65535 blocks, so
  // M <= 65535 * 32 = 2,097,120; past that the launch fails with "invalid configuration argument").
  const dim3 block(kTile, kTile);
  const dim3 grid(static_cast<unsigned>(wb::ceil_div(N, kTile)), static_cast<unsigned>(wb::ceil_div(M, kTile)));
  matmul_coalesced_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: still 2 M N K = 137 GFLOP at 4096^3 and 2K floats loaded per output (0.25 FLOP per
// byte), but a warp's two loads per k now cost one sector (A, broadcast) plus one 128-byte line (B):
// 160 bytes for 32 FMAs instead of ~1 KiB. The bound is now the load path: 2 load instructions per
// FMA instruction, and an SM's L1 serves about one warp-wide load per clock while its 128 FP32 lanes
// could retire 4 warp FMAs: at most ~1/8 of peak, ~10-15% of cuBLAS. Reusing each loaded value for
// many FMAs (shared memory, 1.03) is the next step.
int coalesced_lesson(wb::Lesson& lesson) {
  return p1::run_matmul_lesson(lesson, "matmul_coalesced", matmul_coalesced);
}

}  // namespace

WB_LESSON(coalesced_lesson, "coalesced SGEMM: threadIdx.x along a row of C");
