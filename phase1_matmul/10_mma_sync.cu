// SPDX-License-Identifier: MIT
// 1.10 mma_sync: BF16 tensor cores the Ampere way: mma.sync, ldmatrix, swizzled shared memory and
// a cp.async pipeline, on the H100.
//
// You learn: the instruction under WMMA. `mma.sync.m16n8k16` multiplies a 16 x 16 BF16 tile of A by a
// 16 x 8 tile of B into 16 x 8 FP32 accumulators spread over the warp's 32 lanes in a documented
// layout (phase1_matmul/mma_sm80.cuh), so there is no opaque fragment and no scratch tile: each lane
// knows which outputs it holds. `ldmatrix` moves four 8 x 8 tiles from shared memory straight into
// that fragment layout, one 16-byte row per lane; a swizzled tile layout keeps its 8 rows in 8
// different bank groups. `cp.async` copies global memory into shared memory without passing
// through registers, so several tiles can be in flight while the tensor cores work on an older one.
// Problem: C = alpha A B^T + beta C, A M x K and B N x K in BF16 (both K-major: each row of B is one
// output's weights, the layout of a Linear layer), C M x N in FP32 (phase1_matmul/matmul_bf16.cuh).
// Task: in mma_sync_kernel write the ldmatrix addressing of the A and B fragments, the pipeline
// (which stage to wait for, which to refill, where the barrier goes) and the epilogue from the
// accumulator layout.
// You decide: which row address each lane gives ldmatrix_x4 (swizzled); which stage to wait for and
//             which to refill, and where the barrier goes; which element of C each accumulator is.
// Source: PTX ISA, "Warp Level Matrix Multiply-Accumulate Instructions" (mma.sync, ldmatrix) and cp.async.
// Run:   ./workbook run 1.10 [-- --size 4096]
// Check: ./workbook check 1.10
// Aim:   >= 50% of the best cuBLAS BF16 GEMM at 4096 on an H100. mma.sync is an Ampere instruction:
//        Hopper runs it, but only wgmma (1.11) reaches its tensor cores' full rate.
// Previous: 1.09 tensor_cores. Next: 1.11 wgmma.

#include <cuda_bf16.h>

#include <cstdint>

#include "common/workbook.h"
#include "phase1_matmul/harness/lesson_support.h"
#include "phase1_matmul/matmul_bf16.cuh"
#include "phase1_matmul/mma_sm80.cuh"

namespace {

using namespace wb::mma;

// ---- kernel -----------------------------------------------------------------------------------------

// One block computes a BM x BN tile of C, K in steps of BK through a ring of STAGES shared-memory
// stages; each warp owns a WM x WN piece of it: (WM / 16) x (WN / 8) mma tiles, 4 accumulators per
// lane each. Tiles are [rows][BK] BF16, K-major, swizzled (swizzle_offset<BK>); block tiles are
// handed out in grouped order (grouped_tile) so that the blocks running together share L2.
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int GROUP>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * 32)
    mma_sync_kernel(int M, int N, int K, float alpha, const __nv_bfloat16* __restrict__ A,
                    const __nv_bfloat16* __restrict__ B, float beta, float* __restrict__ C) {
  constexpr int kWarpsN = BN / WN, kThreads = (BM / WM) * kWarpsN * 32;
  constexpr int kTilesM = WM / 16, kTilesN = WN / 8;
  static_assert(BM % WM == 0 && BN % WN == 0 && kTilesM * 16 == WM && kTilesN % 2 == 0 && BK % 16 == 0,
                "warp tiles are whole 16 x 16 pieces (B fragments come two n8 tiles per ldmatrix_x4)");
  static_assert(STAGES >= 2, "a pipeline needs a stage to compute on and one to fill");
  extern __shared__ __align__(128) unsigned char smem_raw[];
  __nv_bfloat16* As = reinterpret_cast<__nv_bfloat16*>(smem_raw);  // [STAGES][BM][BK]
  __nv_bfloat16* Bs = As + STAGES * BM * BK;                       // [STAGES][BN][BK]

  // TODO(1.10): which of the (BM / WM) x kWarpsN warp tiles this warp computes, and this thread's lane
  //             (about 2 lines).
  const TileCoord tile = grouped_tile(blockIdx.x, wb::ceil_div(M, BM), wb::ceil_div(N, BN), GROUP);
  const int m0 = tile.m * BM, n0 = tile.n * BN;
  const int k_tiles = wb::ceil_div(K, BK);  // K = 0: no tiles, C = beta C

  // TODO(1.10): declare the warp's accumulators, zeroed: how many FP32 values does each lane hold for
  //             its (WM / 16) x (WN / 8) mma tiles? (about 1 line).

  // Stage `stage` receives K tile `kt` of A's rows m0.. and B's rows n0.. (zeros past the ends).
  auto load_stage = [&](int stage, int kt) {
    load_tile_swizzled<BM, BK, kThreads>(As + stage * BM * BK, A, M, K, m0, kt * BK);
    load_tile_swizzled<BN, BK, kThreads>(Bs + stage * BN * BK, B, N, K, n0, kt * BK);
  };

  // Prologue: the first STAGES - 1 tiles in flight, one commit group each (empty groups past the
  // last tile keep the count that cp_async_wait relies on the same in every iteration).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (s < k_tiles) load_stage(s, s);
    cp_async_commit();
  }
  for (int kt = 0; kt < k_tiles; ++kt) {
    // TODO(1.10): before any warp reads tile kt, all of it must be in shared memory; and keep
    //             STAGES - 1 tiles in flight by refilling a stage as soon as it is free. cp_async_wait
    //             counts this thread's commit groups, not tiles (about 5 lines).

    // TODO(1.10): add this warp's WM x WN share of stage kt % STAGES to acc with mma_bf16_16816, its
    //             fragments read from the swizzled tiles with ldmatrix_x4 (mma_sm80.cuh documents both
    //             layouts), each fragment loaded once per 16-deep k step (about 25 lines).
  }
  cp_async_wait<0>();  // only empty groups remain, but a block must not exit with copies in flight

  // TODO(1.10): write the warp's accumulators to C with store_pair (it applies alpha, beta and the
  //             bounds). Which element of C each accumulator is follows from the mma.sync
  //             accumulator layout in mma_sm80.cuh (about 8 lines).
}

// ---- launcher ---------------------------------------------------------------------------------------

template <int BM, int BN, int BK, int WM, int WN, int STAGES, int GROUP>
void launch_mma_sync(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                     float* C, cudaStream_t stream) {
  constexpr int kThreads = (BM / WM) * (BN / WN) * 32;
  constexpr int kSmemBytes = STAGES * (BM + BN) * BK * int(sizeof(__nv_bfloat16));
  const auto kernel = mma_sync_kernel<BM, BN, BK, WM, WN, STAGES, GROUP>;
  if constexpr (kSmemBytes > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  // One dimension: grouped_tile turns the block index into a tile (gridDim.x allows 2^31 - 1 blocks).
  const long long blocks = static_cast<long long>(wb::ceil_div(M, BM)) * wb::ceil_div(N, BN);
  kernel<<<static_cast<unsigned>(blocks), kThreads, kSmemBytes, stream>>>(M, N, K, alpha, A, B, beta, C);
  CUDA_CHECK_KERNEL();
}

}  // namespace

// 128 x 128 block tiles, four warps of 64 x 64 (128 accumulators per lane; per k16 step 8
// ldmatrix_x4 feed 32 mma), BK = 32 (64-byte swizzled rows), 3 stages: 48 KB of shared memory, and
// 242 registers per thread allow 2 blocks per SM. Measured on an H100 at 4096 (one sweep): 391
// TFLOP/s; 4 stages 370; BK = 64 with 2 stages 353 and with 3 stages 308 (96 KB, yet two blocks
// still fit an SM: not occupancy); eight warps of 64 x 32 or 128 x 256 tiles 312-326.
void matmul_mma_sync_bf16(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                          float* C, cudaStream_t stream) {
  if (M == 0 || N == 0) return;  // nothing to write, and a grid of 0 blocks is an invalid launch
  // 16-byte cp.async needs 16-byte aligned rows (K % 8 == 0) and bases: anything else takes the fallback.
  if (!bf16_fast_path_ok(K, A, B)) return matmul_bf16_fallback(M, N, K, alpha, A, B, beta, C, stream);
  launch_mma_sync<128, 128, 32, 64, 64, 3, 8>(M, N, K, alpha, A, B, beta, C, stream);
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 2 M N K = 137 GFLOP at 4096^3. The H100 SXM's dense BF16 peak is 132 SMs x 1830 MHz x
// 4096 FLOP per clock = 989 TFLOP/s, but that is wgmma's rate: mma.sync, issued warp by warp with
// its operands in registers, reaches a little over half of it. Per 128 x 128 x 32 stage a block
// copies 16 KB for 1 MFLOP (64 FLOP per byte of L2 traffic), and each warp spends 8 ldmatrix_x4 per
// 32 mma per k16 step: shared memory and issue slots, not DRAM, bound it.
int mma_sync_lesson(wb::Lesson& lesson) {
  return p1::run_bf16_matmul_lesson(lesson, "matmul_mma_sync_bf16", matmul_mma_sync_bf16);
}

}  // namespace

WB_LESSON(mma_sync_lesson, "BF16 tensor cores through mma.sync, ldmatrix and a cp.async pipeline");
