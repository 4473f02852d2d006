// SPDX-License-Identifier: MIT
// 2.08 softmax_online: a running max and a rescaled running sum fold two passes into one.
//
// You learn: the online softmax (Milakov & Gimelshein, 2018): keep (m, d) = (the max so far, the sum
// of exp(x - m) so far) and rescale d by exp(m_old - m_new) whenever the max grows; merge two such
// pairs with the same rule, across a warp with shuffles and across warps through shared memory; why
// every lane must join a full-mask shuffle; and why exp(-inf - -inf) needs a guard.
// Task: write online_add, online_merge, the cross-warp half of block_merge, and pass 2.
// Holds 2.07's answer: solve 2.07 first (its row set-up and loop over the packs are given here).
// You decide: how (m, d) absorbs a value that raises the max, and what an empty state is; how two pairs
//             merge, empty ones included; how the warps' pairs meet so every thread gets the block's.
// Source: Milakov & Gimelshein, "Online normalizer calculation for softmax" (2018);
// NVIDIA blog, "Using CUDA Warp-Level Primitives" (the full-mask rule).
// Run:   ./workbook run 2.08 [-- --size 16384x4096]
// Check: ./workbook check 2.08
// Aim:   >= 70% of the cudaMemcpy bandwidth at 16384 x 4096; then time it beside your 2.07 (see the README).
// Previous: 2.07 softmax_three_pass. Next: 2.09 softmax_single_read.

#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/lesson_support.h"
#include "phase2_elementwise/row_packs.cuh"

namespace {

constexpr int kWarpSize = 32;
constexpr int kMaxBlockSize = 256;  // 8 warps: a row of 4096 floats gives each thread 4 float4s per pass
constexpr int kMaxWarps = kMaxBlockSize / kWarpSize;
static_assert(kMaxWarps <= kWarpSize, "one warp must be able to merge the pairs of every warp");

// ---- kernels ----------------------------------------------------------------------------------------

// (m, d) describes the values seen so far: m their max, d the sum of exp(x - m) over them. The
// empty state is (-inf, 0): merging it into any pair changes nothing (the identity).

// Adds one value x to (m, d). When x raises the max, every term already in d was computed against
// the old max: exp(x_j - m_old) = exp(x_j - x) * exp(x - m_old), so multiply d by exp(m_old - x).
// From the empty state, exp(-inf) = 0 wipes nothing (d is 0) and the + 1 is x's own exp(x - x).
// A -inf value adds exp(-inf) = 0: skip it, because while m is still -inf, x - m = -inf - -inf is NaN.
__device__ void online_add(float& m, float& d, float x) {
  // TODO(2.08): fold x into (m, d) so that d stays the sum of exp(v - m) over the values v seen;
  //             a -inf value must leave the pair unchanged (about 6 lines).
}

// Merges (m_other, d_other) into (m, d): both sums are rescaled to the larger max. Two empty states
// (both maxima -inf, as for lanes and warps without data) must stay empty: without the guard,
// exp(-inf - -inf) = exp(NaN) turns d into NaN, and the NaN spreads through every later merge.
__device__ void online_merge(float& m, float& d, float m_other, float d_other) {
  // TODO(2.08): make (m, d) describe the values of both pairs; two empty states must stay empty,
  //             with no NaN (about 4 lines).
}

// Butterfly (xor) merge: after 5 steps every lane holds the warp's (m, d). Both shuffles run in
// every lane on every step, before the merge's branch: the mask 0xffffffff promises all 32 lanes.
__device__ void warp_merge(float& m, float& d) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    const float m_other = __shfl_xor_sync(0xffffffffu, m, offset);
    const float d_other = __shfl_xor_sync(0xffffffffu, d, offset);
    online_merge(m, d, m_other, d_other);
  }
}

// Every thread gets the block's (m, d). Lane 0 of each warp parks its warp's pair in scratch, then
// every warp merges the (at most 8) pairs itself, so no broadcast is needed afterwards.
// The classic hang: guarding the second merge with `if (lane < warps)` (only lanes that have a
// pair) looks natural and is wrong. The mask 0xffffffff says all 32 lanes will call each
// __shfl_xor_sync; lanes >= warps never do, and the warp waits for them forever (or reads garbage:
// it is undefined behaviour). No error, no output, just a hung kernel. Let every lane take part, the
// lanes without a pair holding the empty state (-inf, 0), which the merge leaves without effect.
// The block merges once per kernel, so scratch needs no second __syncthreads before it is reused.
__device__ void block_merge(float& m, float& d, float* scratch_m, float* scratch_d) {
  const int lane = threadIdx.x % kWarpSize;
  const int warp = threadIdx.x / kWarpSize;
  warp_merge(m, d);
  if (lane == 0) {
    scratch_m[warp] = m;
    scratch_d[warp] = d;
  }
  __syncthreads();  // every warp's pair is in scratch before anyone reads it
  // TODO(2.08): merge the per-warp pairs in scratch so that every thread ends with the block's
  //             (m, d); every lane of every warp must reach every shuffle (about 4 lines).
}

// One block per row: blockIdx.x is the row. Thread t handles packs t, t + blockDim.x, ... so a warp
// reads 32 neighbouring packs (coalesced) in both passes.
template <int V>
__global__ void softmax_online_kernel(const float* __restrict__ in, float* __restrict__ out, int cols) {
  // Row r starts at r * cols: compute it in std::size_t (rows x cols may pass 2^31).
  const std::size_t start = static_cast<std::size_t>(blockIdx.x) * cols;
  const float* row_in = in + start;
  const int packs = cols / V;
  __shared__ float scratch_m[kMaxWarps];
  __shared__ float scratch_d[kMaxWarps];
  // Pass 1: max and sum together. Each thread folds its values into its own (m, d), then the block
  // merges the pairs. Threads without a pack stay empty. The pragma puts no extra loads in flight
  // (2.07's pitfall); loading two or four packs before folding any, as 2.07's reference does,
  // measured slower here (76-77% of memcpy against 80-82% at 16384 x 4096 on an H100); our reading,
  // not a profiler's: the fold's expf and branch, not the loads, set this pass's pace.
  float m = -INFINITY;
  float d = 0.0f;
#pragma unroll 4
  for (int i = threadIdx.x; i < packs; i += blockDim.x) {
    const Pack<V> p = load_pack<V>(row_in, i);
#pragma unroll
    for (int k = 0; k < V; ++k) online_add(m, d, p.v[k]);
  }
  block_merge(m, d, scratch_m, scratch_d);
  // Pass 2: normalize. m is the row's max and d >= 1 its sum (the max's own term is 1).
  // TODO(2.08): write exp(x - m) / d for every element of the row into out, with the same packed
  //             loads as pass 1 and packed stores, as pass 3 of 2.07 does (about 9 lines).
}

// ---- launchers --------------------------------------------------------------------------------------

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

// Threads for a row of `packs` packs: a whole number of warps, no more than the packs (a row of 31
// floats gets one warp, not 256 threads of which 225 idle), at most kMaxBlockSize.
int block_size_for(int packs) {
  const int warps = static_cast<int>(wb::ceil_div(packs, kWarpSize));
  return (warps < kMaxWarps ? warps : kMaxWarps) * kWarpSize;
}

}  // namespace

void softmax_online(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // a grid of 0 blocks is an invalid launch
  // One block per row: rows <= INT_MAX fits gridDim.x (up to 2^31 - 1). float4 when every row
  // starts on a 16-byte boundary: both pointers aligned and cols a multiple of 4.
  if (cols % 4 == 0 && aligned16(in) && aligned16(out)) {
    softmax_online_kernel<4><<<rows, block_size_for(cols / 4), 0, stream>>>(in, out, cols);
  } else {
    softmax_online_kernel<1><<<rows, block_size_for(cols), 0, stream>>>(in, out, cols);
  }
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: the least traffic is one read and one write of every float, 8 bytes per element:
// 16384 x 4096 moves 537 MB, about 0.16 ms at the H100's 3.35 TB/s. The kernel reads the row twice
// (12 bytes per element if the re-read came from DRAM); the re-read hits L1 (8 blocks x 16 KiB rows
// = 128 KiB per SM, inside its 256 KiB L1) or L2. Against 2.07 it saves one pass over L1 and one
// block reduction, and computes as many expf: one per element per pass, plus one when the max grows.
int softmax_online_lesson(wb::Lesson& lesson) {
  return p2::softmax_lesson(lesson, "softmax_online", softmax_online, 7.0);
}

}  // namespace

WB_LESSON(softmax_online_lesson, "online softmax: a running max and a rescaled sum, then normalize");
