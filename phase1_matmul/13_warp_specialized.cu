// SPDX-License-Identifier: MIT
// 1.13 warp_specialized: a producer warpgroup that only issues TMA loads, consumer warpgroups that
// only issue wgmma, persistent blocks over grouped tiles, and registers moved to where they work.
//
// You learn: in 1.12 every warpgroup stops at a block-wide barrier once per K tile so that thread 0
// may refill a stage. Here the roles split: warpgroup 0 produces (one thread loops over the tiles
// and issues TMA loads as soon as a stage is free) and warpgroups 1-2 consume (wait for a stage,
// run wgmma on it, release it). Two mbarriers per stage carry the hand-off: `full` (the TMA bytes
// have landed) and `empty` (the stage may be refilled). Nobody waits for anybody else except
// through them. The grid is persistent: one block per SM walks the output tiles in grouped order,
// so the producer already loads the next tile while the consumers write the current one out. And
// `setmaxnreg` moves the producer's unused registers to the consumers at run time.
// Problem: C = alpha A B^T + beta C as in 1.10 (phase1_matmul/matmul_bf16.cuh).
// Task: in warp_specialized_kernel write the producer, the consumers' wait and release, and what
//       releases a stage (empty's arrival count).
// Holds 1.11's and 1.12's answers: solve them first (the wgmma batch, the epilogue, full's set-up).
// You decide: the parity of each wait, the producer's first pass over a fresh ring included; the box
//             coordinates of each TMA load; when a consumer may hand its stage back, and who arrives;
//             how many stages the ring holds.
// Source: Pranjal Shankhdhar, "Outperforming cuBLAS on H100: a Worklog"; the CUTLASS documentation's
// warp-specialized persistent kernels: the structure of the kernels cuBLAS runs on Hopper.
// Run:   ./workbook run 1.13 [-- --size 4096]
// Check: ./workbook check 1.13    (a wrong phase or byte count hangs: the check stops it)
// Aim:   >= 90% of the best cuBLAS BF16 GEMM at 4096 and 8192 on an H100 (aim: 100% at 8192).
// Previous: 1.12 tma. Next: 1.14 cluster_multicast.

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

constexpr int kBK = 64;
constexpr int kConsumers = 2;                     // consumer warpgroups, 64 rows of the tile each
constexpr int kBM = 64 * kConsumers;              // block tile rows
constexpr int kThreads = (kConsumers + 1) * 128;  // + the producer warpgroup
// setmaxnreg budgets: 128 x 40 + 256 x 232 = 64512 of the SM's 65536 registers, moved between
// warpgroups at run time. ptxas (CUDA 13.0) still compiles the whole kernel for the launch bound,
// 65536 / 384 threads = 168 registers a thread (`-Xptxas -v`): that is the consumer's real budget for
// its 128 accumulators (m64n256) and its addresses, and what decides a spill.
constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;

template <int BN, int STAGES, int GROUP>
__global__ void __launch_bounds__(kThreads, 1)  // the ", 1" gives the register cap setmaxnreg needs
    warp_specialized_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int M,
                            int N, int K, float alpha, float beta, float* __restrict__ C) {
  using Mma = WgmmaBf16<BN>;
  extern __shared__ unsigned char smem_raw[];
  __nv_bfloat16* As = reinterpret_cast<__nv_bfloat16*>(align_1024(smem_raw));
  __nv_bfloat16* Bs = As + STAGES * kBM * kBK;
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(Bs + STAGES * BN * kBK);  // bytes landed
  [[maybe_unused]] std::uint64_t* empty = full + STAGES;                           // consumers done

  const int tiles_m = wb::ceil_div(M, kBM), tiles_n = wb::ceil_div(N, BN), tiles = tiles_m * tiles_n;
  const int k_tiles = wb::ceil_div(K, kBK);
  const int warpgroup = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbarrier_init(&full[s], 1);  // the producer's arrive.expect_tx; the bytes complete it
      // TODO(1.13): initialise this stage's empty barrier to the arrivals that release it (about 1 line).
    }
    fence_barrier_init();
  }
  __syncthreads();  // the only block-wide barrier: from here on the roles meet only at mbarriers

  // The consumers' walk over the steps is given below; the producer's must agree with it step for step,
  // or the two sides wait for different phases of the same barrier.
  if (warpgroup == 0) {
    setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      // TODO(1.13): feed the consumers every step they will take, in their order, each into its
      //             stage only once the consumers have released it. The first pass over the ring must
      //             not block, and full[] must expect every byte the boxes deliver (about 14 lines).
    }
  } else {
    setmaxnreg_inc<kConsumerRegisters>();
    const int consumer = warpgroup - 1, t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
    float acc[Mma::kRegs];
    // TODO(1.13): whatever your ring's bookkeeping carries from step to step (about 1 line).
    for (int tile_index = blockIdx.x; tile_index < tiles; tile_index += gridDim.x) {
      const TileCoord tile = grouped_tile(tile_index, tiles_m, tiles_n, GROUP);
#pragma unroll
      for (int r = 0; r < Mma::kRegs; ++r) acc[r] = 0.0f;
      for (int kt = 0; kt < k_tiles; ++kt) {
        // TODO(1.13): which stage this step reads, and which phase of that stage's barriers is this
        //             step's (the producer must agree); then wait until its loads have landed (about 2
        //             lines).
        const int stage = 0;  // TODO(1.13): replace
        const __nv_bfloat16* a_tile = As + stage * kBM * kBK + consumer * 64 * kBK;
        const __nv_bfloat16* b_tile = Bs + stage * BN * kBK;
        wgmma_fence_operands(acc);
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < kBK / 16; ++k)
          Mma::mma(acc, smem_descriptor_sw128(a_tile + 16 * k), smem_descriptor_sw128(b_tile + 16 * k), 1);
        wgmma_commit_group();
        // TODO(1.13): release a stage to the producer once the tensor cores are done reading it,
        //             with the arrivals you initialised empty[] to expect; advance your bookkeeping
        //             (about 4 lines).
      }
      // TODO(1.13): the epilogue below reads acc: settle whatever your release scheme left in flight
      //             (0 to 4 lines).
      // Epilogue straight from registers; the producer is already loading the next tile's stages.
      const int m0 = tile.m * kBM, n0 = tile.n * BN;
#pragma unroll
      for (int j = 0; j < BN / 8; ++j) {
        const int row = m0 + consumer * 64 + warp * 16 + lane / 4, col = n0 + j * 8 + (lane % 4) * 2;
        store_pair(C, M, N, row, col, alpha, beta, acc[4 * j], acc[4 * j + 1]);
        store_pair(C, M, N, row + 8, col, alpha, beta, acc[4 * j + 2], acc[4 * j + 3]);
      }
    }
  }
}

template <int BN, int STAGES, int GROUP>
void launch_warp_specialized(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                             float beta, float* C, cudaStream_t stream) {
  constexpr int kSmemBytes =
      STAGES * (kBM + BN) * kBK * int(sizeof(__nv_bfloat16)) + 2 * STAGES * int(sizeof(std::uint64_t)) + 1024;
  const CUtensorMap map_a = make_tensor_map_bf16(A, M, K, kBM);
  const CUtensorMap map_b = make_tensor_map_bf16(B, N, K, BN);
  const auto kernel = warp_specialized_kernel<BN, STAGES, GROUP>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  // Persistent: one block per SM (each takes all of an SM's shared memory), never more than tiles.
  // The SM count is read once per device (common/device.h), not on every launch.
  const int sms = wb::current_sm_count();
  const long long tiles = static_cast<long long>(wb::ceil_div(M, kBM)) * wb::ceil_div(N, BN);
  const int blocks = static_cast<int>(tiles < sms ? tiles : sms);
  kernel<<<blocks, kThreads, kSmemBytes, stream>>>(map_a, map_b, M, N, K, alpha, beta, C);
  CUDA_CHECK_KERNEL();
}

}  // namespace

// 128 x 256 tiles, stages of 48 KB, groups of 8 tile rows. How many stages the ring holds is yours:
// what other stage counts, groupings and release points measured is in the hints' near tier.
void matmul_warp_specialized_bf16(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                  float beta, float* C, cudaStream_t stream) {
  if (M == 0 || N == 0) return;
  if (!bf16_fast_path_ok(K, A, B)) return matmul_bf16_fallback(M, N, K, alpha, A, B, beta, C, stream);
  // TODO(1.13): choose the ring's depth, the second argument (1 line; a stage is 48 KB of the 227 KB
  //             a block may hold).
  launch_warp_specialized<256, 2, 8>(M, N, K, alpha, A, B, beta, C, stream);  // TODO(1.13): replace: 2 stages so far
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 132 persistent blocks, 2 x 128 = 256 wgmma threads each, and no block-wide barrier
// after the first: the tensor cores see back-to-back batches from two warpgroups, the producer
// runs up to STAGES stages ahead, and the epilogue of one tile overlaps the loads of the next.
int warp_specialized_lesson(wb::Lesson& lesson) {
  p1::warn_mbarrier_hangs(lesson);  // mbarrier bugs hang: say what hangs before the first launch
  return p1::run_bf16_matmul_lesson(lesson, "matmul_warp_specialized_bf16", matmul_warp_specialized_bf16);
}

}  // namespace

WB_LESSON(warp_specialized_lesson, "warp specialization: TMA producer, wgmma consumers, persistent grouped tiles");
