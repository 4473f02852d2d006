// SPDX-License-Identifier: MIT
// Phase 3 launchers: the sum of n elements, one rung of the reduction ladder each, and the inclusive
// scan of the capstone (3.11, at the end). Every reduce launcher has the same shape,
//   void reduce_x(const T* in, T* out, std::size_t n, T* workspace, cudaStream_t stream);
// in: n device elements (left unchanged; 16-byte aligned, as cudaMalloc returns them, for the
// rungs with vector loads); out: one device element, the sum (0 for n = 0); workspace: device
// scratch of reduce_workspace_elements(n) elements for the partial sums of multi-pass rungs, the
// counter of the single-launch rung and CUB's temporary storage. Allocate it once, outside any timed
// region. Launchers enqueue on `stream`, check each launch (CUDA_CHECK_KERNEL) and never synchronize.
// Host code only here: tests include it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

template <typename T>
using ReduceLauncher = void (*)(const T* in, T* out, std::size_t n, T* workspace, cudaStream_t stream);

// Every multi-pass rung gives each block at least this many elements, so the partial sums of pass
// k + 1 number at most 1/128 of those of pass k.
constexpr std::size_t kMinElementsPerBlock = 128;
// Room after the partial sums: the single-launch rung's counter and per-block sums (at most 16380
// blocks), and cub::DeviceReduce's temporary storage (a few KiB on an H100).
constexpr std::size_t kFixedWorkspaceElements = 16384;

// The pass plan every multi-pass rung follows (reduce_in_passes in passes.h launches it; the workspace
// bound below and the host tests measure it): `count` elements go to ceil(count / elements_per_block)
// blocks, capped at max_blocks (0: no cap); while more than one block is needed, their partial sums go
// to the workspace at `offset`, each pass's share rounded up to 4 elements so the next pass's input
// stays 16-byte aligned for vector loads; the pass with one block writes the sum itself.
//   n = 256M, 256 elements a block: 256M -> 1M -> 4096 -> 16 -> 1, four passes.
struct ReducePass {
  std::size_t count;   // elements this pass reads
  std::size_t blocks;  // blocks it launches: its partial sums (1: the last pass, writing the sum)
  std::size_t offset;  // where in the workspace its partial sums go (blocks > 1)
};

// Calls visit(const ReducePass&) for each pass of the plan for n > 0 elements, the last one included.
template <typename Visit>
void for_each_reduce_pass(std::size_t n, std::size_t elements_per_block, std::size_t max_blocks, Visit visit) {
  std::size_t offset = 0;
  for (std::size_t count = n;;) {
    std::size_t blocks = (count + elements_per_block - 1) / elements_per_block;
    if (max_blocks > 0 && blocks > max_blocks) blocks = max_blocks;
    visit(ReducePass{count, blocks, offset});
    if (blocks <= 1) return;
    offset += (blocks + 3) / 4 * 4;
    count = blocks;
  }
}

// Workspace elements the plan's partial sums take.
inline std::size_t reduce_plan_workspace(std::size_t n, std::size_t elements_per_block, std::size_t max_blocks) {
  std::size_t used = 0;
  if (n == 0) return used;
  for_each_reduce_pass(n, elements_per_block, max_blocks, [&used](const ReducePass& pass) {
    if (pass.blocks > 1) used = pass.offset + (pass.blocks + 3) / 4 * 4;
  });
  return used;
}

// Elements of workspace every launcher may use for n inputs: the partial sums of the hungriest plan
// (the fewest elements a block, kMinElementsPerBlock, and no cap on the grid: a cap or more elements
// a block only shrink every pass), plus kFixedWorkspaceElements.
// For n = 256M: 2M + 16K + 128 + a few, under 1% of the input.
inline std::size_t reduce_workspace_elements(std::size_t n) {
  return reduce_plan_workspace(n, kMinElementsPerBlock, 0) + kFixedWorkspaceElements;
}

// ---- 3.01 interleaved_divergent ------------------------------------------------------------------
// Tree in shared memory, stride s = 1, 2, 4, ...; thread t works when t % (2s) == 0 (divergent warps).
void reduce_interleaved_divergent(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);

// ---- 3.02 interleaved_strided --------------------------------------------------------------------
// The same tree with the work packed onto the first threads (index 2 s t): no divergence inside a
// warp, but 2-way to 8-way shared-memory bank conflicts.
void reduce_interleaved_strided(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);

// ---- 3.03 sequential ------------------------------------------------------------------------------
// Sequential addressing: thread t adds element t + s, s = blockDim/2 ... 1. No bank conflicts.
// The int variant is exact in any order.
void reduce_sequential(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);
void reduce_sequential_int(const int* in, int* out, std::size_t n, int* workspace, cudaStream_t stream);

// ---- 3.04 first_add_during_load -------------------------------------------------------------------
// Each thread adds two elements while loading: half the blocks.
void reduce_first_add_during_load(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);

// ---- 3.05 unroll_last_warp ------------------------------------------------------------------------
// The last 64 -> 1 steps by one warp, ordered with __syncwarp (correct on Volta and later).
void reduce_unroll_last_warp(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);

// ---- 3.06 complete_unroll -------------------------------------------------------------------------
// The whole tree unrolled for a compile-time block size (a template); the launcher picks 64..256.
void reduce_complete_unroll(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);

// ---- 3.07 many_per_thread -------------------------------------------------------------------------
// Algorithmic cascading: a grid of a few blocks per SM, each thread sums many elements with float4
// loads in a grid-stride loop before the tree; two passes in all.
void reduce_many_per_thread(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);

// ---- 3.08 shuffle ---------------------------------------------------------------------------------
// Warp shuffles (__shfl_down_sync) instead of the shared-memory tree; one shared slot per warp.
void reduce_shuffle(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);
void reduce_shuffle_int(const int* in, int* out, std::size_t n, int* workspace, cudaStream_t stream);

// ---- 3.09 single_launch ---------------------------------------------------------------------------
// One kernel launch: the last block to finish (threadfence + atomic ticket) adds the block sums.
void reduce_single_pass_last_block(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);
// One kernel launch: every block atomicAdds its sum into out (zeroed first). Not deterministic.
void reduce_block_atomics(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);

// ---- 3.10 cub_reference ---------------------------------------------------------------------------
// cub::DeviceReduce::Sum with its temporary storage taken from the workspace.
void reduce_cub(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream);

// ---- 3.11 scan (the capstone) ---------------------------------------------------------------------
// The inclusive prefix sum, out[i] = in[0] + in[1] + ... + in[i] for every i < n, in one pass over the
// data: each element read once and written once.
//   ints:   added modulo 2^32 (two's complement wrap-around), exactly as the CPU reference adds them in
//           uint32 arithmetic, so every int result is exact and checked to the last bit at any n.
//   floats: each out[i] is a float sum of in[0..i] in some association, so it is within
//           i u (|in[0]| + ... + |in[i]|) of the exact sum, u = 2^-24 (Higham's bound for any order of
//           summation, the phase's sum tolerance applied to each prefix), and exact where every partial
//           sum is representable (small integers: n max|in| <= 2^24). How a tile's carry is put
//           together may depend on timing, so the last bits may change from run to run.
// in, out: n device elements, 16-byte aligned (as cudaMalloc returns them), not overlapping: in == out
// is not supported. n: any count (0 does nothing; 2^31 and more are fine where memory allows).
// workspace: device memory of workspace_bytes >= scan_workspace_bytes(n) bytes, aligned as cudaMalloc
// returns it, for whatever state the tiles share. It holds garbage on entry (the tests poison it, and
// call twice on one workspace): what the scan reads there must not depend on it. Launchers enqueue on
// `stream`, check each launch (CUDA_CHECK_KERNEL), never synchronize, and throw std::invalid_argument
// for a workspace that is too small or a misaligned pointer.
template <typename T>
using ScanLauncher = void (*)(const T* in, T* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                              cudaStream_t stream);

// The workspace bound every scan design may rely on: tiles of at least kScanMinTileElements elements,
// up to kScanStatusBytesPerTile bytes of status each, and kScanFixedWorkspaceBytes more for the rest.
// For n = 256M: 16 MiB, 1.6% of the input.
constexpr std::size_t kScanMinTileElements = 256;
constexpr std::size_t kScanStatusBytesPerTile = 16;
constexpr std::size_t kScanFixedWorkspaceBytes = 256;
inline std::size_t scan_workspace_bytes(std::size_t n) {
  return kScanFixedWorkspaceBytes + (n + kScanMinTileElements - 1) / kScanMinTileElements * kScanStatusBytesPerTile;
}

// A single-pass scan: every element read once and written once, whatever the number of tiles and the
// order their blocks run in (3.11; the paper behind its reference is named in 3.11's first hint).
void scan_inclusive(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                    cudaStream_t stream);
void scan_inclusive_float(const float* in, float* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                          cudaStream_t stream);
