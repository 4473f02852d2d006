// SPDX-License-Identifier: MIT
#include <stdexcept>

#include "common/planted_bugs.cuh"
#include "phase3_reduction/passes.h"
#include "phase3_reduction/tests/wrong_kernels.h"

namespace {

constexpr unsigned int kThreads = 256;

enum class Bug {
  None,
  ReadsPastN,
  MissesTail,
  NoSyncthreads,
  DropsLastWarpStep,
  DoubleCountsLoad,
  WritesInput,
  NoSyncwarp,
  ReadsPastNMasked
};

// A sequential-addressing block sum (3.03, with 3.05's warp finish) with one switchable bug.
template <Bug bug>
__global__ void planted_kernel(const float* in, float* out, std::size_t n, bool first_pass) {
  __shared__ float partial[kThreads];
  const unsigned int tid = threadIdx.x;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + tid;
  float v = 0.0f;
  if (bug == Bug::ReadsPastN) {
    v = in[i];  // no bound: the last block reads up to 255 elements past n
  } else if (bug == Bug::ReadsPastNMasked) {
    const float x = read_even_if_masked(in, i);  // reads up to 255 elements past n ...
    v = i < n ? x : 0.0f;                        // ... but adds none of them: only memcheck sees it
  } else if (bug == Bug::MissesTail && first_pass && i >= n / blockDim.x * blockDim.x) {
    v = 0.0f;  // a loop bound of n rounded down to whole blocks: the last partial block adds nothing
  } else if (i < n) {
    v = in[i];
    // The second load of an add during load, but the blocks still cover only blockDim.x elements.
    if (bug == Bug::DoubleCountsLoad && i + blockDim.x < n) v += in[i + blockDim.x];
  }
  partial[tid] = v;
  __syncthreads();
  // The missing-barrier bug, made to show on every run: warps 2-7 are held back 10 us, so warps 0-1
  // read their slots before they are updated (real code loses the race only now and then).
  if (bug == Bug::NoSyncthreads && tid >= 64) __nanosleep(10000);
  for (unsigned int s = blockDim.x / 2; s > 32; s /= 2) {
    if (tid < s) partial[tid] += partial[tid + s];
    if (bug != Bug::NoSyncthreads) __syncthreads();
  }
  if (bug == Bug::NoSyncwarp) {
    // 3.05's unrolled last warp on volatile shared memory, without __syncwarp between its steps.
    if (tid < 32) {
      partial[tid] += partial[tid + 32];
      const float sum = warp_tree_sum_without_syncwarp(partial, tid);
      if (tid == 0) out[blockIdx.x] = sum;
    }
    return;
  }
  if (tid < 32) {
    float sum = partial[tid] + partial[tid + 32];
    const unsigned int last = bug == Bug::DropsLastWarpStep ? 2 : 1;  // stops before the final pair
    for (unsigned int offset = 16; offset >= last; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (tid == 0) {
      out[blockIdx.x] = sum;
      if (bug == Bug::WritesInput && i < n) const_cast<float*>(in)[i] = sum;  // "reuses" the input as scratch
    }
  }
}

template <Bug bug>
void launch(const float* in, float* out, std::size_t n, float* workspace, cudaStream_t stream) {
  reduce_in_passes(in, out, n, workspace, stream, kThreads, 0,
                   [&](const float* src, float* dst, std::size_t count, unsigned int blocks) {
                     planted_kernel<bug><<<blocks, kThreads, 0, stream>>>(src, dst, count, src == in);
                     CUDA_CHECK_KERNEL();
                   });
}

}  // namespace

void planted_correct(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::None>(in, out, n, ws, s);
}
void planted_reads_past_n(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::ReadsPastN>(in, out, n, ws, s);
}
void planted_misses_tail(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::MissesTail>(in, out, n, ws, s);
}
void planted_no_syncthreads(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::NoSyncthreads>(in, out, n, ws, s);
}
void planted_drops_last_warp_step(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::DropsLastWarpStep>(in, out, n, ws, s);
}
void planted_double_counts_load(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::DoubleCountsLoad>(in, out, n, ws, s);
}
void planted_writes_input(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::WritesInput>(in, out, n, ws, s);
}
void planted_no_syncwarp(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::NoSyncwarp>(in, out, n, ws, s);
}
void planted_reads_past_n_masked(const float* in, float* out, std::size_t n, float* ws, cudaStream_t s) {
  launch<Bug::ReadsPastNMasked>(in, out, n, ws, s);
}

// ---- 3.11 scan ------------------------------------------------------------------------------------

namespace {

constexpr unsigned int kScanThreads = 128;
constexpr unsigned int kScanWarps = kScanThreads / 32;
constexpr std::size_t kScanTile = 4 * kScanThreads;  // one int4 a thread: 512 elements
constexpr std::size_t kScanStatusOffset = 256;       // bytes: the counter first, the status words from here
constexpr unsigned int kNotReady = 0, kAggregate = 1, kInclusive = 2;

enum class ScanBug {
  None,
  CounterNotReset,
  Exclusive,
  DropsPartialTile,
  AggregateAsPrefix,
  NoCarry,
  NoSyncwarp,
  ReadsVecPastN
};

__device__ unsigned long long scan_load_status(const unsigned long long* word) {
  return *static_cast<const volatile unsigned long long*>(word);  // volatile: a relaxed load, from L2
}
__device__ void scan_store_status(unsigned long long* word, unsigned int flag, unsigned int value) {
  *static_cast<volatile unsigned long long*>(word) = (static_cast<unsigned long long>(flag) << 32) | value;
}

// The word of a tile that has started, once it has published something: its aggregate comes without
// waiting on anyone, so the wait ends.
__device__ unsigned long long scan_wait_published(const unsigned long long* word) {
  unsigned long long value = scan_load_status(word);
  for (unsigned int sleep_ns = 32; static_cast<unsigned int>(value >> 32) == kNotReady;
       sleep_ns = sleep_ns < 512 ? 2 * sleep_ns : 512) {
    __nanosleep(sleep_ns);
    value = scan_load_status(word);
  }
  return value;
}

__device__ unsigned int scan_warp_inclusive(unsigned int v, unsigned int lane) {
  for (unsigned int offset = 1; offset < 32; offset *= 2) {
    const unsigned int below = __shfl_up_sync(0xffffffffu, v, offset);
    if (lane >= offset) v += below;
  }
  return v;
}

// Hillis and Steele in shared memory, as before Volta: no __syncwarp() between the steps. A warp that
// runs in lockstep reads every slot before any lane overwrites it, so plain runs are right; lane l reads
// s[l - offset] while lane l - offset writes it with nothing ordering the two, which racecheck reports.
__device__ unsigned int scan_warp_inclusive_without_syncwarp(volatile unsigned int* s, unsigned int lane,
                                                             unsigned int v) {
  s[lane] = v;
  for (unsigned int offset = 1; offset < 32; offset *= 2)
    if (lane >= offset) s[lane] += s[lane - offset];
  return s[lane];
}

template <ScanBug bug>
__global__ void planted_scan_kernel(const unsigned int* in, unsigned int* out, std::size_t n, unsigned int tiles,
                                    unsigned int* counter, unsigned long long* status) {
  __shared__ unsigned int tile_slot;
  __shared__ unsigned int lane_totals[kScanThreads];
  __shared__ unsigned int warp_totals[kScanWarps];
  __shared__ unsigned int warp_offsets[kScanWarps];
  const unsigned int lane = threadIdx.x % 32;
  const unsigned int warp = threadIdx.x / 32;
  if (threadIdx.x == 0) tile_slot = atomicAdd(counter, 1u);
  __syncthreads();
  const unsigned int tile = tile_slot;
  if (tile >= tiles) return;  // CounterNotReset's second call: every block, so nothing is written

  // This thread's four elements: a whole int4 below n, else element by element, zeros past n.
  const std::size_t first = static_cast<std::size_t>(tile) * kScanTile + 4 * threadIdx.x;
  unsigned int x[4] = {0, 0, 0, 0};
  if (first + 4 <= n) {
    const uint4 v = reinterpret_cast<const uint4*>(in)[first / 4];
    x[0] = v.x;
    x[1] = v.y;
    x[2] = v.z;
    x[3] = v.w;
  } else if (bug == ScanBug::ReadsVecPastN && first < n + 4) {
    // The vector that holds n - 1 and the one after it, read whole; only the elements below n count.
    for (int j = 0; j < 4; ++j) {
      const unsigned int v = read_even_if_masked(in, first + j);
      x[j] = first + j < n ? v : 0u;
    }
  } else {
    for (int j = 0; j < 4; ++j) x[j] = first + j < n ? in[first + j] : 0u;
  }
  x[1] += x[0];
  x[2] += x[1];
  x[3] += x[2];
  const unsigned int inclusive = bug == ScanBug::NoSyncwarp
                                     ? scan_warp_inclusive_without_syncwarp(lane_totals + 32 * warp, lane, x[3])
                                     : scan_warp_inclusive(x[3], lane);
  unsigned int before = __shfl_up_sync(0xffffffffu, inclusive, 1);
  if (lane == 0) before = 0;
  if (lane == 31) warp_totals[warp] = inclusive;
  __syncthreads();

  if (warp == 0) {
    const unsigned int total = lane < kScanWarps ? warp_totals[lane] : 0u;
    const unsigned int warp_inclusive = scan_warp_inclusive(total, lane);
    unsigned int warp_before = __shfl_up_sync(0xffffffffu, warp_inclusive, 1);
    if (lane == 0) warp_before = 0;
    const unsigned int aggregate = __shfl_sync(0xffffffffu, warp_inclusive, kScanWarps - 1);
    unsigned int prefix = 0;
    if (lane == 0) {
      if (tile == 0 || bug == ScanBug::NoCarry) {
        scan_store_status(status + tile, kInclusive, aggregate);
      } else if (bug == ScanBug::AggregateAsPrefix) {
        scan_store_status(status + tile, kAggregate, aggregate);
        prefix = static_cast<unsigned int>(scan_wait_published(status + tile - 1));  // whatever it is
      } else {
        // One predecessor at a time: add aggregates until an inclusive prefix, which ends the walk.
        scan_store_status(status + tile, kAggregate, aggregate);
        for (long long p = static_cast<long long>(tile) - 1; p >= 0; --p) {
          const unsigned long long word = scan_wait_published(status + p);
          prefix += static_cast<unsigned int>(word);
          if (static_cast<unsigned int>(word >> 32) == kInclusive) break;
        }
        scan_store_status(status + tile, kInclusive, prefix + aggregate);
      }
    }
    prefix = __shfl_sync(0xffffffffu, prefix, 0);
    if (lane < kScanWarps) warp_offsets[lane] = prefix + warp_before;
  }
  __syncthreads();
  const unsigned int offset = warp_offsets[warp] + before;
  unsigned int y[4];
  for (int j = 0; j < 4; ++j) y[j] = offset + (bug == ScanBug::Exclusive ? (j == 0 ? 0u : x[j - 1]) : x[j]);
  if (first + 4 <= n) {
    reinterpret_cast<uint4*>(out)[first / 4] = make_uint4(y[0], y[1], y[2], y[3]);
  } else {
    for (int j = 0; j < 4; ++j)
      if (first + j < n) out[first + j] = y[j];
  }
}

template <ScanBug bug>
void launch_planted_scan(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                         cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t all_tiles = (n + kScanTile - 1) / kScanTile;
  const std::size_t tiles = bug == ScanBug::DropsPartialTile ? n / kScanTile : all_tiles;
  const std::size_t needed = kScanStatusOffset + 8 * all_tiles;
  if (workspace_bytes < needed) throw std::invalid_argument("planted scan: workspace too small");
  unsigned char* bytes = static_cast<unsigned char*>(workspace);
  if (bug == ScanBug::CounterNotReset) {
    static const void* seen = nullptr;
    static std::size_t seen_n = 0;
    if (workspace != seen || n != seen_n) CUDA_CHECK(cudaMemsetAsync(bytes, 0, sizeof(unsigned int), stream));
    seen = workspace;
    seen_n = n;
    CUDA_CHECK(cudaMemsetAsync(bytes + kScanStatusOffset, 0, 8 * all_tiles, stream));
  } else {
    CUDA_CHECK(cudaMemsetAsync(bytes, 0, needed, stream));
  }
  if (tiles == 0) return;
  planted_scan_kernel<bug><<<static_cast<unsigned int>(tiles), kScanThreads, 0, stream>>>(
      reinterpret_cast<const unsigned int*>(in), reinterpret_cast<unsigned int*>(out), n,
      static_cast<unsigned int>(tiles), reinterpret_cast<unsigned int*>(bytes),
      reinterpret_cast<unsigned long long*>(bytes + kScanStatusOffset));
  CUDA_CHECK_KERNEL();
}

}  // namespace

void planted_scan_correct(const int* in, int* out, std::size_t n, void* ws, std::size_t bytes, cudaStream_t s) {
  launch_planted_scan<ScanBug::None>(in, out, n, ws, bytes, s);
}
void planted_scan_counter_not_reset(const int* in, int* out, std::size_t n, void* ws, std::size_t bytes,
                                    cudaStream_t s) {
  launch_planted_scan<ScanBug::CounterNotReset>(in, out, n, ws, bytes, s);
}
void planted_scan_exclusive(const int* in, int* out, std::size_t n, void* ws, std::size_t bytes, cudaStream_t s) {
  launch_planted_scan<ScanBug::Exclusive>(in, out, n, ws, bytes, s);
}
void planted_scan_drops_partial_tile(const int* in, int* out, std::size_t n, void* ws, std::size_t bytes,
                                     cudaStream_t s) {
  launch_planted_scan<ScanBug::DropsPartialTile>(in, out, n, ws, bytes, s);
}
void planted_scan_aggregate_as_prefix(const int* in, int* out, std::size_t n, void* ws, std::size_t bytes,
                                      cudaStream_t s) {
  launch_planted_scan<ScanBug::AggregateAsPrefix>(in, out, n, ws, bytes, s);
}
void planted_scan_no_carry(const int* in, int* out, std::size_t n, void* ws, std::size_t bytes, cudaStream_t s) {
  launch_planted_scan<ScanBug::NoCarry>(in, out, n, ws, bytes, s);
}
void planted_scan_no_syncwarp(const int* in, int* out, std::size_t n, void* ws, std::size_t bytes, cudaStream_t s) {
  launch_planted_scan<ScanBug::NoSyncwarp>(in, out, n, ws, bytes, s);
}
void planted_scan_reads_vec_past_n(const int* in, int* out, std::size_t n, void* ws, std::size_t bytes,
                                   cudaStream_t s) {
  launch_planted_scan<ScanBug::ReadsVecPastN>(in, out, n, ws, bytes, s);
}
