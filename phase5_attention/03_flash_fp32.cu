// SPDX-License-Identifier: MIT
// 5.03 flash_fp32: attention in one kernel that never stores the scores (FlashAttention's forward pass).
//
// You learn: the online softmax of 2.08 applied to tiles: each block owns 64 query rows of one head and
// streams the keys and values through shared memory 64 at a time, keeping per row a running max m, a
// running sum l and an unnormalized output in registers; a tile that raises the max changes the scale
// of everything summed so far. Nothing of size seq x seq exists, so memory grows with seq, not
// seq^2, and each K and V element is read once per query tile instead of once per query.
// Task: write the four device functions (a tile's scores, the online update that also writes P, the
// P V accumulation, the final O and L), the padding of the shared tiles, and the loop over key
// tiles that runs them. The tile loads, the carve-up of shared memory and the epilogue's call are given.
// You decide: which query rows, keys and output columns each thread owns (the API fixes how many: 4 x 4
//             scores and d / 16 columns); how the threads of a row agree on its max and sum, and so
//             where a warp may not branch; how the tiles' rows are padded and what p_tile holds, which
//             decide what your reads cost; where the barriers go.
// Source: Dao et al., "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness"
// (2022); Milakov & Gimelshein, "Online normalizer calculation for softmax" (2018), the algorithm under it.
// Run:   ./workbook run 5.03 [-- --size 16x4096x64]
// Check: ./workbook check 5.03
// Aim:   ~30 TFLOP/s on an H100 (45% of FP32 peak): ~1.2x of 5.02 at 16x4096x64, with no workspace.
// Previous: 5.02 cublas. Next: 5.04 flash_causal.

#include <cmath>
#include <stdexcept>

#include "common/workbook.h"
#include "phase5_attention/attention.cuh"
#include "phase5_attention/fp32_tiles.cuh"
#include "phase5_attention/harness/lesson_support.h"

namespace {

// A block computes a kBr x kBc tile of scores at a time with 256 threads: each owns kRows query rows
// and kKeys keys of the tile (s below) and d / 16 output columns of its rows (acc). Which ones is the
// first design choice, and it decides the rest: how the threads of a row agree on its max and sum, and
// what the reads of the K tile and of the V tile cost in bank conflicts under the padding you choose.
constexpr int kBr = 64;  // query rows per block
constexpr int kBc = 64;  // keys per tile
constexpr int kThreads = 256;
constexpr int kRows = kBr / 16;  // rows per thread
constexpr int kKeys = kBc / 16;  // keys per thread per tile
static_assert(kBr % 16 == 0 && kBc % 16 == 0, "16 x 16 threads share the tile");

// Every row of the three shared tiles is padded by kPad floats: a row of the Q or K tile holds
// D + kPad floats, a row of p_tile kBc + kPad. Which padding makes your reads conflict-free follows
// from your mapping.
// TODO(5.03): choose the padding (1 line; any value from 0 is correct, only the speed differs).
constexpr int kPad = 1;  // TODO(5.03): replace

// Shared memory: the query tile, one key-or-value tile and the probabilities.
template <int D>
constexpr std::size_t smem_bytes() {
  return sizeof(float) *
         (std::size_t(kBr) * (D + kPad) + std::size_t(kBc) * (D + kPad) + std::size_t(kBr) * (kBc + kPad));
}

// The carve-up of smem_bytes<D>() (one kv_tile: a tile's K, then over it the same tile's V).
template <int D>
struct SmemPlan {
  float* q_tile;   // [kBr][D + kPad]
  float* kv_tile;  // [kBc][D + kPad]: K of the current tile, then its V
  float* p_tile;   // kBr x (kBc + kPad) floats, in the layout your two functions agree on
  __device__ explicit SmemPlan(float* smem)
      : q_tile(smem), kv_tile(smem + kBr * (D + kPad)), p_tile(smem + (kBr + kBc) * (D + kPad)) {}
};

// ---- kernels ----------------------------------------------------------------------------------------

// Rows [first, first + kRowsInTile) of a [rows][D] array into tile[kRowsInTile][D + kPad], rows past
// the end zero (phase5_attention/fp32_tiles.cuh).
template <int D, int kRowsInTile>
__device__ void load_tile(float* tile, const float* src, int first, int rows) {
  p5::load_padded_rows<D, kRowsInTile, kThreads, kPad>(tile, src, first, rows);
}

// s[r][c] = the scaled logit of this thread's query row r against its key c of the tile that starts
// at key k0, from the tiles in shared memory. Keys at or past seq_k exist only as the zero padding of
// the last tile: they must take no part in the softmax, whatever the row's other logits are.
template <int D>
__device__ void tile_scores(const float* q_tile, const float* k_tile, int k0, int seq_k, float scale,
                            float (&s)[kRows][kKeys]) {
  // TODO(5.03): fill s with the 16 scaled dot products this thread owns; keys past seq_k must end
  //             with probability 0 (about 12 lines).
}

// The online softmax over tiles. Per row, m is the max of the logits seen so far and acc[r][k] the
// sum of exp(s - m) v over them (O before the division by the row's sum of exp(s - m)). A tile brings
// its own max; when store_rows runs, m and acc must have these meanings over every tile seen (2.08 did
// the same for one value at a time), and l must hold what store_rows needs to make the row's sum of
// exp(s - m). The threads that share a row must agree on the tile's max, and combine only among
// themselves.
// A row that has seen no visible key yet has m = -inf, and if the tile holds none for it either,
// exp(-inf - -inf) is NaN: such a row must come out of the update as it went in (m, l and acc
// unchanged, probabilities 0). A full-mask __shfl_xor_sync must be reached by all 32 lanes of the warp
// (0.07): a lane that does not arrive is undefined behaviour, whatever the results look like. No test
// of this rung can catch either mistake: every tile a row reads holds key k0, which every row sees, so
// no row is ever empty here; 5.06's merge, which you write there, is graded on empty partials.
// p_tile is what accumulate_pv reads for the P V step.
template <int D>
__device__ void online_update(const float (&s)[kRows][kKeys], float (&m)[kRows], float (&l)[kRows],
                              float (&acc)[kRows][D / 16], float* p_tile) {
  // TODO(5.03): bring this thread's rows up to date with the tile (m, l and acc as defined above)
  //             and write their probabilities to p_tile; no NaN for a row that saw only masked
  //             keys (about 20 lines).
}

// acc += this tile's P V, for this thread's rows and output columns, from p_tile and the V tile. Padding
// keys have probability 0 and zero values.
template <int D>
__device__ void accumulate_pv(const float* p_tile, const float* v_tile, float (&acc)[kRows][D / 16]) {
  // TODO(5.03): add this tile's P V to acc (about 8 lines).
}

// The epilogue: O and L (attention.cuh defines both) from each row's m, l and acc, for the rows that
// exist (below seq_q); L once per row.
template <int D>
__device__ void store_rows(const float (&acc)[kRows][D / 16], const float (&m)[kRows], const float (&l)[kRows],
                           float* o_head, float* l_head, int q0, int seq_q) {
  // TODO(5.03): write this thread's outputs and L: every element of O and of L that exists written
  //             exactly once (about 10 lines).
}

// Block (x, head) computes query rows [64 x, 64 x + 64) of one head against every key.
template <int D>
__global__ void __launch_bounds__(kThreads)
    attention_flash_fp32_kernel(const float* __restrict__ Q, const float* __restrict__ K, const float* __restrict__ V,
                                float* __restrict__ O, float* __restrict__ L, int seq_q, int seq_k, float scale) {
  extern __shared__ float smem[];
  const SmemPlan<D> tiles(smem);
  const std::size_t head = blockIdx.y;
  const int q0 = blockIdx.x * kBr;
  load_tile<D, kBr>(tiles.q_tile, Q + head * seq_q * D, q0, seq_q);

  float m[kRows], l[kRows], acc[kRows][D / 16];
  for (int r = 0; r < kRows; ++r) {
    m[r] = -INFINITY;  // the empty state of 2.08: no logit seen
    l[r] = 0.0f;
    for (int k = 0; k < D / 16; ++k) acc[r][k] = 0.0f;
  }
  // TODO(5.03): stream this head's keys and values through shared memory, kBc keys per tile,
  //             with a barrier wherever one thread's shared-memory writes meet
  //             another's reads, and no more (about 12 lines).
  store_rows<D>(acc, m, l, O + head * seq_q * D, L + head * seq_q, q0, seq_q);
}

template <int D>
void launch_flash_fp32(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape,
                       cudaStream_t stream) {
  // Above 48 KiB a block must opt in to its shared memory (80 KB and more at d = 128: an sm_80 or newer GPU).
  CUDA_CHECK(cudaFuncSetAttribute(attention_flash_fp32_kernel<D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(smem_bytes<D>())));
  const dim3 grid(wb::ceil_div(static_cast<unsigned>(shape.seq_q), unsigned(kBr)), static_cast<unsigned>(shape.heads));
  attention_flash_fp32_kernel<D>
      <<<grid, kThreads, smem_bytes<D>(), stream>>>(Q, K, V, O, L, shape.seq_q, shape.seq_k, attention_scale(D));
  CUDA_CHECK_KERNEL();
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void attention_flash_fp32(const float* Q, const float* K, const float* V, float* O, float* L,
                          const AttentionShape& shape, cudaStream_t stream) {
  validate_attention_shape(shape);
  if (shape.causal) throw std::invalid_argument("attention_flash_fp32 is not causal: 5.04 adds the mask");
  if (shape.heads == 0 || shape.seq_q == 0) return;
  if (shape.heads > 65535) throw std::invalid_argument("attention_flash_fp32: at most 65535 heads (gridDim.y)");
  if (shape.d == 64) {
    launch_flash_fp32<64>(Q, K, V, O, L, shape, stream);
  } else {
    launch_flash_fp32<128>(Q, K, V, O, L, shape, stream);
  }
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: the same 4 seq^2 d FLOP per head as 5.01 and 5.02, but the only DRAM traffic is Q, K, V
// and O: K and V are read once per query tile, seq / 64 times, 64 x 4 MiB... per head at seq 4096, most
// of it from L2. In shared memory each multiply-add of the scores needs a q and a k value: count the
// loads per multiply-add your mapping issues. Shared-memory bandwidth binds this kernel before the FMA
// units do: the tensor-core version (5.05) is where the real speed is.
int flash_fp32_lesson(wb::Lesson& lesson) {
  return p5::run_attention_lesson(lesson, "attention_flash_fp32", {attention_flash_fp32, nullptr}, false);
}

}  // namespace

WB_LESSON(flash_fp32_lesson, "the tiled forward pass: online softmax over K/V tiles, no scores in memory");
