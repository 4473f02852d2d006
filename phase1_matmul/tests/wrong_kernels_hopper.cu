// SPDX-License-Identifier: MIT
// Planted bugs of the Hopper rungs 1.11-1.13 (compiled for sm_90a only: workbook_grader_selftest's
// SOURCES_90A in phase1_matmul/CMakeLists.txt): one compact TMA + mbarrier + wgmma kernel in the
// shape of 1.12 (two warpgroups, 128 x 128 tiles, 3 stages), correct or with one bug a learner
// makes, and the diagnosis the grader must give.
//   WrongSwizzle   the descriptors say "no swizzle" while TMA wrote the tile 128-byte swizzled
//   EarlyRefill    refills a stage right after committing the wgmma that read it, before waiting
//                  (a race: on an H100 a graded run caught it 10 of 10 times at 256x256x4096 and at
//                  2048^3; the grade's source check, tools/hopper_order_check.py, fails it regardless)
//   WrongParity    waits on the parity of the phase before the one it needs (returns at once); not
//                  in the list: the block then exits with copies in flight and the launch fails,
//                  which leaves the CUDA context unusable for the plants after it
// A missing fence.proxy.async is left to the source check: today's H100 shows no wrong result for it.
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

enum class HopperBug { None, WrongSwizzle, WrongParity, EarlyRefill };

constexpr int kBK = 64, kBM = 128, kBN = 128, kStages = 3;

template <HopperBug BUG>
__global__ void __launch_bounds__(256)
    planted_tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, int M,
                       int N, int K, float alpha, float beta, float* __restrict__ C) {
  constexpr std::uint32_t kStageBytes = (kBM + kBN) * kBK * sizeof(__nv_bfloat16);
  using Mma = WgmmaBf16<kBN>;
  extern __shared__ unsigned char smem_raw[];
  unsigned char* base = align_1024(smem_raw);
  __nv_bfloat16* As = reinterpret_cast<__nv_bfloat16*>(base);
  __nv_bfloat16* Bs = As + kStages * kBM * kBK;
  std::uint64_t* full = reinterpret_cast<std::uint64_t*>(Bs + kStages * kBN * kBK);
  const int warpgroup = threadIdx.x / 128, warp = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  const int k_tiles = wb::ceil_div(K, kBK);
  auto issue = [&](int stage, int kt) {
    mbarrier_arrive_expect_tx(&full[stage], kStageBytes);
    tma_load_2d(As + stage * kBM * kBK, &map_a, &full[stage], kt * kBK, m0);
    tma_load_2d(Bs + stage * kBN * kBK, &map_b, &full[stage], kt * kBK, n0);
  };
  auto descriptor = [](const void* p) {
    const std::uint64_t d = smem_descriptor_sw128(p);
    return BUG == HopperBug::WrongSwizzle ? d & ~(std::uint64_t(3) << 62) : d;
  };
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) mbarrier_init(&full[s], 1);
    fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0)
    for (int s = 0; s < kStages && s < k_tiles; ++s) issue(s, s);
  float acc[Mma::kRegs];
#pragma unroll
  for (int i = 0; i < Mma::kRegs; ++i) acc[i] = 0.0f;
  for (int kt = 0; kt < k_tiles; ++kt) {
    const int stage = kt % kStages;
    const std::uint32_t parity = (kt / kStages) & 1;
    mbarrier_wait(&full[stage], BUG == HopperBug::WrongParity ? parity ^ 1 : parity);
    const __nv_bfloat16* a_tile = As + stage * kBM * kBK + warpgroup * 64 * kBK;
    const __nv_bfloat16* b_tile = Bs + stage * kBN * kBK;
    wgmma_fence_operands(acc);
    wgmma_fence();
#pragma unroll
    for (int k = 0; k < kBK / 16; ++k) Mma::mma(acc, descriptor(a_tile + 16 * k), descriptor(b_tile + 16 * k), 1);
    wgmma_commit_group();
    if constexpr (BUG == HopperBug::EarlyRefill) {
      // The bug: the stage goes back to the copy engine while the batch that reads it may still run.
      if (threadIdx.x == 0 && kt + kStages < k_tiles) issue(stage, kt + kStages);
      wgmma_wait_group<0>();
      wgmma_fence_operands(acc);
      __syncthreads();  // (the other warpgroup may also still read it: the barrier comes too late)
    } else {
      wgmma_wait_group<0>();
      wgmma_fence_operands(acc);
      __syncthreads();
      if (threadIdx.x == 0 && kt + kStages < k_tiles) issue(stage, kt + kStages);
    }
  }
  // Drain: every load issued has landed before the block exits, whatever the bug did to the waits.
  for (int kt = k_tiles - kStages > 0 ? k_tiles - kStages : 0; kt < k_tiles; ++kt)
    mbarrier_wait(&full[kt % kStages], (kt / kStages) & 1);
#pragma unroll
  for (int j = 0; j < kBN / 8; ++j) {
    const int row = m0 + warpgroup * 64 + warp * 16 + lane / 4, col = n0 + j * 8 + (lane % 4) * 2;
    store_pair(C, M, N, row, col, alpha, beta, acc[4 * j], acc[4 * j + 1]);
    store_pair(C, M, N, row + 8, col, alpha, beta, acc[4 * j + 2], acc[4 * j + 3]);
  }
}

template <HopperBug BUG>
void launch_planted(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B, float beta,
                    float* C, cudaStream_t stream) {
  if (M == 0 || N == 0) return;
  if (!bf16_fast_path_ok(K, A, B)) return matmul_bf16_fallback(M, N, K, alpha, A, B, beta, C, stream);
  constexpr int kSmemBytes = kStages * (kBM + kBN) * kBK * 2 + kStages * 8 + 1024;
  const CUtensorMap map_a = make_tensor_map_bf16(A, M, K, kBM);
  const CUtensorMap map_b = make_tensor_map_bf16(B, N, K, kBN);
  const auto kernel = planted_tma_kernel<BUG>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  const dim3 grid(static_cast<unsigned>(wb::ceil_div(N, kBN)), static_cast<unsigned>(wb::ceil_div(M, kBM)));
  kernel<<<grid, 256, kSmemBytes, stream>>>(map_a, map_b, M, N, K, alpha, beta, C);
  CUDA_CHECK_KERNEL();
}

}  // namespace

void planted_hopper_correct(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                            float beta, float* C, cudaStream_t stream) {
  launch_planted<HopperBug::None>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_hopper_wrong_swizzle(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                  float beta, float* C, cudaStream_t stream) {
  launch_planted<HopperBug::WrongSwizzle>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_hopper_wrong_parity(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                 float beta, float* C, cudaStream_t stream) {
  launch_planted<HopperBug::WrongParity>(M, N, K, alpha, A, B, beta, C, stream);
}
void planted_hopper_early_refill(int M, int N, int K, float alpha, const __nv_bfloat16* A, const __nv_bfloat16* B,
                                 float beta, float* C, cudaStream_t stream) {
  launch_planted<HopperBug::EarlyRefill>(M, N, K, alpha, A, B, beta, C, stream);
}

std::vector<Bf16Plant> hopper_bf16_plants() {
  return {
      {"a correct TMA + wgmma kernel, exact inputs", planted_hopper_correct, {127, 129, 136, 2.0f, -1.0f}, true, ""},
      {"a correct TMA + wgmma kernel, random inputs",
       planted_hopper_correct,
       {1000, 1000, 1000, 0.5f, 2.0f},
       false,
       ""},
      {"descriptors without the swizzle the TMA wrote",
       planted_hopper_wrong_swizzle,
       {256, 256, 256, 1.0f, 0.0f},
       true,
       "The wrong elements are spread over C"},
      {"a stage refilled before the wgmma that read it finished",
       planted_hopper_early_refill,
       {256, 256, 4096, 1.0f, 0.0f},
       false,
       "elements wrong"},
  };
}
