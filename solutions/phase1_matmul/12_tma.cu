// SPDX-License-Identifier: MIT
// 1.12 tma: whole tiles copied by the Tensor Memory Accelerator into a ring of stages guarded by
// mbarriers, consumed by wgmma.
//
// You learn: TMA. One thread asks for a box of a tensor (`cp.async.bulk.tensor`, described by a
// CUtensorMap made on the host), and the copy engine writes it into shared memory, swizzled, with
// zeros where the box hangs over the matrix: no per-thread addresses, no bounds checks, no
// registers. Completion is counted in bytes on an mbarrier: the issuing thread announces the bytes
// it expects (`arrive.expect_tx`), the copy engine completes them, and the phase of the barrier
// flips. Waiters spin on the parity of the phase they expect. The tensor cores then read the stage
// with wgmma; a stage may be refilled only after every wgmma that read it has finished.
// Problem: C = alpha A B^T + beta C as in 1.10 (phase1_matmul/matmul_bf16.cuh).
// Task: in tma_kernel set up the barriers, fill a stage with TMA, wait for it, refill a freed one.
// Holds 1.11's answer: solve 1.11 first (its descriptors, wgmma batch and epilogue are given here).
// You decide: the bytes a stage's barrier expects; the parity the wait for tile kt expects; how many
//             wgmma batches stay in flight, and so which stage is free to refill, and when.
// Source: PTX ISA, "Tensor copy: cp.async.bulk.tensor" and "mbarrier"; Pranjal Shankhdhar, "Outperforming
// cuBLAS on H100: a Worklog". Feeding the tensor cores is the hard part.
// Run:   ./workbook run 1.12 [-- --size 4096]
// Check: ./workbook check 1.12    (a wrong phase or byte count hangs: the check stops it)
// Aim:   >= 75% of the best cuBLAS BF16 GEMM at 4096 on an H100. Needs sm_90a.
// Previous: 1.11 wgmma. Next: 1.13 warp_specialized.

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

constexpr int kBK = 64;  // the TMA box is 64 BF16 wide: one 128-byte swizzle span

// WARPGROUPS warpgroups compute a (64 WARPGROUPS) x BN tile of C; thread 0 also issues the TMA loads.
// Shared memory: STAGES A tiles [BM][64], STAGES B tiles [BN][64], then one mbarrier per stage.
template <int WARPGROUPS, int BN, int STAGES, int GROUP>
__global__ void __launch_bounds__(WARPGROUPS * 128)
    tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int M, int N,
               int K, float alpha, float beta, float* __restrict__ C) {
  constexpr int BM = 64 * WARPGROUPS;
  // TMA counts every byte of the box, the zero-filled ones past the matrix included.
  constexpr std::uint32_t kStageBytes = (BM + BN) * kBK * sizeof(__nv_bfloat16);
  using Mma = WgmmaBf16<BN>;
  extern __shared__ unsigned char smem_raw[];
  __nv_bfloat16* As = reinterpret_cast<__nv_bfloat16*>(align_1024(smem_raw));
  __nv_bfloat16* Bs = As + STAGES * BM * kBK;
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(Bs + STAGES * BN * kBK);  // [STAGES]

  const int warpgroup = threadIdx.x / 128, warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  const TileCoord tile = grouped_tile(blockIdx.x, wb::ceil_div(M, BM), wb::ceil_div(N, BN), GROUP);
  const int m0 = tile.m * BM, n0 = tile.n * BN;
  const int k_tiles = wb::ceil_div(K, kBK);

  // Stage `stage` receives K tile kt (a box of A and a box of B), counted on full[stage].
  auto issue = [&](int stage, int kt) {
    mbarrier_arrive_expect_tx(&full[stage], kStageBytes);
    tma_load_2d(As + stage * BM * kBK, &map_a, &full[stage], kt * kBK, m0);
    tma_load_2d(Bs + stage * BN * kBK, &map_b, &full[stage], kt * kBK, n0);
  };
  if (threadIdx.x == 0) {
    // One arrival per phase (the issuing thread's); the bytes complete it.
    for (int s = 0; s < STAGES; ++s) mbarrier_init(&full[s], 1);
    fence_barrier_init();
  }
  __syncthreads();  // no thread waits on a barrier before it exists
  if (threadIdx.x == 0)
    for (int s = 0; s < STAGES && s < k_tiles; ++s) issue(s, s);

  float acc[Mma::kRegs];
#pragma unroll
  for (int i = 0; i < Mma::kRegs; ++i) acc[i] = 0.0f;
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int stage = kt % STAGES;
    // Stage `stage` is filled for the (kt / STAGES)-th time: that use completes phase kt / STAGES,
    // whose parity is what the wait compares.
    mbarrier_wait(&full[stage], (kt / STAGES) & 1);
    const __nv_bfloat16* a_tile = As + stage * BM * kBK + warpgroup * 64 * kBK;
    const __nv_bfloat16* b_tile = Bs + stage * BN * kBK;
    wgmma_fence_operands(acc);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < kBK / 16; ++k)
      Mma::mma(acc, smem_descriptor_sw128(a_tile + 16 * k), smem_descriptor_sw128(b_tile + 16 * k), 1);
    wgmma_commit_group();
    // A stage is free only once no warpgroup's wgmma reads it any more: a refill before that
    // overwrites operands that a wgmma is still reading.
    wgmma_wait_group<1>();
    wgmma_fence_operands(acc);
    __syncthreads();
    const int done = kt - 1;
    if (threadIdx.x == 0 && done >= 0 && done + STAGES < k_tiles) issue(done % STAGES, done + STAGES);
  }
  wgmma_wait_group<0>();
  wgmma_fence_operands(acc);

#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    const int row = m0 + warpgroup * 64 + warp * 16 + lane / 4, col = n0 + j * 8 + (lane % 4) * 2;
    store_pair(C, M, N, row, col, alpha, beta, acc[4 * j], acc[4 * j + 1]);
    store_pair(C, M, N, row + 8, col, alpha, beta, acc[4 * j + 2], acc[4 * j + 3]);
  }
}

template <int WARPGROUPS, int BN, int STAGES, int GROUP>
void launch_tma(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta, float* C,
                cudaStream_t stream) {
  constexpr int BM = 64 * WARPGROUPS;
  constexpr int kSmemBytes =
      STAGES * (BM + BN) * kBK * int(sizeof(__nv_bfloat16)) + STAGES * int(sizeof(std::uint64_t)) + 1024;
  // Boxes of BM (BN) rows x 64 columns, 128-byte swizzle: the layout the descriptors describe.
  const CUtensorMap map_a = make_tensor_map_bf16(A, M, K, BM);
  const CUtensorMap map_b = make_tensor_map_bf16(B, N, K, BN);
  const auto kernel = tma_kernel<WARPGROUPS, BN, STAGES, GROUP>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  const long long blocks = static_cast<long long>(wb::ceil_div(M, BM)) * wb::ceil_div(N, BN);
  kernel<<<static_cast<unsigned>(blocks), WARPGROUPS * 128, kSmemBytes, stream>>>(map_a, map_b, M, N, K, alpha, beta,
                                                                                  C);
  CUDA_CHECK_KERNEL();
}

}  // namespace

// 128 x 256 block tiles (two warpgroups of m64n256k16, 128 accumulators per thread) and 4 stages of
// 48 KB (192 KB). Measured on an H100 (one sweep): 669 TFLOP/s at 4096 and 694 at 8192; waiting for
// every batch (wait_group 0) instead of keeping one in flight: 607 / 594; 128 x 128 tiles 531-569.
void matmul_tma_bf16(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                     float* C, cudaStream_t stream) {
  if (M == 0 || N == 0) return;
  // A tensor map needs K >= 1 and a row pitch that is a multiple of 16 bytes: bf16_fast_path_ok refuses
  // K = 0 (nothing to load, C = beta C) and other K, and the fallback writes those.
  if (!bf16_fast_path_ok(K, A, B)) return matmul_bf16_fallback(M, N, K, alpha, A, B, beta, C, stream);
  launch_tma<2, 256, 4, 8>(M, N, K, alpha, A, B, beta, C, stream);
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: a 128 x 256 x 64 stage is 48 KB for 4.2 MFLOP (85 FLOP per byte from L2), issued by
// two TMA instructions of one thread instead of 3072 cp.async by 256 threads. What remains: one
// block-wide barrier per K tile, and the epilogue, during which this block's tensor cores idle.
int tma_lesson(wb::Lesson& lesson) {
  p1::warn_mbarrier_hangs(lesson);  // mbarrier bugs hang: say what hangs before the first launch
  return p1::run_bf16_matmul_lesson(lesson, "matmul_tma_bf16", matmul_tma_bf16);
}

}  // namespace

WB_LESSON(tma_lesson, "TMA loads into an mbarrier-guarded ring of stages, wgmma on them");
