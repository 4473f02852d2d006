// SPDX-License-Identifier: MIT
// 3.11 scan (capstone): the inclusive prefix sum of a gigabyte of ints in one pass, at CUB's speed.
//
// You learn: to design a single-pass scan from the phase's pieces (3.07's loads, 3.08's shuffles, 3.09's
// blocks that talk through global memory): tiles that hand their sums forward while they run, and what
// keeps blocks that wait on one another from waiting forever.
// Task: scan_inclusive and scan_inclusive_float (reduction.cuh): out[i] = in[0] + ... + in[i] for i < n,
// ints modulo 2^32 (exact), floats within i u sum|in[0..i]|; any n, in and out 16-byte aligned and
// distinct (in == out is not supported). Each element is read once and written once: the tiles of one
// launch pass their sums along, never a second pass over the data, and the scan must finish however
// many tiles there are (below, under "Forward progress").
// You decide: how many elements a thread and a tile take; how a tile finds the sum of everything before
//             it; what a tile's status word holds, and how it is published and reset.
// Source: the CUB documentation, cub::DeviceScan; Harris, Sengupta & Owens, "Parallel Prefix Sum (Scan)
// with CUDA" (GPU Gems 3, chapter 39: scans inside a block). The paper behind the reference's one-pass
// design is named in the first hint: its title answers the second decision below, so try first.
// Run:   ./workbook run 3.11 [-- --size 256M]
// Check: ./workbook check 3.11
// Aim:   >= 100% of CUB's DeviceScan::InclusiveSum in the same run on 256M ints (1 GiB), toward 90% of a
//        copy (H100: CUB moves about 2450 GB/s read + written, 81% of a copy).
// Previous: 3.10 cub_reference. Next: phase 4, SpMV.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/workbook.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/reduction.cuh"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

// What decides correctness, whatever your design:
// - One pass. A tile (one block's share of the input) scans its own elements, but its outputs also need
//   the sum of every element before it, which other blocks of the same launch are adding up right now.
//   What one tile tells another passes through the workspace, never by reading the other's elements.
//   Resetting the workspace (a memset on the stream, say) is not a pass over the data.
// - Forward progress. The scan must finish however many tiles there are, also when far more exist than
//   can be resident at once. Nothing promises that blocks start in blockIdx.x order, nor that a block
//   that has not started will ever start while every resident block is waiting. Every wait must end
//   because what it waits for is sure to come, never because a timeout gives up.
// - Publication. A tile may read another tile's status word at any moment, from any SM: before, between
//   or after any of that tile's updates. A read must never yield a state that the tile did not publish,
//   and a wait must see an update once it has been made.
// - The workspace arrives full of garbage (the tests poison it, then call twice on the same one): what
//   the kernel reads there must not depend on what it held before the call.
// - Arithmetic. Ints wrap modulo 2^32: add them as unsigned (signed overflow is undefined in C++).
//   Floats: make every out[i] a sum of in[0..i], with no subtraction (in float, x + y - y need not be x).
// - Tails. Any n: a 16-byte load or store only where all four of its elements are below n; zeros (the
//   identity of +) stand in for the elements past n, and nothing is stored there.
// - Speed. A copy's traffic and no more: 8 bytes per element, nothing read twice from DRAM, and enough
//   bytes in flight (3.07's napkin math) while tiles wait on one another.
constexpr int kThreads = 256;  // 8 warps a tile
constexpr int kWarps = kThreads / 32;
constexpr int kVecsPerThread = 4;                   // 16-byte loads per thread, all issued before any is scanned
constexpr int kWarpVecs = 32 * kVecsPerThread;      // 128 vectors: 512 consecutive elements a warp
constexpr int kTileItems = kWarps * kWarpVecs * 4;  // 4096 elements (16 KiB) a tile
constexpr unsigned int kFullMask = 0xffffffffu;
// The workspace: the tile counter in its first 4 bytes, the status words from byte 256 on, so that the
// counter's atomics and the polls of the status words never share a cache line. Each status word (8
// bytes) has a 128-byte line of its own: packed, 16 tiles' words share one line, which their 32 updates
// and the polls of every waiting block all meet in one L2 slice; spread out, a look-back's 32 reads go to
// 32 lines. (Measured on an H100 with the rest unchanged: packed 99% of CUB, spread 111%.)
constexpr std::size_t kStatusOffset = 256;
constexpr std::size_t kStatusStride = 16;  // in status words: 128 bytes
static_assert(kStatusOffset <= kScanFixedWorkspaceBytes && kTileItems >= int(kScanMinTileElements) &&
                  kStatusStride * sizeof(unsigned long long) <=
                      kTileItems / kScanMinTileElements * kScanStatusBytesPerTile,
              "the counter and one status word per tile, 128 bytes apart, fit in scan_workspace_bytes(n)");

// A tile's status word: the flag in the high 32 bits, the value's bits in the low 32, written with one
// 64-bit store and read with one 64-bit load, so that a reader always sees a flag with its own value.
constexpr unsigned int kNotReady = 0;   // what the launcher's memset leaves: nothing published yet
constexpr unsigned int kAggregate = 1;  // value: the tile's own sum
constexpr unsigned int kInclusive = 2;  // value: the sum of this tile and of every tile before it
// The look-back's pace. A tile that has just published its aggregate first sleeps about as long as its
// predecessors, which started a moment before it, need to publish theirs: reads sent at once mostly find
// them "not ready" or with aggregates only, so the window slides further back and the waits grow, while
// every resident block polls the same status lines. Then the backoff of a wait: the first read at once,
// then sleeps of 32, 64, ... 512 ns between reads. (Measured on an H100 with packed status words: no
// first sleep 91% of CUB, 900 ns 99.6%, 1200 ns 103%; CUB's own sm_90 tuning sleeps about 1.2 us.)
constexpr unsigned int kLookBackDelayNs = 900;
constexpr unsigned int kFirstSleepNs = 32;
constexpr unsigned int kMaxSleepNs = 512;

// Ints are added as unsigned ints, whose wrap modulo 2^32 is defined (and bit for bit the same).
template <typename T>
struct Word {
  using type = T;
};
template <>
struct Word<int> {
  using type = unsigned int;
};
template <typename V>
struct Vec4;
template <>
struct Vec4<unsigned int> {
  using type = uint4;
};
template <>
struct Vec4<float> {
  using type = float4;
};

__device__ __forceinline__ unsigned int bits_of(unsigned int v) {
  return v;
}
__device__ __forceinline__ unsigned int bits_of(float v) {
  return __float_as_uint(v);
}
template <typename V>
__device__ __forceinline__ V value_of(unsigned int bits);
template <>
__device__ __forceinline__ unsigned int value_of<unsigned int>(unsigned int bits) {
  return bits;
}
template <>
__device__ __forceinline__ float value_of<float>(unsigned int bits) {
  return __uint_as_float(bits);
}

// Relaxed 64-bit accesses at GPU scope: single-copy atomic (never torn), served by L2 where every SM's
// stores meet, and asm volatile with a memory clobber, so that the compiler neither merges nor hoists
// the reads of a wait loop. The value travels in the word itself, so no fence is needed.
__device__ __forceinline__ unsigned long long load_status(const unsigned long long* word) {
  unsigned long long value;
  asm volatile("ld.relaxed.gpu.u64 %0, [%1];" : "=l"(value) : "l"(word) : "memory");
  return value;
}
__device__ __forceinline__ void store_status(unsigned long long* word, unsigned int flag, unsigned int bits) {
  const unsigned long long value = (static_cast<unsigned long long>(flag) << 32) | bits;
  asm volatile("st.relaxed.gpu.u64 [%0], %1;" ::"l"(word), "l"(value) : "memory");
}

// Inclusive scan of v over the 32 lanes: five shuffle steps, each lane adding the value `offset` lanes
// below it (Hillis and Steele), no shared memory.
template <typename V>
__device__ __forceinline__ V warp_inclusive_scan(V v, unsigned int lane) {
#pragma unroll
  for (unsigned int offset = 1; offset < 32; offset *= 2) {
    const V below = __shfl_up_sync(kFullMask, v, offset);
    if (lane >= offset) v += below;
  }
  return v;
}

// The sum of v over the 32 lanes, the same in every lane (a butterfly: float addition is commutative, so
// every lane adds the same pairs).
template <typename V>
__device__ __forceinline__ V warp_sum(V v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

// The exclusive prefix of tile `tile` > 0, the sum of every tile before it, in every lane of the one warp
// that calls it. The warp reads 32 predecessors' words at once, lane 31 the nearest. From the nearest
// tile that has published its inclusive prefix on, the window's values are summed (that prefix covers
// everything before it) and the look-back ends; without one, every tile of the window must have
// published at least its aggregate, and the warp adds all 32 and slides 32 tiles back. Tiles before tile
// 0 count as an inclusive prefix of 0. Each word waited on belongs to a tile whose block has started
// (tile numbers follow the order blocks start), and every started tile publishes its aggregate without
// waiting on anyone: every wait ends.
template <typename V>
__device__ V look_back(const unsigned long long* status, unsigned int tile, unsigned int lane) {
  __nanosleep(kLookBackDelayNs);
  V prefix = V(0);
  for (long long first = static_cast<long long>(tile) - 32;; first -= 32) {
    const long long mine = first + lane;
    unsigned long long word = 0;
    unsigned int inclusive_lanes = 0;
    for (unsigned int sleep_ns = kFirstSleepNs;; sleep_ns = sleep_ns < kMaxSleepNs ? 2 * sleep_ns : kMaxSleepNs) {
      word = mine >= 0 ? load_status(status + mine * kStatusStride) : static_cast<unsigned long long>(kInclusive) << 32;
      const unsigned int flag = static_cast<unsigned int>(word >> 32);
      inclusive_lanes = __ballot_sync(kFullMask, flag == kInclusive);
      const unsigned int not_ready = __ballot_sync(kFullMask, flag == kNotReady);
      // The lanes that count: from the nearest inclusive prefix on, or all 32 without one.
      const unsigned int needed = inclusive_lanes == 0 ? kFullMask : kFullMask << (31 - __clz(inclusive_lanes));
      if ((not_ready & needed) == 0) break;
      __nanosleep(sleep_ns);
    }
    const unsigned int from = inclusive_lanes == 0 ? 0 : 31 - __clz(inclusive_lanes);
    prefix = warp_sum(lane >= from ? value_of<V>(static_cast<unsigned int>(word)) : V(0)) + prefix;
    if (inclusive_lanes != 0) return prefix;
  }
}

// One tile of kTileItems elements per block. Warp w owns elements [512 w, 512 w + 512) of the tile; its
// load k covers 128 consecutive elements, 4 a lane, so each load of the warp reads 512 contiguous bytes.
// A thread scans each of its vectors in registers, the warp scans the vectors' totals with shuffles,
// warp 0 scans the 8 warps' totals, publishes the tile's aggregate, looks back for the tile's exclusive
// prefix and publishes the inclusive one; then every thread adds its offsets and stores.
template <typename V>
__global__ void __launch_bounds__(kThreads)
    scan_kernel(const V* __restrict__ in, V* __restrict__ out, std::size_t n, unsigned int tiles,
                unsigned int* __restrict__ counter, unsigned long long* __restrict__ status) {
  using Vec = typename Vec4<V>::type;
  __shared__ unsigned int tile_slot;
  __shared__ V warp_totals[kWarps];
  __shared__ V warp_offsets[kWarps];
  const unsigned int lane = threadIdx.x % 32;
  const unsigned int warp = threadIdx.x / 32;

  // The tile: how many blocks took a number before this one, not blockIdx.x (see the forward-progress
  // constraint above). Every thread needs it before its loads.
  if (threadIdx.x == 0) tile_slot = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned int tile = tile_slot;
  if (tile >= tiles) return;  // never with a grid of `tiles` blocks; the whole block returns together

  const std::size_t tile_start = static_cast<std::size_t>(tile) * kTileItems;
  const std::size_t warp_start = tile_start + static_cast<std::size_t>(warp) * (kWarpVecs * 4);
  const bool full = tile_start + kTileItems <= n;
  // Streaming loads and stores (__ldcs, __stcs: ld.global.cs, st.global.cs, evict first): every element
  // is read once and written once, so neither needs to stay in L1 or L2, where the status words and the
  // lines still being written do.
  V x[kVecsPerThread][4];
  if (full) {
    const Vec* src = reinterpret_cast<const Vec*>(in + warp_start) + lane;
#pragma unroll
    for (int k = 0; k < kVecsPerThread; ++k) {
      const Vec v = __ldcs(src + k * 32);
      x[k][0] = v.x;
      x[k][1] = v.y;
      x[k][2] = v.z;
      x[k][3] = v.w;
    }
  } else {
    // The last tile: whole vectors below n, then element by element, zeros past n.
#pragma unroll
    for (int k = 0; k < kVecsPerThread; ++k) {
      const std::size_t i = warp_start + static_cast<std::size_t>(k * 32 + lane) * 4;
      if (i + 4 <= n) {
        const Vec v = __ldcs(reinterpret_cast<const Vec*>(in + i));
        x[k][0] = v.x;
        x[k][1] = v.y;
        x[k][2] = v.z;
        x[k][3] = v.w;
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j) x[k][j] = i + j < n ? in[i + j] : V(0);
      }
    }
  }

  // Vector k of each lane: its four elements scanned in registers, then the 32 lanes' totals scanned
  // across the warp; before = the sum of the lower lanes' vectors k, running = the warp's vectors 0..k-1.
  V running = V(0);
#pragma unroll
  for (int k = 0; k < kVecsPerThread; ++k) {
    x[k][1] += x[k][0];
    x[k][2] += x[k][1];
    x[k][3] += x[k][2];
    const V inclusive = warp_inclusive_scan(x[k][3], lane);
    V before = __shfl_up_sync(kFullMask, inclusive, 1);
    if (lane == 0) before = V(0);
    const V vector_total = __shfl_sync(kFullMask, inclusive, 31);
    const V offset = running + before;
#pragma unroll
    for (int j = 0; j < 4; ++j) x[k][j] = offset + x[k][j];
    running += vector_total;
  }
  if (lane == 31) warp_totals[warp] = running;
  // Every warp's total is in shared memory before warp 0 reads them.
  __syncthreads();

  if (warp == 0) {
    const V total = lane < kWarps ? warp_totals[lane] : V(0);
    const V inclusive = warp_inclusive_scan(total, lane);
    V before = __shfl_up_sync(kFullMask, inclusive, 1);
    if (lane == 0) before = V(0);
    const V aggregate = __shfl_sync(kFullMask, inclusive, kWarps - 1);
    V prefix = V(0);
    if (tile == 0) {
      if (lane == 0) store_status(status + tile * kStatusStride, kInclusive, bits_of(aggregate));
    } else {
      // The aggregate first, without waiting: the tiles after this one may need it, and it is what
      // keeps every wait finite.
      if (lane == 0) store_status(status + tile * kStatusStride, kAggregate, bits_of(aggregate));
      prefix = look_back<V>(status, tile, lane);
      if (lane == 0) store_status(status + tile * kStatusStride, kInclusive, bits_of(prefix + aggregate));
    }
    if (lane < kWarps) warp_offsets[lane] = prefix + before;
  }
  // Every warp's offset (the tile's prefix and the warps before it) is in shared memory before any
  // warp reads its own.
  __syncthreads();
  const V offset = warp_offsets[warp];

  if (full) {
    Vec* dst = reinterpret_cast<Vec*>(out + warp_start) + lane;
#pragma unroll
    for (int k = 0; k < kVecsPerThread; ++k) {
      Vec v;
      v.x = offset + x[k][0];
      v.y = offset + x[k][1];
      v.z = offset + x[k][2];
      v.w = offset + x[k][3];
      __stcs(dst + k * 32, v);
    }
  } else {
#pragma unroll
    for (int k = 0; k < kVecsPerThread; ++k) {
      const std::size_t i = warp_start + static_cast<std::size_t>(k * 32 + lane) * 4;
      if (i + 4 <= n) {
        Vec v;
        v.x = offset + x[k][0];
        v.y = offset + x[k][1];
        v.z = offset + x[k][2];
        v.w = offset + x[k][3];
        __stcs(reinterpret_cast<Vec*>(out + i), v);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (i + j < n) out[i + j] = offset + x[k][j];
      }
    }
  }
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

namespace {

// Enqueues the scan of in[0, n) into out on `stream`, T = int or float; `launcher` names the caller in
// error messages.
template <typename T>
void launch_scan(const T* in, T* out, std::size_t n, void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                 const char* launcher) {
  using V = typename Word<T>::type;
  if (reinterpret_cast<std::uintptr_t>(in) % 16 != 0 || reinterpret_cast<std::uintptr_t>(out) % 16 != 0)
    throw std::invalid_argument(std::string(launcher) +
                                ": in and out must be 16-byte aligned (as cudaMalloc returns them): the "
                                "kernel moves 16-byte vectors");
  if (n == 0) return;  // nothing to scan, and a grid of 0 blocks is an invalid launch
  const std::size_t tiles = (n + kTileItems - 1) / kTileItems;
  if (tiles > 0x7fffffffu)
    throw std::invalid_argument(std::string(launcher) + ": n = " + std::to_string(n) +
                                " needs more than 2^31 - 1 tiles, the most one grid holds");
  // The last tile's word ends the workspace: (tiles - 1) strides after the first, 8 bytes long.
  const std::size_t needed = kStatusOffset + ((tiles - 1) * kStatusStride + 1) * sizeof(unsigned long long);
  if (workspace == nullptr || workspace_bytes < needed || reinterpret_cast<std::uintptr_t>(workspace) % 8 != 0)
    throw std::invalid_argument(std::string(launcher) + ": the workspace must hold " + std::to_string(needed) +
                                " bytes, 8-byte aligned (scan_workspace_bytes(n) is enough), got " +
                                std::to_string(workspace_bytes));
  unsigned char* bytes = static_cast<unsigned char*>(workspace);
  // One memset before the kernel, on the same stream: the tile counter back to 0 and every status word
  // to "not ready". Nothing from an earlier call, and no garbage, may count as published.
  CUDA_CHECK(cudaMemsetAsync(workspace, 0, needed, stream));
  scan_kernel<V><<<static_cast<unsigned int>(tiles), kThreads, 0, stream>>>(
      reinterpret_cast<const V*>(in), reinterpret_cast<V*>(out), n, static_cast<unsigned int>(tiles),
      reinterpret_cast<unsigned int*>(bytes), reinterpret_cast<unsigned long long*>(bytes + kStatusOffset));
  CUDA_CHECK_KERNEL();
}

}  // namespace

void scan_inclusive(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                    cudaStream_t stream) {
  launch_scan(in, out, n, workspace, workspace_bytes, stream, "scan_inclusive");
}

void scan_inclusive_float(const float* in, float* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                          cudaStream_t stream) {
  launch_scan(in, out, n, workspace, workspace_bytes, stream, "scan_inclusive_float");
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: a scan reads each element once and writes it once, 8 bytes per element: 256M ints move
// 2 GiB, about 0.72 ms at the ~3.0 TB/s a copy reaches on an H100, and CUB's InclusiveSum takes about
// 0.88 ms (2450 GB/s). The add is free; the time goes to bytes in flight, and to how long a tile waits
// for the sum of the tiles before it.
int scan_lesson(wb::Lesson& lesson) {
  return p3::run_scan_lesson(lesson, scan_inclusive, scan_inclusive_float);
}

}  // namespace

WB_LESSON(scan_lesson, "inclusive scan in one pass: tiles that pass their sums along, against CUB's InclusiveSum");
