// SPDX-License-Identifier: MIT
// 1.01 naive: one thread per element of C, and why the mapping of threads to elements matters.
//
// You learn: the GEMM contract every rung keeps (C = alpha A B + beta C, row-major, any M, N, K,
// never read C when beta == 0), the 2D grid that covers C, and what a warp really fetches when
// its 32 threads read 32 different rows of A.
// Task: in matmul_naive_kernel compute this thread's row and col (threadIdx.x picks the ROW, on
// purpose), accumulate the dot product of row `row` of A and column `col` of B over K, and write
// the guarded epilogue.
// Source: Simon Boehm, "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog", kernel 1
// (naive): each output element reads 2K values from global memory.
// Run:   ./workbook run 1.01 [-- --size 4096]
// Check: ./workbook check 1.01
// Aim:   correct first; about 1-2% of cuBLAS on an H100. 1.02 shows where the rest went.
// Previous: 0.11 histogram (0.05 coalescing has the memory side). Next: 1.02 coalesced.

#include "common/workbook.h"
#include "phase1_matmul/harness/lesson_support.h"
#include "phase1_matmul/matmul.cuh"

namespace {

// One 32 x 32 block of threads covers a 32 x 32 tile of C: 1024 threads, the most a block may have.
constexpr int kTile = 32;

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void matmul_naive_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                                    const float* __restrict__ B, float beta, float* __restrict__ C) {
  // threadIdx.x picks the ROW. A warp is 32 threads with consecutive threadIdx.x and the same
  // threadIdx.y, so it holds 32 rows and ONE column: at each k it reads A[row][k] from 32 rows that
  // lie K * 4 bytes apart (32 separate memory sectors, 4 useful bytes out of each 32) and the same
  // B[k][col] 32 times (one broadcast), and it stores 32 floats that lie N * 4 bytes apart.
  // TODO(1.01): find row and col, the element of C this thread owns, with threadIdx.x walking DOWN a
  //             column of C, on purpose; the launcher puts row tiles along grid x (2 lines).
  // The last blocks overhang C when M or N is no multiple of 32: those threads have nothing to do,
  // and with no __syncthreads() in this kernel they may simply return.
  // TODO(1.01): send home the threads whose element lies outside C (1 line).
  // 64-bit offsets: at 65536 x 65536, row * K overflows an int.
  // TODO(1.01): compute the dot product of this thread's row of A and column of B in a float
  //             accumulator, with std::size_t offsets (about 3 lines).
  // K == 0 leaves acc = 0, so C = beta * C as the math says. beta == 0 must not read C: it may hold
  // NaN, and 0 * NaN is NaN.
  // TODO(1.01): write this thread's element of C as the GEMM contract says; when beta == 0, C must
  //             not be read at all (about 2 lines).
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void matmul_naive(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                  cudaStream_t stream) {
  if (M == 0 || N == 0) return;  // nothing to write, and a grid of 0 blocks is an invalid launch
  // Rows along grid x (up to 2^31 - 1 blocks), columns along grid y (at most 65535 blocks, so
  // N <= 65535 * 32 = 2,097,120; past that the launch fails with "invalid configuration argument").
  const dim3 block(kTile, kTile);
  const dim3 grid(static_cast<unsigned>(wb::ceil_div(M, kTile)), static_cast<unsigned>(wb::ceil_div(N, kTile)));
  matmul_naive_kernel<<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 2 M N K FLOPs = 137 GFLOP at 4096^3. Each output reads a row of A and a column of B,
// 2K floats for 2K FLOPs: 0.25 FLOP per byte loaded, nothing reused in registers. Worse, each warp
// load of A touches 32 sectors (1 KiB moved through L1/L2 for 128 useful bytes), so the memory
// pipeline, not the FP32 units (~67 TFLOP/s on an H100), bounds this rung.
int naive_lesson(wb::Lesson& lesson) {
  return p1::run_matmul_lesson(lesson, "matmul_naive", matmul_naive);
}

}  // namespace

WB_LESSON(naive_lesson, "naive SGEMM: one thread per output, threadIdx.x down a column of C");
