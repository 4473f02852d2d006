// SPDX-License-Identifier: MIT
// Planted bugs of 1.14 (clusters, TMA multicast; compiled for sm_90a only: workbook_grader_selftest's
// SOURCES_90A in phase1_matmul/CMakeLists.txt): one compact cluster kernel in the shape of 1.14 (a
// producer warpgroup, two consumer warpgroups, clusters of two blocks along M sharing each 128 x 128 B
// tile, 3 stages, one pair of tiles per cluster), correct or with one bug a learner makes.
//   MaskMissingPeer  each block multicasts its half of B to itself only: the peer's full[] never gets
//                    those bytes, and its bounded wait stops the kernel (the case fails while running)
//   LocalRelease     each consumer releases a stage in its own block only: the producers wait for the
//                    peer's arrivals, which never come, and the bounded wait stops the kernel
//   SameRank         both blocks load the half of B that belongs to rank 0 (a rank from blockIdx.y, say):
//                    the other half of every B tile is never written, so half of the columns are wrong
//   PerBlockTiles    tiles numbered per block, not per cluster: with an odd count of tile rows the two
//                    blocks of a cluster work on different B tiles and swap halves of them: wrong values
//   NoExitSync       no cluster barrier before exit: a block may leave while its peer still arrives on
//                    its barriers. A race that runs rarely show; the source check (hopper_order_check.py)
//                    fails it. The self-test's [.race] case measures how often a run shows it.
// The two that stop the kernel lose the GPU context, so each runs alone (hidden cases, CTest
// gpu.p1.grader-cluster-*).
#include <cuda_bf16.h>

#include <cstdint>

#include "common/check.h"
#include "common/util.h"
#include "phase1_matmul/hopper.cuh"
#include "phase1_matmul/mma_sm80.cuh"
#include "phase1_matmul/tests/wrong_kernels.h"

namespace {

using namespace wb::hopper;
using namespace wb::mma;

enum class ClusterBug { None, MaskMissingPeer, LocalRelease, SameRank, PerBlockTiles, NoExitSync };

constexpr int kBK = 64, kBM = 128, kBN = 128, kStages = 3, kCluster = 2, kHalf = kBN / kCluster;
constexpr int kConsumers = 2, kThreads = (kConsumers + 1) * 128;

template <ClusterBug BUG>
__global__ void __launch_bounds__(kThreads, 1)
    planted_cluster_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int M,
                           int N, int K, float alpha, float beta, float* __restrict__ C) {
  constexpr std::uint32_t kStageBytes = (kBM + kBN) * kBK * sizeof(__nv_bfloat16);
  using Mma = WgmmaBf16<kBN>;
  extern __shared__ unsigned char smem_raw[];
  __nv_bfloat16* As = reinterpret_cast<__nv_bfloat16*>(align_1024(smem_raw));
  __nv_bfloat16* Bs = As + kStages * kBM * kBK;
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(Bs + kStages * kBN * kBK);
  std::uint64_t* empty = full + kStages;
  const int tiles_m = wb::ceil_div(M, kBM), pairs_m = wb::ceil_div(tiles_m, kCluster);
  const int rank = static_cast<int>(cluster_ctarank());
  const int half = BUG == ClusterBug::SameRank ? static_cast<int>(blockIdx.y) : rank;  // blockIdx.y is 0
  int tile_m, tile_n;
  if (BUG == ClusterBug::PerBlockTiles) {
    tile_m = static_cast<int>(blockIdx.x) % tiles_m;
    tile_n = static_cast<int>(blockIdx.x) / tiles_m;
  } else {
    const int cluster = static_cast<int>(blockIdx.x) / kCluster;
    tile_m = (cluster % pairs_m) * kCluster + rank;
    tile_n = cluster / pairs_m;
  }
  const int k_tiles = wb::ceil_div(K, kBK);
  const int warpgroup = threadIdx.x / 128;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      mbarrier_init(&full[s], 1);
      mbarrier_init(&empty[s], kConsumers * kCluster);
    }
    fence_barrier_init();
  }
  cluster_arrive();
  cluster_wait();
  if (warpgroup == 0) {
    if (threadIdx.x == 0) {
      const auto mask = static_cast<std::uint16_t>(BUG == ClusterBug::MaskMissingPeer ? 1u << rank : 3u);
      for (int kt = 0; kt < k_tiles; ++kt) {
        const int stage = kt % kStages;
        mbarrier_wait_cluster_or_stop(&empty[stage], ((kt / kStages) & 1) ^ 1);
        mbarrier_arrive_expect_tx(&full[stage], kStageBytes);
        tma_load_2d(As + stage * kBM * kBK, &map_a, &full[stage], kt * kBK, tile_m * kBM);
        tma_load_2d_multicast(Bs + stage * kBN * kBK + half * kHalf * kBK, &map_b, &full[stage], kt * kBK,
                              tile_n * kBN + half * kHalf, mask);
      }
    }
  } else {
    const int consumer = warpgroup - 1, t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
    float acc[Mma::kRegs];
#pragma unroll
    for (int r = 0; r < Mma::kRegs; ++r) acc[r] = 0.0f;
    for (int kt = 0; kt < k_tiles; ++kt) {
      const int stage = kt % kStages;
      mbarrier_wait_or_stop(&full[stage], (kt / kStages) & 1);
      const __nv_bfloat16* a_tile = As + stage * kBM * kBK + consumer * 64 * kBK;
      const __nv_bfloat16* b_tile = Bs + stage * kBN * kBK;
      wgmma_fence_operands(acc);
      wgmma_fence();
#pragma unroll
      for (int k = 0; k < kBK / 16; ++k)
        Mma::mma(acc, smem_descriptor_sw128(a_tile + 16 * k), smem_descriptor_sw128(b_tile + 16 * k), 1);
      wgmma_commit_group();
      wgmma_wait_group<0>();
      wgmma_fence_operands(acc);
      if (t == 0) {
        if (BUG == ClusterBug::LocalRelease) {
          mbarrier_arrive_cluster(map_to_rank(&empty[stage], static_cast<std::uint32_t>(rank)));
        } else {
          for (int r = 0; r < kCluster; ++r) mbarrier_arrive_cluster(map_to_rank(&empty[stage], r));
        }
      }
    }
    if (tile_m < tiles_m) {
#pragma unroll
      for (int j = 0; j < kBN / 8; ++j) {
        const int row = tile_m * kBM + consumer * 64 + warp * 16 + lane / 4,
                  col = tile_n * kBN + j * 8 + (lane % 4) * 2;
        store_pair(C, M, N, row, col, alpha, beta, acc[4 * j], acc[4 * j + 1]);
        store_pair(C, M, N, row + 8, col, alpha, beta, acc[4 * j + 2], acc[4 * j + 3]);
      }
    }
  }
  if (BUG != ClusterBug::NoExitSync) {
    cluster_arrive();
    cluster_wait();
  }
}

template <ClusterBug BUG>
void launch_planted_cluster(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                            float beta, float* C, cudaStream_t stream) {
  if (M == 0 || N == 0) return;
  if (!bf16_fast_path_ok(K, A, B)) return matmul_bf16_fallback(M, N, K, alpha, A, B, beta, C, stream);
  constexpr int kSmemBytes = kStages * (kBM + kBN) * kBK * 2 + 2 * kStages * 8 + 1024;
  const CUtensorMap map_a = make_tensor_map_bf16(A, M, K, kBM);
  const CUtensorMap map_b = make_tensor_map_bf16(B, N, K, kHalf);
  const auto kernel = planted_cluster_kernel<BUG>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  cudaLaunchAttribute cluster_dim[1];
  cluster_dim[0].id = cudaLaunchAttributeClusterDimension;
  cluster_dim[0].val.clusterDim.x = kCluster;
  cluster_dim[0].val.clusterDim.y = 1;
  cluster_dim[0].val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  const int pairs = wb::ceil_div(wb::ceil_div(M, kBM), kCluster) * wb::ceil_div(N, kBN);
  config.gridDim = dim3(static_cast<unsigned>(kCluster * pairs));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kSmemBytes;
  config.stream = stream;
  config.attrs = cluster_dim;
  config.numAttrs = 1;
  CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, map_a, map_b, M, N, K, alpha, beta, C));
  CUDA_CHECK_KERNEL();
}

}  // namespace

void planted_cluster_correct(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                             float beta, float* C, cudaStream_t stream) {
  launch_planted_cluster<ClusterBug::None>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_cluster_mask_missing_peer(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                       float beta, float* C, cudaStream_t stream) {
  launch_planted_cluster<ClusterBug::MaskMissingPeer>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_cluster_local_release(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                   float beta, float* C, cudaStream_t stream) {
  launch_planted_cluster<ClusterBug::LocalRelease>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_cluster_same_rank(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                               float beta, float* C, cudaStream_t stream) {
  launch_planted_cluster<ClusterBug::SameRank>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_cluster_per_block_tiles(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                     float beta, float* C, cudaStream_t stream) {
  launch_planted_cluster<ClusterBug::PerBlockTiles>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_cluster_no_exit_sync(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                  float beta, float* C, cudaStream_t stream) {
  launch_planted_cluster<ClusterBug::NoExitSync>(M, N, K, alpha, A, B, beta, C, stream);
}

// The plants a graded run names (the ones that stop the kernel run alone: cluster_stopping_plants).
std::vector<Bf16Plant> cluster_bf16_plants() {
  return {
      {"a correct cluster kernel, exact inputs", planted_cluster_correct, {300, 258, 520, 2.0f, -1.0f}, true, ""},
      {"a correct cluster kernel, random inputs", planted_cluster_correct, {1000, 1000, 1000, 0.5f, 2.0f}, false, ""},
      {"both blocks of a cluster loading rank 0's half of B",
       planted_cluster_same_rank,
       {256, 256, 512, 1.0f, 0.0f},
       true,
       "elements wrong"},
      {"tiles numbered per block, not per cluster (3 tile rows)",
       planted_cluster_per_block_tiles,
       {300, 256, 512, 1.0f, 0.0f},
       true,
       "elements wrong"},
  };
}

std::vector<Bf16Plant> cluster_stopping_plants() {
  return {
      {"a multicast mask that leaves out the peer",
       planted_cluster_mask_missing_peer,
       {256, 256, 512, 1.0f, 0.0f},
       true,
       "failed while running"},
      {"a stage released in this block only",
       planted_cluster_local_release,
       {256, 256, 512, 1.0f, 0.0f},
       true,
       "failed while running"},
  };
}
