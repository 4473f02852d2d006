// SPDX-License-Identifier: MIT
// 1.11 wgmma: Hopper's warpgroup MMA, reading both operands straight from 128-byte-swizzled shared
// memory through matrix descriptors.
//
// You learn: `wgmma.mma_async`: four warps (a warpgroup, 128 threads) issue one m64nNk16 product
// together; it runs asynchronously on the tensor cores, reading A and B from shared memory itself
// (no ldmatrix, no fragments in registers), and only the FP32 accumulators live in registers. A
// 64-bit descriptor tells it where a tile starts and how it is laid out (phase1_matmul/hopper.cuh):
// here the 128-byte form of 1.10's swizzle, rows of 64 BF16 in 8-row groups of 1024 bytes. Ordering
// rules come with it: the tensor cores own a batch's accumulators and read its stage until a wait
// covers it; cp.async writes through one proxy and wgmma reads through another (what joins them?);
// and the compiler must not move its own accesses to the accumulators into that window (hopper.cuh,
// PTX ISA "wgmma").
// Problem: C = alpha A B^T + beta C as in 1.10 (phase1_matmul/matmul_bf16.cuh).
// Task: in wgmma_kernel feed each stage to the tensor cores and write acc to C; copies are given.
// Builds on 1.10's cp.async ring, which is yours to place again here: solve 1.10 first.
// You decide: how a 64-column stage becomes k16 products through descriptors; how many tiles the ring
//             runs ahead and how many batches stay in flight, which decide when a stage may be
//             refilled; which fence, commit and wait go where around a batch; which accesses to acc
//             need the compiler's fence, on which side of the asynchronous window.
// Source: PTX ISA, "Warpgroup level matrix multiply-accumulate instructions: wgmma"; Pranjal Shankhdhar,
// "Outperforming cuBLAS on H100: a Worklog". wgmma is the instruction cuBLAS's Hopper kernels use.
// Run:   ./workbook run 1.11 [-- --size 4096]
// Check: ./workbook check 1.11
// Aim:   faster than 1.10 at 4096 and 8192 on an H100. Needs sm_90a: elsewhere it is skipped.
// Previous: 1.10 mma_sync. Next: 1.12 tma.

#include <cuda_bf16.h>

#include <cstdint>

#include "common/workbook.h"
#include "phase1_matmul/harness/lesson_support.h"
#include "phase1_matmul/hopper.cuh"
#include "phase1_matmul/matmul_bf16.cuh"
#include "phase1_matmul/mma_sm80.cuh"

namespace {

using namespace wb::hopper;
using namespace wb::mma;

constexpr int kBK = 64;  // one 128-byte swizzled row of BF16 per tile row

// One block: WARPGROUPS warpgroups, each computing 64 rows of a (64 WARPGROUPS) x BN tile of C with
// wgmma m64nBNk16; every thread also copies its share of each stage with cp.async (as in 1.10).
template <int WARPGROUPS, int BN, int STAGES, int GROUP>
__global__ void __launch_bounds__(WARPGROUPS * 128)
    wgmma_kernel(int M, int N, int K, float alpha, const __nv_bfloat16* __restrict__ A,
                 const __nv_bfloat16* __restrict__ B, float beta, float* __restrict__ C) {
  constexpr int BM = 64 * WARPGROUPS, kThreads = WARPGROUPS * 128;
  using Mma = WgmmaBf16<BN>;
  extern __shared__ unsigned char smem_raw[];
  __nv_bfloat16* As = reinterpret_cast<__nv_bfloat16*>(align_1024(smem_raw));  // [STAGES][BM][64]
  __nv_bfloat16* Bs = As + STAGES * BM * kBK;                                  // [STAGES][BN][64]

  // TODO(1.11): name this thread's warpgroup, its warp inside the warpgroup and its lane
  //             (about 1 line).
  const TileCoord tile = grouped_tile(blockIdx.x, wb::ceil_div(M, BM), wb::ceil_div(N, BN), GROUP);
  const int m0 = tile.m * BM, n0 = tile.n * BN;
  const int k_tiles = wb::ceil_div(K, kBK);

  float acc[Mma::kRegs];
#pragma unroll
  for (int i = 0; i < Mma::kRegs; ++i) acc[i] = 0.0f;

  [[maybe_unused]] auto load_stage = [&](int stage, int kt) {
    load_tile_swizzled<BM, kBK, kThreads>(As + stage * BM * kBK, A, M, K, m0, kt * kBK);
    load_tile_swizzled<BN, kBK, kThreads>(Bs + stage * BN * kBK, B, N, K, n0, kt * kBK);
  };
  // TODO(1.11): start the ring: load the first tiles into their stages, one commit group per tile
  //             (the loop below counts on it). How many tiles ahead it runs decides which stage each refill overwrites,
  //             and so how many wgmma batches may still be reading when it does (about 5 lines).
  for (int kt = 0; kt < k_tiles; ++kt) {
    // TODO(1.11): make tile kt safe for the tensor cores to read (the README's 1.11 asks what
    //             wgmma needs that 1.10's ldmatrix did not), and somewhere in this iteration start
    //             a later tile's loads (load_stage) into a stage that no batch can still be reading:
    //             which one depends on how many batches your waits leave in flight; commit the loads
    //             so that your waits count right (about 6 lines).

    // TODO(1.11): add this warpgroup's 64 x BN product of tile kt's stage, all 64 of its K columns,
    //             to acc with Mma::mma, both operands through smem_descriptor_sw128. The tensor cores
    //             own acc and read the stage until a wait covers the batch, and the compiler must keep
    //             its own accesses to acc out of that window (the README's 1.11) (about 12 lines).
  }
  cp_async_wait<0>();

  // TODO(1.11): write acc to C with store_pair; the wgmma accumulator layout is in hopper.cuh
  //             (about 6 lines).
}

template <int WARPGROUPS, int BN, int STAGES, int GROUP>
void launch_wgmma(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                  float* C, cudaStream_t stream) {
  constexpr int BM = 64 * WARPGROUPS;
  constexpr int kSmemBytes = STAGES * (BM + BN) * kBK * int(sizeof(__nv_bfloat16)) + 1024;  // + alignment slack
  const auto kernel = wgmma_kernel<WARPGROUPS, BN, STAGES, GROUP>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  const long long blocks = static_cast<long long>(wb::ceil_div(M, BM)) * wb::ceil_div(N, BN);
  kernel<<<static_cast<unsigned>(blocks), WARPGROUPS * 128, kSmemBytes, stream>>>(M, N, K, alpha, A, B, beta, C);
  CUDA_CHECK_KERNEL();
}

}  // namespace

// Two consumer warpgroups (128 x 128 block tiles, m64n128k16, 64 accumulators per thread), stages of
// 32 KB. How deep the ring is (STAGES) is yours: it sets how far the copies run ahead, and the
// shared memory it takes sets how many blocks share an SM.
void matmul_wgmma_bf16(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                       float* C, cudaStream_t stream) {
  if (M == 0 || N == 0) return;
  if (!bf16_fast_path_ok(K, A, B)) return matmul_bf16_fallback(M, N, K, alpha, A, B, beta, C, stream);
  // TODO(1.11): choose the ring's depth, the third argument (1 line; a stage is 32 KB of the 227 KB
  //             a block may hold).
  launch_wgmma<2, 128, 2, 8>(M, N, K, alpha, A, B, beta, C, stream);  // TODO(1.11): replace: 2 stages so far
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: one wgmma m64n128k16 is 262144 FLOP issued by one instruction per thread of the
// warpgroup, against 64 mma.sync m16n8k16 in 1.10, and its operands never pass through registers.
// What this kernel still pays for: every thread copies with cp.async, and every thread must agree
// that a stage is free before it is refilled: how long do the tensor cores wait while it changes hands?
int wgmma_lesson(wb::Lesson& lesson) {
  return p1::run_bf16_matmul_lesson(lesson, "matmul_wgmma_bf16", matmul_wgmma_bf16);
}

}  // namespace

WB_LESSON(wgmma_lesson, "Hopper wgmma: warpgroup MMA from swizzled shared memory");
