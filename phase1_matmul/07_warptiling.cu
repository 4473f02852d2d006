// SPDX-License-Identifier: MIT
// 1.07 warptiling: block -> warp -> thread tiles, the fastest FP32 kernel of the ladder.
//
// You learn: how a third level of tiling (the warp tile) keeps each warp's shared-memory reads
// compact and broadcast-friendly; how double buffering overlaps the next tile's global loads with
// this tile's FMAs, and which barriers that needs; how the order in which blocks take tiles decides
// what L2 holds; how one template gives both a fast whole-tile kernel and a guarded one for the tails.
// Task: write matmul_warptiling_kernel, C = alpha A B + beta C for any M, N, K (beta == 0 never reads
// C), and the launcher's kSmemBytes and kGroupM; the tile shape is given (see the launcher). The
// kernel takes WMITER x WNITER sub-tiles per warp tile, but the graded shape has one (WMITER =
// WNITER = 1): the phase README says how to test your sub-tile indexing too.
// You decide: how the A and B tiles sit in shared memory (1.06's layout or your own), so that a
//             lane's fragment reads are float4 and a warp's stores spread over the banks; which part
//             of the warp tile each lane owns; how a tile's loads, stores and barriers interleave
//             with the FMAs; the order in which blocks take tiles, and the value of its parameter
//             (kGroupM).
// Source: Simon Boehm, "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog", kernel 10
// (warptiling); CUTLASS, "Efficient GEMM in CUDA": the warp, not the block, is the unit that shares fragments.
// Run:   ./workbook run 1.07 [-- --size 4096]
// Check: ./workbook check 1.07
// Aim:   >= 80% of cuBLAS SGEMM at 4096 on an H100 (the reference solution: 89% at 4096, 90% at 8192).
// Previous: 1.06 vectorized. Next: 1.08 cublas.

#include <cstddef>
#include <cstdint>

#include "common/workbook.h"
#include "phase1_matmul/harness/lesson_support.h"
#include "phase1_matmul/matmul.cuh"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

// One block computes a BM x BN tile of C, marching over K in steps of BK. Inside it, each of the
// NTHREADS / 32 warps owns a WM x WN warp tile, computed as WMITER x WNITER sub-tiles of
// (WM / WMITER) x (WN / WNITER); in every sub-tile each lane owns a TM x TN register tile. CHECKED
// selects the guarded variant (any M, N, K, any alignment) over the fast one (whole tiles, float4).
// GROUP_M > 0 selects your order of the block tiles, with GROUP_M as its parameter (see below).
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int NTHREADS, int MIN_BLOCKS, int GROUP_M,
          bool CHECKED>
__global__ void __launch_bounds__(NTHREADS, MIN_BLOCKS)
    matmul_warptiling_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                             float beta, float* __restrict__ C) {
  constexpr int kWarps = NTHREADS / 32;
  static_assert(NTHREADS % 32 == 0, "the block is made of whole warps");
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile exactly");
  static_assert((BM / WM) * (BN / WN) == kWarps, "one warp per warp tile: (BM / WM) * (BN / WN) == NTHREADS / 32");
  static_assert((WM * WN) % (32 * TM * TN * WNITER) == 0,
                "the 32 lanes' TM x TN tiles, WNITER times along N, must cover the warp tile a whole number "
                "of times along M (that number is WMITER)");
  constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
  static_assert(WMITER >= 1 && WM % WMITER == 0 && WN % WNITER == 0, "sub-tiles must split the warp tile evenly");
  constexpr int WSUBM = WM / WMITER;  // sub-tile height
  constexpr int WSUBN = WN / WNITER;  // sub-tile width
  static_assert(WSUBM % TM == 0 && WSUBN % TN == 0 && (WSUBM / TM) * (WSUBN / TN) == 32,
                "the 32 lanes must cover one sub-tile exactly with their TM x TN register tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read from shared memory as float4");
  static_assert(BK % 4 == 0 && BN % 4 == 0, "tiles are loaded from global memory as float4");
  constexpr int kALoads = BM * BK / 4 / NTHREADS;  // float4s of the A tile per thread
  constexpr int kBLoads = BK * BN / 4 / NTHREADS;  // float4s of the B tile per thread
  static_assert(kALoads * 4 * NTHREADS == BM * BK && kBLoads * 4 * NTHREADS == BK * BN,
                "every thread loads the same number of float4s of each tile");
  // Shared memory: two buffers of each tile, so that the next tile can be written while this one is
  // read. At each k a lane reads its TM values of A and its TN values of B as float4s: each 4 of them
  // must be contiguous and 16-byte aligned in your layout. The launcher passes your layout's size,
  // kSmemBytes, as the launch's dynamic shared memory.
  // TODO(1.07): the two buffers of As and of Bs in the launch's dynamic shared memory, every float4
  //             of them 16-byte aligned; the launcher's kSmemBytes must match (about 5 lines).
  // TODO(1.07): pick this block's tile of C: the grid's own order when GROUP_M == 0, your order
  //             otherwise; every tile is taken exactly once, for every grid shape (about 8 lines).
  // TODO(1.07): where this block's tile, this warp's tile and this lane's TM x TN place in a
  //             sub-tile sit, so that a lane's fragment reads stay float4 (about 6 lines).
  // TODO(1.07): the march over the K tiles, a later tile's global loads (coalesced) in flight while
  //             this tile's outer products run. No thread reads a tile before all of it is stored, and
  //             no buffer is written while a thread may still read it. The CHECKED variant reads
  //             nothing outside A and B for any shape and alignment, and whatever it puts in a tile in
  //             their place leaves every output unchanged. K == 0 reads nothing of A or B and leaves
  //             the sums at 0 (about 100 lines).
  // TODO(1.07): store the outputs with alpha and beta, in float4s on the fast path and only inside
  //             M x N on the CHECKED one; beta == 0 never reads C (about 30 lines).
}

// ---- launchers --------------------------------------------------------------------------------------

// Given: the tile shape, tuned on an H100 by a sweep of 21 configurations against cuBLAS at 4096 (see
// the phase README), and the only one the tests run: 128 x 128 x 8 block tiles, 8 warps of 64 x 32
// (one sub-tile each) where a lane owns 8 x 8 outputs. 64 accumulators per thread fit in 128
// registers, so two 256-thread blocks (16 warps) share an SM. Yours: kGroupM and kSmemBytes.
constexpr int BM = 128, BN = 128, BK = 8, WM = 64, WN = 32, WNITER = 1, TM = 8, TN = 8;
constexpr int kThreads = 256, kMinBlocksPerSm = 2;
// TODO(1.07): kGroupM, the parameter of your block order (0 keeps the grid's own order, and then
//             yours is never run); compare a few values in the lesson at 4096 and 8192 (1 line).
constexpr int kGroupM = 0;  // TODO(1.07): your order's parameter

template <bool CHECKED>
void launch_warptiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream) {
  // Block tiles along x over N (up to 2^31 - 1 of them), along y over M (at most 65535, so M <= 65535 * 128).
  const dim3 grid(static_cast<unsigned>(wb::ceil_div(N, BN)), static_cast<unsigned>(wb::ceil_div(M, BM)));
  // Two blocks per SM cap a thread at 128 registers; the guarded variant needs a few more (it only
  // runs on the tails and small shapes), so it asks for one block per SM rather than spill.
  // A launch may ask for up to 48 KiB of dynamic shared memory without first calling
  // cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize), which this launcher does not.
  // TODO(1.07): kSmemBytes, the bytes of your kernel's two buffers of As and Bs, for any BM, BN, BK
  //             (1 line).
  constexpr std::size_t kSmemBytes = 0;  // TODO(1.07): your layout's size
  static_assert(kSmemBytes <= 48 * 1024, "above 48 KiB of shared memory, opt in with cudaFuncSetAttribute first");
  matmul_warptiling_kernel<BM, BN, BK, WM, WN, WNITER, TM, TN, kThreads, CHECKED ? 1 : kMinBlocksPerSm, kGroupM,
                           CHECKED><<<grid, kThreads, kSmemBytes, stream>>>(M, N, K, alpha, A, B, beta, C);
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

void matmul_warptiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream) {
  if (M == 0 || N == 0) return;  // nothing to write, and a grid of 0 blocks is an invalid launch
  // The fast kernel needs whole tiles (no bounds checks) and 16-byte rows (float4): M, N, K multiples
  // of the tile and 16-byte aligned pointers. Everything else takes the guarded one, K == 0 included:
  // 0 is a multiple of BK, but A and B are then empty, and the guarded kernel loads no tile and writes
  // C = beta * C (the phase header's rule for K == 0).
  const bool whole_tiles = K > 0 && M % BM == 0 && N % BN == 0 && K % BK == 0;
  if (whole_tiles && aligned16(A) && aligned16(B) && aligned16(C)) {
    launch_warptiling<false>(M, N, K, alpha, A, B, beta, C, stream);
  } else {
    launch_warptiling<true>(M, N, K, alpha, A, B, beta, C, stream);
  }
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 2 M N K = 137 GFLOP at 4096^3, 2.7 ms for cuBLAS (~51 TFLOP/s) on an H100 whose FP32
// peak is ~67 TFLOP/s. Per k a lane loads 8 + 8 floats from shared memory (4 float4 loads) for 64
// FMAs; per tile the block loads (128 + 128) x 8 floats from global (8 KiB) for 2 x 128 x 128 x 8 FLOP:
// 32 FLOP per byte, far above the H100's ~20 FLOP per byte of DRAM bandwidth (and L2 serves most of
// it). So issue slots bound this rung: FMAs, plus the loads, barriers and latency around them.
int warptiling_lesson(wb::Lesson& lesson) {
  return p1::run_matmul_lesson(lesson, "matmul_warptiling", matmul_warptiling);
}

}  // namespace

WB_LESSON(warptiling_lesson, "warptiling SGEMM: block, warp and thread tiles, double-buffered");
