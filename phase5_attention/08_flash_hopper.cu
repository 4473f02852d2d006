// SPDX-License-Identifier: MIT
// 5.08 flash_hopper: FlashAttention-3's forward pass on Hopper: TMA, mbarriers, wgmma with P from
// registers, warp specialization, and one warpgroup's softmax hidden under the other's products.
//
// You learn: 5.05's algorithm rebuilt from phase 1's Hopper rungs (phase1_matmul/hopper.cuh). A producer
// warpgroup loads Q once and K and V tile by tile with TMA into a ring of mbarrier-guarded stages; two
// consumer warpgroups (64 query rows each) run S = Q K^T on wgmma, the online softmax in registers, and
// O += P V on wgmma with P read from registers (5.05 did that with mma.sync: does its trick carry over
// to wgmma's fragments?). exp2 runs on the multi-function units, 256 times slower per operation than
// the tensor cores: the goal is a schedule in which the softmax hides under the products
// (FlashAttention-3, sections 3.1-3.2).
// Task: the producer's loop, the consumers' loop, the P V product, the softmax and the A fragment.
// Given (5.04's lesson): which key tiles a causal block visits (key_tiles) and which need the mask
// (needs_mask); the ring's barriers and their counts; the stage counts (see the launcher).
// You decide: the parity of every wait (a fresh ring's first pass included); which wgmma groups are
//             in flight while registers are read, so when a stage may go back to the producer; how
//             the two consumers share the tensor cores, so that one's softmax hides under the other's
//             products.
// Source: Shah et al., "FlashAttention-3: Fast and Accurate Attention with Asynchrony and
// Low-precision" (2024, arXiv 2407.08608), sections 3.1-3.2; PTX ISA, "wgmma.mma_async" and
// "cp.async.bulk.tensor".
// Run:   ./workbook run 5.08 [-- --size 16x4096x128]
// Check: ./workbook check 5.08    (a wait that never completes stops the kernel after 2 s: launch fails)
// Aim:   >= 2x 5.05 and >= 90% of PyTorch's SDPA on cuDNN at 16x4096x128 on an H100 (phase 5 README).
// Previous: 5.07 flash_backward. Next: p5_bench, then 6.01 peer_access.

#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "common/workbook.h"
#include "phase1_matmul/hopper.cuh"
#include "phase1_matmul/mma_sm80.cuh"
#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/lesson_support.h"

namespace {

using namespace wb::hopper;
using wb::mma::pack_bf16x2;

constexpr float kLog2e = 1.4426950408889634f;
constexpr int kConsumers = 2;                     // consumer warpgroups, 64 query rows each
constexpr int kBR = 64 * kConsumers;              // query rows per block
constexpr int kThreads = (kConsumers + 1) * 128;  // + the producer warpgroup
// setmaxnreg: 128 x 40 + 256 x 232 = 64512 of the SM's 65536 registers, moved between warpgroups at run
// time. ptxas (CUDA 13.0) still compiles the whole kernel for its launch bound, 65536 / 384 threads:
// 168 registers a thread (`-Xptxas -v` says so, and a spill stays the same size whatever the counts
// here). That is the consumer's real budget for S, O, P, the row statistics and the addresses.
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
// V from shared memory as TMA stored it, [key][d] (the keys are the k of this product). One committed
// group.
template <int D, int BC>
__device__ inline void issue_pv(float (&o)[D / 2], std::uint32_t (&p)[BC / 16][4], const __nv_bfloat16* v_tile) {
  // TODO(5.08): issue this tile's P V into o as one committed wgmma group, not waited for (about 8
  //             lines). P comes from the registers of p (hopper.cuh: WgmmaBf16RS, the A fragment layout),
  //             V sits in shared memory one row per key: which operand major-ness is that, and which
  //             descriptor describes it? No register of o or p may be touched by anything but the wgmma
  //             until it is waited for.
}

// The online softmax of one tile of scores, in place: masks (keys past seq_k; causal: keys after the
// row), updates the running max and sum of the thread's two rows, and leaves the unnormalised
// probabilities in s; correction[h] is what O's row h must be multiplied by before P V is added.
// Interface: s arrives as raw Q K^T (not yet scaled; scale_log2 is the softmax scale times log2 e),
// and row_max holds the running max in those raw units: the given epilogue computes L from it.
// Thread layout (reference: hopper.cuh, WgmmaBf16; PTX ISA, "Register Fragments", wgmma .m64nNk16's
// D): s[4 j + 2 h + e] is row lane / 4 + 8 h of the warp's 16, key 8 j + 2 (lane % 4) + e of the
// tile; a row's 128 keys live in the 4 lanes of a quad.
template <int BC, bool CAUSAL>
__device__ inline void softmax_tile(float (&s)[BC / 2], float (&row_max)[2], float (&row_sum)[2],
                                    float (&correction)[2], bool mask, int key0, int row0, int seq_k, int lane,
                                    float scale_log2) {
  // TODO(5.08): mask (keys at or past seq_k; causal: keys after the row) when `mask` says so, update
  //             the running max and sum of the thread's two rows, leave the unnormalised probabilities
  //             in s and the factors O's rows need in correction (about 30 lines). No NaN for a row
  //             whose keys so far are all masked; a row's keys live in the 4 lanes of a quad.
}

// The probabilities rounded to BF16 pairs in wgmma's A layout, p[kk] for keys 16 kk..16 kk + 15.
template <int BC>
__device__ inline void to_bf16(std::uint32_t (&p)[BC / 16][4], const float (&s)[BC / 2]) {
  // TODO(5.08): round the probabilities in s to BF16 pairs in wgmma's A-register layout, one group of
  //             four registers per 16 keys (about 8 lines). Compare the accumulator layout with the A
  //             fragment layout in hopper.cuh before you write an index.
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

// Block (query tile, head): kBR query rows of one head against its key tiles. Warpgroup 0 produces,
// warpgroups 1 and 2 consume (64 rows each).
template <int D, int BC, int STAGES, bool CAUSAL, bool PINGPONG>
__global__ void __launch_bounds__(kThreads, 1)
    flash_hopper_kernel(const __grid_constant__ CUtensorMap map_q, const __grid_constant__ CUtensorMap map_k,
                        const __grid_constant__ CUtensorMap map_v, const __grid_constant__ CUtensorMap map_o,
                        float* __restrict__ L, int heads, int seq_q, int seq_k, float scale_log2) {
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
  const int key_tiles = CAUSAL ? wb::ceil_div(min(seq_k, q0 + kBR), BC) : wb::ceil_div(seq_k, BC);
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
      // TODO(5.08): load K and V tile j for every j < key_tiles into stage j % STAGES, once both
      //             consumers have handed the stage back (about 15 lines). A wait that cannot complete
      //             stops the kernel (wait_or_stop); each full barrier completes once per tile, for
      //             every seq_k.
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
    return key_end > seq_k || (CAUSAL && key_end - 1 > wg_row0);
  };

  wait_or_stop(q_full, 0);
  // TODO(5.08): for every key tile: the scores on the tensor cores (issue_scores), the softmax
  //             (softmax_tile; which tiles need the mask: needs_mask), O's rescale (rescale), P
  //             (to_bf16) and the P V product into O (issue_pv); hand each stage back to the producer
  //             only once nothing can read it any more, with the arrivals the given mbarrier_init
  //             counts expect (about 60 lines). Constraints: every wgmma group is waited for before
  //             its registers are read or rewritten; no barrier may be left with an arrival nobody
  //             waits for; no spill, and no ptxas note that it serialised the wgmma (phase README,
  //             pitfalls).

  // ---- epilogue: L from registers; O through this warpgroup's Q rows (done with) and a TMA store --
  const std::size_t head_row = static_cast<std::size_t>(head) * seq_q;
  float inv[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 1);
    row_sum[h] += __shfl_xor_sync(0xffffffffu, row_sum[h], 2);
    inv[h] = row_sum[h] > 0.0f ? 1.0f / row_sum[h] : 0.0f;
    const int row = row0 + 8 * h;
    if (lane % 4 == 0 && row < seq_q) L[head_row + row] = (row_max[h] * scale_log2 + log2f(row_sum[h])) / kLog2e;
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
  fence_proxy_async_shared();  // the generic-proxy writes above, before the TMA store reads them
  named_barrier_sync(1 + consumer, 128);
  if (t == 0) {
#pragma unroll
    for (int b = 0; b < D / 64; ++b) tma_store_3d(&map_o, out + b * kBR * 64, b * 64, wg_row0, head);
    bulk_commit_group();
    bulk_wait_group_read();
  }
}

template <int D, int BC, int STAGES, bool CAUSAL, bool PINGPONG>
void launch_flash_hopper(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                         float* L, const AttentionShape& shape, cudaStream_t stream) {
  constexpr int kSmemBytes = Layout<D, BC, STAGES>::kBytes + 1024;  // + the 1024-byte alignment
  const CUtensorMap map_q = make_tensor_map_bf16_3d(Q, shape.heads, shape.seq_q, D, kBR);
  const CUtensorMap map_k = make_tensor_map_bf16_3d(K, shape.heads, shape.seq_k, D, BC);
  const CUtensorMap map_v = make_tensor_map_bf16_3d(V, shape.heads, shape.seq_k, D, BC);
  const CUtensorMap map_o = make_tensor_map_bf16_3d(O, shape.heads, shape.seq_q, D, 64);
  const auto kernel = flash_hopper_kernel<D, BC, STAGES, CAUSAL, PINGPONG>;
  CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
  const long long blocks = static_cast<long long>(wb::ceil_div(shape.seq_q, kBR)) * shape.heads;
  if (blocks > 0x7fffffffLL) throw std::invalid_argument("attention_flash_hopper: more than 2^31 - 1 blocks");
  kernel<<<static_cast<unsigned>(blocks), kThreads, kSmemBytes, stream>>>(
      map_q, map_k, map_v, map_o, L, shape.heads, shape.seq_q, shape.seq_k, attention_scale(D) * kLog2e);
  CUDA_CHECK_KERNEL();
}

}  // namespace

// 128 query rows (two consumer warpgroups) x 128 keys per tile; d = 128: 2 stages (160 KB of shared
// memory), d = 64: 3 stages (112 KB). Why 2 at d = 128: the producer refills a stage as soon as both
// consumers release it, so a stage's 64 KB of K and V has about one tile's work (2050 cycles of
// products, napkin math below) to land, mostly from L2 (a head's query tiles run side by side);
// 3 stages (225 KB) also fit under the 227 KB a block may opt into: yours to measure.
void attention_flash_hopper(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                            float* L, const AttentionShape& shape, cudaStream_t stream) {
  validate_attention_shape(shape);
  for (const void* p : {static_cast<const void*>(Q), static_cast<const void*>(K), static_cast<const void*>(V),
                        static_cast<const void*>(O)})
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0)
      throw std::invalid_argument("attention_flash_hopper: Q, K, V and O must be 16-byte aligned (TMA)");
  if (shape.heads == 0 || shape.seq_q == 0) return;
  if (shape.d == 64) {
    if (shape.causal)
      launch_flash_hopper<64, 128, 3, true, true>(Q, K, V, O, L, shape, stream);
    else
      launch_flash_hopper<64, 128, 3, false, true>(Q, K, V, O, L, shape, stream);
  } else {
    if (shape.causal)
      launch_flash_hopper<128, 128, 2, true, true>(Q, K, V, O, L, shape, stream);
    else
      launch_flash_hopper<128, 128, 2, false, true>(Q, K, V, O, L, shape, stream);
  }
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 137 GFLOP at 16x4096x128, 0.14 ms at the H100's 989 TFLOP/s BF16 peak. Per 128 x 128
// tile a block runs 8.4 MFLOP of wgmma (about 2050 cycles of an SM at 4096 FLOP per cycle) and 16384
// exp2 on the multi-function units (16 per cycle: about 1020 cycles). One after the other, the tensor
// cores would idle a third of the time; overlapped, the exponentials hide under the products.
int flash_hopper_lesson(wb::Lesson& lesson) {
  return p5::run_bf16_attention_lesson(lesson, "attention_flash_hopper", attention_flash_hopper);
}

}  // namespace

WB_LESSON(flash_hopper_lesson, "FlashAttention-3 on Hopper: TMA, mbarriers, wgmma with P from registers");
