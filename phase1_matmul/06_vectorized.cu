// SPDX-License-Identifier: MIT
// 1.06 vectorized: float4 global loads, a transposed A tile and float4 shared loads.
//
// You learn: when a float4 load is legal (the address must be a multiple of 16 bytes: an aligned
// base pointer AND a row length that is a multiple of 4), how to keep a scalar path for every
// other shape, and why storing A transposed in shared memory (As[k][m]) turns the 8 strided loads
// of an A fragment into 2 float4 loads.
// Task: in matmul_vectorized_kernel load the A tile with one float4 per thread and write it
// transposed, load the B tile with one float4 per thread, read both fragments as float4, and store
// C as float4 where rows allow. Keep a scalar path (selected at compile time) for K or N not a
// multiple of 4 or a misaligned pointer. In the launcher decide which path the shapes allow.
// You decide: the exact conditions under which each float4 path is legal; how a float4 of A lands in
//             the transposed tile; where C may be stored as float4 and where it must fall back.
// Source: Simon Boehm, "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog", kernel 6
// (vectorized global and shared-memory accesses, A transposed in shared memory).
// Run:   ./workbook run 1.06 [-- --size 4096]
// Check: ./workbook check 1.06
// Aim:   >= 60% of cuBLAS at 4096 on an H100 (the reference: 34.1 TFLOP/s, 66%; 1.05 gets 56%).
// Previous: 1.05 blocktiling_2d. Next: 1.07 warptiling.

#include <cstdint>

#include "common/workbook.h"
#include "phase1_matmul/harness/lesson_support.h"
#include "phase1_matmul/matmul.cuh"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

// As is stored transposed, BM + kAPad floats per k row. A pad of 4 (not 1) keeps every row start
// 16-byte aligned for float4 reads, and shifts row k by 4k banks, so the transposed stores of the
// tile loads (8 or 2 threads writing down one column m) fall in different banks.
constexpr int kAPad = 4;

// The same 2D blocktiling as 1.05. VEC_A: rows of A can be read as float4 (K % 4 == 0, A 16-byte
// aligned). VEC_N: rows of B and C can be read and written as float4 (N % 4 == 0, B and C aligned).
// Template flags, not runtime branches: each path compiles to straight-line code of its own.
// At most 128 registers for 2 resident blocks per SM, as in 1.05.
template <int BM, int BN, int BK, int TM, int TN, bool VEC_A, bool VEC_N>
__global__ void __launch_bounds__((BM / TM) * (BN / TN), 2)
    matmul_vectorized_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                             float beta, float* __restrict__ C) {
  constexpr int kThreads = (BM / TM) * (BN / TN);
  static_assert(BM % TM == 0 && BN % TN == 0, "the thread tiles TM x TN must cover the block tile BM x BN exactly");
  static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0,
                "fragments and tile rows are read in whole float4s: TM, TN and BK must be multiples of 4");
  static_assert(kAPad % 4 == 0, "the pad must keep every row of As a multiple of 16 bytes long");
  static_assert((BM * BK) % (4 * kThreads) == 0 && (BK * BN) % (4 * kThreads) == 0,
                "every thread must load the same number of float4s of A and B per tile (no leftover loop)");

  // __align__(16): float4 accesses to shared memory need 16-byte aligned addresses too.
  // TODO(1.06): the two shared tiles, every float4 of them 16-byte aligned, laid out so that a
  //             thread's A values for one k are contiguous (see the fragment reads below) (2 lines).

  // TODO(1.06): bring 1.05's thread and block coordinates and its registers (7 lines).

  for (int k0 = 0; k0 < K; k0 += BK) {
    // A tile (BM x BK), written transposed. Vector path: a float4 covers 4 neighbouring k of one row
    // of A: 2 threads per 8-wide row, a warp reads 16 whole 32-byte rows. K % 4 == 0 and k % 4 == 0
    // put all 4 floats inside A or all outside, so one test of k < K guards the whole float4, and its
    // offset in A is a multiple of 4 (16-byte aligned).
    // TODO(1.06): fill As with this step's tile of A, zeros outside A: on the VEC_A path with float4
    //             reads from A, otherwise with 1.05's scalar reads (about 27 lines).
    // B tile (BK x BN), not transposed: its fragments are already rows. A warp reads 512 contiguous
    // bytes of one row of B; N % 4 == 0 makes col < N guard the whole float4.
    // TODO(1.06): fill Bs with this step's tile of B, zeros outside B: in float4s on the VEC_N path,
    //             otherwise as 1.05 does (about 20 lines).
    // Both tiles must be complete before any thread reads a value another thread stored.
    __syncthreads();

    // The A fragment is now TM consecutive floats of row k of As (it was a strided column in 1.05),
    // so it comes in TM / 4 float4 loads; the B fragment is TN consecutive floats of row k of Bs.
    // Both start at multiples of 4 floats of 16-byte aligned rows, so the float4 casts are legal.
    // TODO(1.06): add this tile's contribution to acc, the fragments read from the tiles as float4s
    //             (about 25 lines).
    // No thread may overwrite the tiles for the next k0 while a slower one still reads these.
    __syncthreads();
  }

  // Bounded epilogue; beta == 0 never reads C (it may hold NaN). With VEC_N each thread row of TN
  // outputs is TN / 4 aligned float4s, and N % 4 == 0 puts each float4 wholly inside or outside C.
  // TODO(1.06): store the outputs that lie inside C, as whole float4s on the VEC_N path and as 1.05
  //             does otherwise; beta == 0 never reads C (about 30 lines).
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

namespace {

// cudaMalloc returns 256-byte aligned memory, but a launcher may get a pointer into the middle of an
// allocation (A + 1 is a valid matrix): check the address, never assume it.
template <typename T>
bool is_16_byte_aligned(const T* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

template <bool VEC_A, bool VEC_N>
void launch_vectorized(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream) {
  // The 1.05 shape: 128 x 128 x 8 tiles, 256 threads of 8 x 8. One float4 of A and one of B per
  // thread per tile (128 * 8 / 4 = 256 float4s each).
  constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
  const dim3 block((BM / TM) * (BN / TN));
  // K = 0 still launches: the k loop runs zero times and the epilogue writes beta * C.
  const dim3 grid(wb::ceil_div(N, BN), wb::ceil_div(M, BM));
  matmul_vectorized_kernel<BM, BN, BK, TM, TN, VEC_A, VEC_N><<<grid, block, 0, stream>>>(M, N, K, alpha, A, B, beta, C);
}

}  // namespace

void matmul_vectorized(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream) {
  if (M == 0 || N == 0) return;  // nothing to write, and a grid of 0 blocks is an invalid launch
  // A float4 at element (row, k) starts at byte 4 * (row * K + k) past A: a multiple of 16 for every
  // row only when K % 4 == 0 (and k % 4 == 0, which the kernel keeps) and A itself is aligned.
  // The same holds for B and C with N. Otherwise the scalar path: correct for every shape.
  const bool a_rows_are_float4 = false;  // TODO(1.06): may every row of A be read as float4?
  const bool n_rows_are_float4 = false;  // TODO(1.06): may every row of B and of C be read and written as float4?
  if (a_rows_are_float4 && n_rows_are_float4) {
    launch_vectorized<true, true>(M, N, K, alpha, A, B, beta, C, stream);
  } else if (a_rows_are_float4) {
    launch_vectorized<true, false>(M, N, K, alpha, A, B, beta, C, stream);
  } else if (n_rows_are_float4) {
    launch_vectorized<false, true>(M, N, K, alpha, A, B, beta, C, stream);
  } else {
    launch_vectorized<false, false>(M, N, K, alpha, A, B, beta, C, stream);
  }
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 137 GFLOP at 4096^3 and the same 32 FLOP per byte of tile traffic as 1.05. What
// changes is instructions: per tile a thread issues 2 global float4 loads instead of 8 scalar ones,
// and per k 4 shared float4 loads (2 for A, 2 for B) instead of 8 + 8 scalar ones (or 8 + 2 where
// the compiler already merged B's), for the same 64 FMAs: more of the instruction issue slots go to math.
int vectorized_lesson(wb::Lesson& lesson) {
  return p1::run_matmul_lesson(lesson, "matmul_vectorized", matmul_vectorized);
}

}  // namespace

WB_LESSON(vectorized_lesson, "float4 loads and a transposed A tile");
