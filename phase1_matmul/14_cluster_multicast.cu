// SPDX-License-Identifier: MIT
// 1.14 cluster_multicast: two blocks of a thread-block cluster share one B tile: each loads half of
// it and the TMA multicasts that half into the shared memory of both.
//
// You learn: two blocks that compute the tiles above each other in one column of C read the same B
// tile at every K step. Launched as a cluster of two, they can write each other's shared memory: each
// loads its A tile and half of B with .multicast::cluster, which lands in both blocks and reports its
// bytes to the mbarrier at the same offset in each: 32 KB from L2 per step instead of 48. The price is
// coupling: a stage is refilled by both producers, so both blocks' consumers must release it (arrive
// on the peer's barrier through its mapa address); no block may touch a peer's barriers before they
// are initialised, nor exit while its peer may still arrive on or multicast into it.
// Problem: C = alpha A B^T + beta C as in 1.10 (phase1_matmul/matmul_bf16.cuh); epilogue given.
// Task: in cluster_kernel, the barriers' set-up, the producer, the consumers' wait and release, the
//       exit. hopper.cuh: cluster_arrive/wait, map_to_rank, mbarrier_arrive_cluster,
//       tma_load_2d_multicast, mbarrier_wait_or_stop and mbarrier_wait_cluster_or_stop (bounded).
// Holds 1.13's answer: solve 1.13 first (the roles, the ring's parities, the persistent loop).
// You decide: which half of B each block loads, where it lands and which blocks it goes to; the bytes
//             full[] expects and the arrivals empty[] counts; where the cluster waits for itself.
// Source: PTX ISA "cp.async.bulk.tensor", "mbarrier", "mapa", "barrier.cluster"; CUDA C++ Programming
// Guide "Thread Block Clusters"; CUTLASS's warp-specialized persistent kernels; Shankhdhar's worklog.
// Run:   ./workbook run 1.14 [-- --size 4096]
// Check: ./workbook check 1.14    (a wait that cannot complete stops the kernel after about 2 s)
// Aim:   >= 100% of the best cuBLAS BF16 GEMM at 4096 and 8192 on an H100.
// Previous: 1.13 warp_specialized. Next: phase 2 (elementwise kernels).

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
// 1.13's setmaxnreg budgets; ptxas still compiles every thread for 168 registers (1.13 says why).
constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;
constexpr int kCluster = 2;  // blocks per cluster: two tiles above each other, one B tile between them
// The epilogue: each consumer writes its 64 x BN outputs as boxes of 64 rows x 32 FP32 columns (128
// bytes a row, the swizzle span) through two staging buffers, so one box's TMA store runs while the
// next box is written.
constexpr int kStoreRows = 64, kStoreCols = 32, kStoreBuffers = 2, kStoreBox = kStoreRows * kStoreCols;

// The tile scheduler: a cluster takes a pair of tiles above each other (tile rows 2p and 2p + 1, one
// tile column), pairs in grouped order as 1.13's tiles; block `rank` of the cluster takes row 2p + rank.
// Both blocks of a cluster walk the same pairs, so they need the same B tile at every step. A pair
// whose second row lies past M still runs in full in both blocks (its B half is needed); that block
// only stores nothing.
__device__ inline TileCoord cluster_tile(int pair_index, int pairs_m, int tiles_n, int rank, int group) {
  const TileCoord pair = grouped_tile(pair_index, pairs_m, tiles_n, group);
  return TileCoord{pair.m * kCluster + rank, pair.n};
}

// Writes this consumer's 64 x BN outputs (alpha acc + beta C) at rows m0.., columns n0..: each 64 x 32
// box into a staging buffer in the C map's 128-byte swizzled layout (16-byte chunk c of row r at
// chunk c ^ (r % 8)), then one thread stores the box with TMA, which skips what lies past M or N.
template <int BN>
__device__ inline void store_tile_tma(const CUtensorMap* map_c, float* staging, int& stores, const float (&acc)[BN / 2],
                                      const float* C, int M, int N, int m0, int n0, float alpha, float beta,
                                      int consumer) {
  const int t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
#pragma unroll
  for (int q = 0; q < BN / kStoreCols; ++q) {
    if (n0 + q * kStoreCols >= N) break;  // the same for the whole warpgroup
    float* box = staging + (stores % kStoreBuffers) * kStoreBox;
    // The store issued kStoreBuffers boxes ago read this buffer: it must be done before we rewrite it.
    if (t == 0) bulk_wait_group_read_pending<kStoreBuffers - 1>();
    named_barrier_sync(1 + consumer, 128);
#pragma unroll
    for (int jj = 0; jj < kStoreCols / 8; ++jj) {
      const int j = q * (kStoreCols / 8) + jj;  // the accumulator's n8 column block
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = warp * 16 + lane / 4 + 8 * h, col = jj * 8 + (lane % 4) * 2;
        float v0 = alpha * acc[4 * j + 2 * h], v1 = alpha * acc[4 * j + 2 * h + 1];
        const int grow = m0 + row, gcol = n0 + q * kStoreCols + col;
        if (beta != 0.0f && grow < M && gcol < N) {  // N % 4 == 0 here: gcol + 1 < N too
          const float2 old = *reinterpret_cast<const float2*>(C + static_cast<std::size_t>(grow) * N + gcol);
          v0 += beta * old.x;
          v1 += beta * old.y;
        }
        const int chunk = (col / 4) ^ (row % 8);
        *reinterpret_cast<float2*>(box + row * kStoreCols + chunk * 4 + col % 4) = make_float2(v0, v1);
      }
    }
    fence_proxy_async_shared();  // these generic-proxy writes, before the TMA (async proxy) reads them
    named_barrier_sync(1 + consumer, 128);
    if (t == 0) {
      tma_store_2d(map_c, box, n0 + q * kStoreCols, m0);
      bulk_commit_group();
    }
    ++stores;
  }
}

template <int BN, int STAGES, int GROUP, bool TMA_STORE>
__global__ void __launch_bounds__(kThreads, 1)  // the ", 1" gives the register cap setmaxnreg needs
    cluster_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                   const __grid_constant__ CUtensorMap map_c, int M, int N, int K, float alpha, float beta,
                   float* __restrict__ C) {
  using Mma = WgmmaBf16<BN>;
  extern __shared__ unsigned char smem_raw[];
  __nv_bfloat16* As = reinterpret_cast<__nv_bfloat16*>(align_1024(smem_raw));
  __nv_bfloat16* Bs = As + STAGES * kBM * kBK;
  float* staging = reinterpret_cast<float*>(Bs + STAGES * BN * kBK);  // kConsumers x kStoreBuffers boxes
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(staging + kConsumers * kStoreBuffers * kStoreBox);
  [[maybe_unused]] std::uint64_t* empty = full + STAGES;  // the consumers of both blocks are done

  const int tiles_m = wb::ceil_div(M, kBM), tiles_n = wb::ceil_div(N, BN);
  const int pairs_m = wb::ceil_div(tiles_m, kCluster), pairs = pairs_m * tiles_n;
  const int k_tiles = wb::ceil_div(K, kBK);
  const int cluster = blockIdx.x / kCluster, clusters = gridDim.x / kCluster;
  const int rank = static_cast<int>(cluster_ctarank());
  const int warpgroup = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbarrier_init(&full[s], 1);  // this block's producer's arrive.expect_tx; the bytes complete it
      // TODO(1.14): initialise empty[s] for every release it must see before its stage may be refilled
      //             (about 1 line).
    }
    fence_barrier_init();
  }
  // TODO(1.14): the peer block will multicast into this block's stages and arrive on its barriers:
  //             none of that may happen before they are initialised (about 2 lines).

  // Both roles of both blocks walk the same sequence of (pair, k tile) steps, step i on stage
  // i % STAGES.
  if (warpgroup == 0) {
    setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      // TODO(1.14): feed every step the consumers take, as in 1.13, but load only this block's half of
      //             the shared B tile and send it to both blocks; a stage may be refilled only when
      //             nobody in the cluster still reads it, and full[] must expect every byte that lands
      //             here, wherever it was issued (about 16 lines).
    }
  } else {
    setmaxnreg_inc<kConsumerRegisters>();
    const int consumer = warpgroup - 1, t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
    float* my_staging = staging + consumer * kStoreBuffers * kStoreBox;
    int i = 0, stores = 0;
    float acc[Mma::kRegs];
    for (int p = cluster; p < pairs; p += clusters) {
      const TileCoord tile = cluster_tile(p, pairs_m, tiles_n, rank, GROUP);
#pragma unroll
      for (int r = 0; r < Mma::kRegs; ++r) acc[r] = 0.0f;
      for (int kt = 0; kt < k_tiles; ++kt, ++i) {
        const int stage = i % STAGES;
        // TODO(1.14): wait until every byte of step i has landed here, bounded (about 1 line).
        const __nv_bfloat16* a_tile = As + stage * kBM * kBK + consumer * 64 * kBK;
        const __nv_bfloat16* b_tile = Bs + stage * BN * kBK;
        wgmma_fence_operands(acc);
        wgmma_fence();
#pragma unroll
        for (int k = 0; k < kBK / 16; ++k)
          Mma::mma(acc, smem_descriptor_sw128(a_tile + 16 * k), smem_descriptor_sw128(b_tile + 16 * k), 1);
        wgmma_commit_group();
        // As in 1.13: this warpgroup's wgmma have read the stage once the wait returns. Waiting here,
        // in every thread of the warpgroup and outside any branch, also keeps the accumulators out of
        // ptxas's way: no warpgroup.wait of its own making (C7517), no serialised wgmma (C7518).
        wgmma_wait_group<0>();
        wgmma_fence_operands(acc);
        // TODO(1.14): hand the stage back to every producer that will refill it (about 2 lines).
      }
      // Epilogue; the producer is already loading the next pair's stages.
      const int m0 = tile.m * kBM + consumer * 64, n0 = tile.n * BN;
      if (m0 < M) {  // the same for the whole warpgroup: the second tile of the last pair may lie past M
        if constexpr (TMA_STORE) {
          store_tile_tma<BN>(&map_c, my_staging, stores, acc, C, M, N, m0, n0, alpha, beta, consumer);
        } else {
#pragma unroll
          for (int j = 0; j < BN / 8; ++j) {
            const int row = m0 + warp * 16 + lane / 4, col = n0 + j * 8 + (lane % 4) * 2;
            store_pair(C, M, N, row, col, alpha, beta, acc[4 * j], acc[4 * j + 1]);
            store_pair(C, M, N, row + 8, col, alpha, beta, acc[4 * j + 2], acc[4 * j + 3]);
          }
        }
      }
    }
    if (TMA_STORE && t == 0) bulk_wait_group_all();  // our stores have read the staging and written C
  }
  // TODO(1.14): no block may leave while its peer may still arrive on or multicast into its shared
  //             memory (about 2 lines).
}

// Clusters that fit on the GPU at once (cudaOccupancyMaxActiveClusters), asked once per device.
template <typename Kernel>
int resident_clusters(Kernel kernel, cudaLaunchConfig_t config) {
  static int cached[64] = {};
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  if (device < 64 && cached[device] > 0) return cached[device];
  config.gridDim = dim3(kCluster);
  int clusters = 0;
  CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &config));
  if (clusters <= 0) clusters = wb::current_sm_count() / kCluster;
  if (device < 64) cached[device] = clusters;
  return clusters;
}

template <int BN, int STAGES, int GROUP, bool TMA_STORE>
void launch_cluster(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                    float* C, cudaStream_t stream) {
  constexpr int kSmemBytes = STAGES * (kBM + BN) * kBK * int(sizeof(__nv_bfloat16)) +
                             kConsumers * kStoreBuffers * kStoreBox * int(sizeof(float)) +
                             2 * STAGES * int(sizeof(std::uint64_t)) + 1024;
  const CUtensorMap map_a = make_tensor_map_bf16(A, M, K, kBM);
  const CUtensorMap map_b = make_tensor_map_bf16(B, N, K, BN / kCluster);  // boxes of half a B tile
  CUtensorMap map_c{};
  if (TMA_STORE) map_c = make_tensor_map_f32(C, M, N, kStoreRows, kStoreCols);
  const auto kernel = cluster_kernel<BN, STAGES, GROUP, TMA_STORE>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  cudaLaunchAttribute cluster_dim[1];
  cluster_dim[0].id = cudaLaunchAttributeClusterDimension;
  cluster_dim[0].val.clusterDim.x = kCluster;
  cluster_dim[0].val.clusterDim.y = 1;
  cluster_dim[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kSmemBytes;
  config.stream = stream;
  config.attrs = cluster_dim;
  config.numAttrs = 1;
  // Persistent: one block per SM, and only as many clusters as the rounds need. At 4096, 256 pairs take
  // 4 rounds on the 66 clusters that fit; 64 clusters take 4 pairs each, where 66 would leave 8 of
  // them a round idle (the worklog runs 128 SMs too). On an H100: 0-0.9% faster in the same runs.
  const long long pairs = static_cast<long long>(wb::ceil_div(wb::ceil_div(M, kBM), kCluster)) * wb::ceil_div(N, BN);
  const long long rounds = wb::ceil_div(pairs, static_cast<long long>(resident_clusters(kernel, config)));
  config.gridDim = dim3(static_cast<unsigned>(kCluster * wb::ceil_div(pairs, rounds)));
  CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, map_a, map_b, map_c, M, N, K, alpha, beta, C));
  CUDA_CHECK_KERNEL();
}

}  // namespace

// 128 x 256 tiles per block, clusters of 2 along M sharing each B tile, 4 stages of 48 KB, groups of 8
// tile pairs (16 tile rows; groups of 4 ran 1-2% slower at 4096 and 8192). C goes out through TMA
// stores where its rows allow (N % 4 == 0, C 16-byte aligned), from registers otherwise (3% slower).
// Measured on an H100: 98% of cuBLAS at 4096, 100% at 8192; keeping one wgmma batch in flight
// (wgmma_wait_group<1>, releasing the previous stage) added 0.5%.
void matmul_cluster_bf16(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                         float* C, cudaStream_t stream) {
  if (M == 0 || N == 0) return;
  if (!bf16_fast_path_ok(K, A, B)) return matmul_bf16_fallback(M, N, K, alpha, A, B, beta, C, stream);
  if (N % 4 == 0 && reinterpret_cast<std::uintptr_t>(C) % 16 == 0)
    launch_cluster<256, 4, 8, true>(M, N, K, alpha, A, B, beta, C, stream);
  else
    launch_cluster<256, 4, 8, false>(M, N, K, alpha, A, B, beta, C, stream);
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: per K step a block asks L2 for its A tile (16 KB) and half of B (16 KB) instead of 48
// KB: a third less traffic for the same 128 x 256 x 64 products, while the tensor cores' work is 1.13's.
int cluster_multicast_lesson(wb::Lesson& lesson) {
  return p1::run_bf16_matmul_lesson(lesson, "matmul_cluster_bf16", matmul_cluster_bf16);
}

}  // namespace

WB_LESSON(cluster_multicast_lesson, "thread-block clusters: one B tile multicast to two blocks");
