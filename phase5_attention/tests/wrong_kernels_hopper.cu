// SPDX-License-Identifier: MIT
// Planted bugs of 5.08 flash_hopper (compiled for sm_90a only: workbook_grader_selftest's SOURCES_90A in
// phase5_attention/CMakeLists.txt): the solution's kernel (128 query rows, 128-key tiles, ping-pong),
// its device helpers copied as they stand, with one bug a learner makes switched on.
//   WrongParity        the consumers wait on the parity of the phase before the one that lands their tile:
//                      the wait either returns before the tile has landed (stale or half-written K or V)
//                      or waits for a phase that needs its own release (the bounded wait traps after 2 s,
//                      and the CUDA context is lost: the self-test runs it alone, [planted-parity])
//   OutputNotRescaled  O is not multiplied by exp2(m_old - m_new) when the max moves (l is)
//   SkipsDiagonalTile  causal: a block visits the key tiles before its diagonal one only
//   TailUnmasked       the last key tile's keys past seq_k are not masked (the tile's first key is tested
//                      against seq_k, not its last; TMA fills the keys past it with zeros)
//   LseBase2           L left in exp2's units: m log2(e) + log2(l)
//   EarlyRelease       the stage goes back to the producer (arrive on empty) before wgmma_wait_group
//                      retires the P V that reads it: a race no run is sure to show
//   NoStoreFence       no fence.proxy.async between the threads' writes of O and the TMA store: on
//                      today's H100 no run shows it
// The last two are the source check's (tools/hopper_order_check.py, host.p1.hopper-order-check); the
// self-test's [.race] case measures how often a graded run sees them.
#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/check.h"
#include "common/util.h"
#include "phase1_matmul/hopper.cuh"
#include "phase1_matmul/mma_sm80.cuh"
#include "phase5_attention/attention.cuh"
#include "phase5_attention/tests/wrong_kernels.h"

namespace {

using namespace wb::hopper;
using wb::mma::pack_bf16x2;

enum class HopperBug {
  None,
  WrongParity,
  OutputNotRescaled,
  SkipsDiagonalTile,
  TailUnmasked,
  LseBase2,
  EarlyRelease,
  NoStoreFence
};

// ---- from solutions/phase5_attention/08_flash_hopper.cu, unchanged ---------------------------------

constexpr float kLog2e = 1.4426950408889634f;
constexpr int kConsumers = 2;                     // consumer warpgroups, 64 query rows each
constexpr int kBR = 64 * kConsumers;              // query rows per block
constexpr int kThreads = (kConsumers + 1) * 128;  // + the producer warpgroup
// setmaxnreg: 128 x 40 + 256 x 232 = 64512 of the SM's 65536 registers. A consumer holds S (64 FP32),
// O (D / 2 FP32), P (32 BF16 pairs) and its row statistics at once.
constexpr int kProducerRegisters = 40, kConsumerRegisters = 232;

// Shared memory: the Q tile, STAGES K tiles, STAGES V tiles, then the barriers. A [ROWS][D] tile is
// D / 64 column blocks, each [ROWS][64] BF16 with the 128-byte swizzle, as TMA writes them and as the
// wgmma descriptors read them (1.12).
template <int D, int BC, int STAGES>
struct Layout {
  static constexpr int kQ = kBR * D, kK = BC * D;  // elements of a Q tile and of a K (or V) tile
  static constexpr int kBytes =
      (kQ + 2 * STAGES * kK) * int(sizeof(__nv_bfloat16)) + (1 + 3 * STAGES) * int(sizeof(std::uint64_t));
};

// A bounded mbarrier wait: a wait that cannot complete (a wrong parity, a byte count that never
// arrives) stops the kernel after about 2 s (trap: the launch fails) instead of hanging the GPU. No
// printf here: a function call inside the loop would serialise every wgmma around it (and spill).
__device__ inline void wait_or_stop(std::uint64_t* bar, std::uint32_t parity) {
  if (!mbarrier_wait_bounded(bar, parity)) __trap();
}

// Scores S = Q K^T of this warpgroup's 64 query rows against one K tile: D / 16 wgmma m64n128k16,
// issued and committed as one group (not waited for).
template <int D, int BC>
__device__ inline void issue_scores(float (&s)[BC / 2], const __nv_bfloat16* q_rows, const __nv_bfloat16* k_tile) {
  wgmma_fence_operands(s);
  wgmma_fence();
#pragma unroll
  for (int kd = 0; kd < D / 16; ++kd) {
    const int block = kd / 4, col = (kd % 4) * 16;  // 16 columns of d inside a 64-column block
    WgmmaBf16<BC>::mma(s, smem_descriptor_sw128(q_rows + block * kBR * 64 + col),
                       smem_descriptor_sw128(k_tile + block * BC * 64 + col), kd > 0);
  }
  wgmma_commit_group();
}

// O += P V for one V tile: BC / 16 wgmma m64nDk16, P from registers (p[kk]: keys 16 kk..16 kk + 15),
// V MN-major (its rows are the keys, the k of this product). One committed group.
template <int D, int BC>
__device__ inline void issue_pv(float (&o)[D / 2], std::uint32_t (&p)[BC / 16][4], const __nv_bfloat16* v_tile) {
  wgmma_fence_operands(o);
#pragma unroll
  for (int kk = 0; kk < BC / 16; ++kk) wgmma_fence_operands(p[kk]);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < BC / 16; ++kk)
    WgmmaBf16RS<D>::mma(o, p[kk], smem_descriptor_sw128_mn(v_tile + kk * 16 * 64, BC * 128), 1);
  wgmma_commit_group();
}

// The online softmax of one tile of scores, in place: masks (keys past seq_k; causal: keys after the
// row), updates the running max and sum of the thread's two rows, and leaves the unnormalised
// probabilities in s; correction[h] is what O's row h must be multiplied by before P V is added.
// Thread layout (hopper.cuh, WgmmaBf16): s[4 j + 2 h + e] is row lane / 4 + 8 h of the warp's 16,
// key 8 j + 2 (lane % 4) + e of the tile; a row's 128 keys live in the 4 lanes of a quad.
template <int BC, bool CAUSAL>
__device__ inline void softmax_tile(float (&s)[BC / 2], float (&row_max)[2], float (&row_sum)[2],
                                    float (&correction)[2], bool mask, int key0, int row0, int seq_k, int lane,
                                    float scale_log2) {
  if (mask) {
#pragma unroll
    for (int j = 0; j < BC / 8; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int key = key0 + 8 * j + 2 * (lane % 4) + (e & 1), row = row0 + 8 * (e / 2);
        if (key >= seq_k || (CAUSAL && key > row)) s[4 * j + e] = -INFINITY;
      }
  }
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    float m = row_max[h];
#pragma unroll
    for (int j = 0; j < BC / 8; ++j) m = fmaxf(m, fmaxf(s[4 * j + 2 * h], s[4 * j + 2 * h + 1]));
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
    m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
    // All keys so far masked: m = -inf, and subtracting 0 keeps every exp2 at 0 instead of NaN.
    const float m_scaled = m == -INFINITY ? 0.0f : m * scale_log2;
    correction[h] = exp2f(row_max[h] * scale_log2 - m_scaled);
    row_max[h] = m;
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < BC / 8; ++j) {
      s[4 * j + 2 * h] = exp2f(fmaf(s[4 * j + 2 * h], scale_log2, -m_scaled));
      s[4 * j + 2 * h + 1] = exp2f(fmaf(s[4 * j + 2 * h + 1], scale_log2, -m_scaled));
      sum += s[4 * j + 2 * h] + s[4 * j + 2 * h + 1];
    }
    row_sum[h] = row_sum[h] * correction[h] + sum;
  }
}

// The probabilities rounded to BF16 pairs in wgmma's A layout: keys 16 kk.. are n8 blocks 2 kk, 2 kk + 1.
template <int BC>
__device__ inline void to_bf16(std::uint32_t (&p)[BC / 16][4], const float (&s)[BC / 2]) {
#pragma unroll
  for (int kk = 0; kk < BC / 16; ++kk) {
    p[kk][0] = pack_bf16x2(s[8 * kk + 0], s[8 * kk + 1]);
    p[kk][1] = pack_bf16x2(s[8 * kk + 2], s[8 * kk + 3]);
    p[kk][2] = pack_bf16x2(s[8 * kk + 4], s[8 * kk + 5]);
    p[kk][3] = pack_bf16x2(s[8 * kk + 6], s[8 * kk + 7]);
  }
}

// O's rows times their correction factors (o[4 i + 2 h + e] is row h of the thread's two).
template <int D>
__device__ inline void rescale(float (&o)[D / 2], const float (&correction)[2]) {
#pragma unroll
  for (int i = 0; i < D / 8; ++i) {
    o[4 * i] *= correction[0];
    o[4 * i + 1] *= correction[0];
    o[4 * i + 2] *= correction[1];
    o[4 * i + 3] *= correction[1];
  }
}

// ---- the solution's kernel, each bug behind `if constexpr (BUG == ...)` ------------------------------

template <HopperBug BUG, int D, bool CAUSAL>
__global__ void __launch_bounds__(kThreads, 1)
    planted_flash_hopper_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                                const __grid_constant__ CUtensorMap map_v, const __grid_constant__ CUtensorMap map_o,
                                float* __restrict__ L, int heads, int seq_q, int seq_k, float scale_log2) {
  constexpr int BC = 128, STAGES = D == 64 ? 3 : 2;
  constexpr bool PINGPONG = true;
  using Lay = Layout<D, BC, STAGES>;
  extern __shared__ unsigned char smem_raw[];
  __nv_bfloat16* Qs = reinterpret_cast<__nv_bfloat16*>(align_1024(smem_raw));
  __nv_bfloat16* Ks = Qs + Lay::kQ;
  __nv_bfloat16* Vs = Ks + STAGES * Lay::kK;
  std::uint64_t* q_full = reinterpret_cast<std::uint64_t*>(Vs + STAGES * Lay::kK);
  std::uint64_t* k_full = q_full + 1;       // a K tile has landed
  std::uint64_t* v_full = k_full + STAGES;  // a V tile has landed
  std::uint64_t* empty = v_full + STAGES;   // both consumers are done with a stage (its K and V)

  // Causal: the query tiles with the most key tiles start first (5.04's longest-first order), every
  // head's before the next; otherwise a head's query tiles run side by side and share its K and V in L2.
  const int q_tiles = wb::ceil_div(seq_q, kBR);
  const int tile = CAUSAL ? q_tiles - 1 - static_cast<int>(blockIdx.x / heads) : static_cast<int>(blockIdx.x % q_tiles);
  const int head = CAUSAL ? static_cast<int>(blockIdx.x % heads) : static_cast<int>(blockIdx.x / q_tiles);
  const int q0 = tile * kBR;
  // Causal (seq_q == seq_k): keys past the block's last query row are masked for all of its rows.
  const int key_tiles = CAUSAL ? wb::ceil_div(min(seq_k, q0 + kBR), BC) - (BUG == HopperBug::SkipsDiagonalTile ? 1 : 0)
                               : wb::ceil_div(seq_k, BC);
  const int warpgroup = threadIdx.x / 128;

  if (threadIdx.x == 0) {
    mbarrier_init(q_full, 1);
    for (int s = 0; s < STAGES; ++s) {
      mbarrier_init(&k_full[s], 1);
      mbarrier_init(&v_full[s], 1);
      mbarrier_init(&empty[s], kConsumers);
    }
    fence_barrier_init();
  }
  __syncthreads();

  if (warpgroup == 0) {
    // ---- producer: one thread issues every load -----------------------------------------------------
    setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      mbarrier_arrive_expect_tx(q_full, kBR * D * sizeof(__nv_bfloat16));
#pragma unroll
      for (int b = 0; b < D / 64; ++b) tma_load_3d(Qs + b * kBR * 64, &map_q, q_full, b * 64, q0, head);
      for (int j = 0; j < key_tiles; ++j) {
        const int stage = j % STAGES;
        constexpr std::uint32_t kTileBytes = BC * D * sizeof(__nv_bfloat16);
        // A fresh barrier counts the phase before phase 0 (parity 1) as complete: the first pass over
        // the ring waits for nothing, later passes for both consumers' release.
        wait_or_stop(&empty[stage], ((j / STAGES) & 1) ^ 1);
        mbarrier_arrive_expect_tx(&k_full[stage], kTileBytes);
#pragma unroll
        for (int b = 0; b < D / 64; ++b)
          tma_load_3d(Ks + stage * Lay::kK + b * BC * 64, &map_k, &k_full[stage], b * 64, j * BC, head);
        mbarrier_arrive_expect_tx(&v_full[stage], kTileBytes);
#pragma unroll
        for (int b = 0; b < D / 64; ++b)
          tma_load_3d(Vs + stage * Lay::kK + b * BC * 64, &map_v, &v_full[stage], b * 64, j * BC, head);
      }
    }
    return;
  }

  // ---- consumers ----------------------------------------------------------------------------------
  setmaxnreg_inc<kConsumerRegisters>();
  const int consumer = warpgroup - 1, t = threadIdx.x % 128, warp = t / 32, lane = t % 32;
  const int wg_row0 = q0 + consumer * 64;           // its first query row (of the head)
  const int row0 = wg_row0 + warp * 16 + lane / 4;  // the thread's rows: row0 and row0 + 8

  float o[D / 2];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) o[i] = 0.0f;
  float row_max[2] = {-INFINITY, -INFINITY}, row_sum[2] = {0.0f, 0.0f};
  // Tiles that need the mask: the last (keys past seq_k) and, causal, those reaching past the
  // warpgroup's first row.
  auto needs_mask = [&](int j) {
    const int key_end = (j + 1) * BC;
    if constexpr (BUG == HopperBug::TailUnmasked) {  // the tile's first key tested: never past seq_k
      return j * BC >= seq_k || (CAUSAL && key_end - 1 > wg_row0);
    } else {
      return key_end > seq_k || (CAUSAL && key_end - 1 > wg_row0);
    }
  };

  wait_or_stop(q_full, 0);
  // Planted kernels only: a block with no key tile (SkipsDiagonalTile's first) writes O = 0, L = -inf.
  if (key_tiles > 0) {
    const __nv_bfloat16* q_rows = Qs + consumer * 64 * 64;  // this warpgroup's 64 rows of each column block
    float s[BC / 2];                                        // scores, then probabilities
    std::uint32_t p[BC / 16][4];                            // the probabilities as P V's A operand
    float correction[2];
    // Phase j (0..key_tiles) of this warpgroup's tensor-core work: P V of tile j - 1, then the scores of
    // tile j; the softmax of tile j follows outside the phase. PINGPONG: the two consumers take turns
    // (named barriers 3 and 4), so that one's softmax runs while the other's products do
    // (FlashAttention-3, section 3.1). Consumer 1 lets consumer 0 go first and, to leave no arrival
    // pending, does not hand the turn back after its last phase.
    constexpr int kTurn = 3;
    auto my_turn = [&] {
      if constexpr (PINGPONG) named_barrier_sync(kTurn + consumer, 2 * 128);
    };
    auto your_turn = [&] {
      if constexpr (PINGPONG) named_barrier_arrive(kTurn + 1 - consumer, 2 * 128);
    };
    // WrongParity: the parity of the phase before the one that lands tile j.
    constexpr std::uint32_t kFlip = BUG == HopperBug::WrongParity ? 1 : 0;
    auto scores = [&](int j) {
      const int stage = j % STAGES;
      wait_or_stop(&k_full[stage], ((j / STAGES) & 1) ^ kFlip);
      issue_scores<D, BC>(s, q_rows, Ks + stage * Lay::kK);
    };
    auto pv = [&](int j) {
      const int stage = j % STAGES;
      wait_or_stop(&v_full[stage], ((j / STAGES) & 1) ^ kFlip);
      issue_pv<D, BC>(o, p, Vs + stage * Lay::kK);
      if constexpr (BUG == HopperBug::EarlyRelease)
        if (t == 0) mbarrier_arrive(&empty[stage]);
      wgmma_wait_group<0>();
      wgmma_fence_operands(o);
#pragma unroll
      for (int kk = 0; kk < BC / 16; ++kk) wgmma_fence_operands(p[kk]);
      if constexpr (BUG != HopperBug::EarlyRelease)
        if (t == 0) mbarrier_arrive(&empty[stage]);
    };
    auto softmax = [&](int j) {
      wgmma_wait_group<0>();
      wgmma_fence_operands(s);
      softmax_tile<BC, CAUSAL>(s, row_max, row_sum, correction, needs_mask(j), j * BC, row0, seq_k, lane, scale_log2);
      if constexpr (BUG != HopperBug::OutputNotRescaled) rescale<D>(o, correction);
      to_bf16<BC>(p, s);
    };
    if (PINGPONG && consumer == 1) named_barrier_arrive(kTurn + 0, 2 * 128);
    my_turn();
    scores(0);
    your_turn();
    softmax(0);
    for (int j = 1; j < key_tiles; ++j) {
      my_turn();
      pv(j - 1);
      scores(j);
      your_turn();
      softmax(j);
    }
    my_turn();
    pv(key_tiles - 1);
    if (consumer == 0) your_turn();
  }

  // ---- epilogue: L from registers; O through this warpgroup's Q rows (done with) and a TMA store --
  const std::size_t head_row = static_cast<std::size_t>(head) * seq_q;
  float inv[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 1);
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 2);
    inv[h] = row_sum[h] > 0.0f ? 1.0f / row_sum[h] : 0.0f;
    const int row = row0 + 8 * h;
    const float lse2 = row_max[h] * scale_log2 + log2f(row_sum[h]);
    if (lane % 4 == 0 && row < seq_q) L[head_row + row] = BUG == HopperBug::LseBase2 ? lse2 : lse2 / kLog2e;
  }
  __nv_bfloat16* out = Qs + consumer * 64 * 64;
#pragma unroll
  for (int j = 0; j < D / 8; ++j) {
    const int col = 8 * j + 2 * (lane % 4), block = col / 64, c = col % 64;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = warp * 16 + lane / 4 + 8 * h;  // row of the warpgroup's 64, same swizzle phase
      *reinterpret_cast<__nv_bfloat162*>(out + block * kBR * 64 + r * 64 + (((c / 8) ^ (r % 8)) * 8) + c % 8) =
          __floats2bfloat162_rn(o[4 * j + 2 * h] * inv[h], o[4 * j + 2 * h + 1] * inv[h]);
    }
  }
  if constexpr (BUG != HopperBug::NoStoreFence) fence_proxy_async_shared();
  named_barrier_sync(1 + consumer, 128);
  if (t == 0) {
#pragma unroll
    for (int b = 0; b < D / 64; ++b) tma_store_3d(&map_o, out + b * kBR * 64, b * 64, wg_row0, head);
    bulk_commit_group();
    bulk_wait_group_read();
  }
}

// ---- the launcher -------------------------------------------------------------------------------------

// Each planted kernel is built for one head dimension and one causality only (sm_90a code takes long to
// build); the correct one for all four.
template <HopperBug BUG, int D, bool CAUSAL>
void launch_planted_hopper(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                           float* L, const AttentionShape& shape, cudaStream_t stream) {
  validate_attention_shape(shape);
  if (shape.d != D || shape.causal != CAUSAL)
    throw std::invalid_argument("planted 5.08 kernel: built for d = " + std::to_string(D) +
                                (CAUSAL ? ", causal" : ", not causal") + " only");
  if (shape.heads == 0 || shape.seq_q == 0) return;
  constexpr int BC = 128, kSmemBytes = Layout < D, BC, D == 64 ? 3 : 2 > ::kBytes + 1024;
  const CUtensorMap map_q = make_tensor_map_bf16_3d(Q, shape.heads, shape.seq_q, D, kBR);
  const CUtensorMap map_k = make_tensor_map_bf16_3d(K, shape.heads, shape.seq_k, D, BC);
  const CUtensorMap map_v = make_tensor_map_bf16_3d(V, shape.heads, shape.seq_k, D, BC);
  const CUtensorMap map_o = make_tensor_map_bf16_3d(O, shape.heads, shape.seq_q, D, 64);
  const auto kernel = planted_flash_hopper_kernel<BUG, D, CAUSAL>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  const unsigned blocks = static_cast<unsigned>(wb::ceil_div(shape.seq_q, kBR) * shape.heads);
  kernel<<<blocks, kThreads, kSmemBytes, stream>>>(map_q, map_k, map_v, map_o, L, shape.heads, shape.seq_q, shape.seq_k,
                                                   attention_scale(D) * kLog2e);
  CUDA_CHECK_KERNEL();
}

}  // namespace

void planted_hopper_correct(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                            float* L, const AttentionShape& shape, cudaStream_t stream) {
  if (shape.d == 64 && shape.causal)
    launch_planted_hopper<HopperBug::None, 64, true>(Q, K, V, O, L, shape, stream);
  else if (shape.d == 64)
    launch_planted_hopper<HopperBug::None, 64, false>(Q, K, V, O, L, shape, stream);
  else if (shape.causal)
    launch_planted_hopper<HopperBug::None, 128, true>(Q, K, V, O, L, shape, stream);
  else
    launch_planted_hopper<HopperBug::None, 128, false>(Q, K, V, O, L, shape, stream);
}

#define WB_HOPPER_PLANT(name, bug, d, causal)                                                                   \
  void name(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O, float* L, \
            const AttentionShape& shape, cudaStream_t stream) {                                                 \
    launch_planted_hopper<bug, d, causal>(Q, K, V, O, L, shape, stream);                                        \
  }
WB_HOPPER_PLANT(planted_hopper_wrong_parity, HopperBug::WrongParity, 128, false)
WB_HOPPER_PLANT(planted_hopper_output_not_rescaled, HopperBug::OutputNotRescaled, 64, false)
WB_HOPPER_PLANT(planted_hopper_skips_diagonal_tile, HopperBug::SkipsDiagonalTile, 64, true)
WB_HOPPER_PLANT(planted_hopper_tail_unmasked, HopperBug::TailUnmasked, 64, false)
WB_HOPPER_PLANT(planted_hopper_lse_base2, HopperBug::LseBase2, 64, true)
WB_HOPPER_PLANT(planted_hopper_early_release, HopperBug::EarlyRelease, 128, false)
WB_HOPPER_PLANT(planted_hopper_no_store_fence, HopperBug::NoStoreFence, 128, false)
#undef WB_HOPPER_PLANT
