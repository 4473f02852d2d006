// SPDX-License-Identifier: MIT
// 0.11 histogram (capstone): count a gigabyte of bytes into 256 bins as fast as the library does.
//
// You learn: to design a memory-bound kernel whose writes collide, from what phase 0 taught, and to
// keep it fast when the input sends every write to the same place.
// Task: bins[b] = how many of data[0..n) fall into bin b; byte v falls into bin v * num_bins / 256
// (num_bins 1..256; with 256 bins, bin v). data may start at any byte address; n is a std::size_t
// below 2^32. bins arrives full of garbage and must hold exactly the histogram after every call.
// You decide: where the counts live while the bytes stream past; how many bytes each thread keeps
//             in flight, and how it reads them from any start address; what keeps input that is one
//             value repeated as fast as random bytes.
// Source: the CUB documentation, cub::DeviceHistogram. The article behind the reference's design is
// named in the first hint, since its title gives the design away.
// Run:   ./workbook run 0.11 [-- --size 1G]
// Check: ./workbook check 0.11
// Aim:   >= 90% of CUB's HistogramEven in the same run, on random bytes and on bytes that are all
//        equal (H100: CUB read 2160-2730 GB/s in our runs, by run and input; the lesson times it).
// Previous: 0.10 error_handling. Next: phase 1, 1.01 naive matmul.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase0_basics/basics.cuh"
#include "phase0_basics/harness/cub_histogram.h"
#include "phase0_basics/harness/reference.h"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

// 512 threads per block, each loading two 16-byte vectors per trip of its grid-stride loop before it
// counts either: 32 bytes in flight per thread, 64 KiB per SM at 2048 resident threads.
constexpr unsigned int kThreads = 512;
constexpr unsigned int kVecsPerThread = 2;
constexpr unsigned int kVecBytes = 16;
constexpr unsigned int kValues = 256;  // byte values: the counters of a block's private histogram
// The block keeps one copy of its 256 counters per lane: counter v of lane l is word v * 32 + l, so it
// sits in bank l. A warp's 32 increments then never meet at one counter or in one bank, whatever the
// bytes; only the 16 warps of the block share a lane's copy (hence still atomics). 32 KiB per block.
constexpr unsigned int kLanes = 32;

// Adds `count` to this lane's counter of byte value `value` (`column` points at the lane's counter 0).
__device__ __forceinline__ void add_count(unsigned int* column, unsigned int value, unsigned int count) {
  atomicAdd(&column[value * kLanes], count);
}

// Four bytes of a word into this lane's copy.
__device__ __forceinline__ void count_word(unsigned int* column, unsigned int w) {
  add_count(column, w & 0xFFu, 1u);
  add_count(column, (w >> 8) & 0xFFu, 1u);
  add_count(column, (w >> 16) & 0xFFu, 1u);
  add_count(column, w >> 24, 1u);
}

// A run of equal bytes kept in registers: a vector of 16 equal bytes only lengthens the thread's run,
// which reaches shared memory once, when the value changes or the loop ends (one add instead of 16 on
// input that is one value repeated).
struct Run {
  unsigned int value = 0;
  unsigned int count = 0;
};

__device__ __forceinline__ void count_vec(unsigned int* column, const uint4& v, Run& run) {
  const unsigned int value = v.x & 0xFFu;
  const unsigned int splat = value * 0x01010101u;  // the word whose four bytes all equal `value`
  if (v.x == splat && v.y == splat && v.z == splat && v.w == splat) {
    if (value != run.value) {
      if (run.count != 0) add_count(column, run.value, run.count);
      run.value = value;
      run.count = 0;
    }
    run.count += kVecBytes;  // at most n < 2^32
  } else {
    count_word(column, v.x);
    count_word(column, v.y);
    count_word(column, v.z);
    count_word(column, v.w);
  }
}

// Each byte is one increment, a gigabyte of them per call, onto at most 256 counters: where those
// counters live while the bytes stream past decides the speed, and so does how often two increments
// meet at one counter.
__global__ void histogram_kernel(const unsigned char* __restrict__ data, std::size_t n, unsigned int* __restrict__ bins,
                                 int num_bins) {
  // The block's private copies, one counter per byte value and lane; bins' coarser bins come at the end.
  __shared__ unsigned int hist[kValues * kLanes];
  for (unsigned int b = threadIdx.x; b < kValues * kLanes; b += blockDim.x) hist[b] = 0;
  unsigned int* column = hist + threadIdx.x % kLanes;
  // Every counter is zero before any thread adds to one.
  __syncthreads();

  // A 16-byte load needs a 16-byte-aligned address: `head` bytes up to the first boundary, then whole
  // vectors, then a tail of fewer than 16 bytes. Block 0 counts head and tail, one byte per thread.
  const std::size_t misalign = reinterpret_cast<std::uintptr_t>(data) % kVecBytes;
  const std::size_t to_boundary = (kVecBytes - misalign) % kVecBytes;
  const std::size_t head = to_boundary < n ? to_boundary : n;
  const std::size_t num_vecs = (n - head) / kVecBytes;
  const std::size_t tail_start = head + num_vecs * kVecBytes;
  if (blockIdx.x == 0) {
    if (threadIdx.x < head) add_count(column, data[threadIdx.x], 1u);
    if (tail_start + threadIdx.x < n) add_count(column, data[tail_start + threadIdx.x], 1u);
  }

  // Whole vectors, grid-stride: trip t of thread i covers vectors base and base + kThreads, so a warp
  // reads 512 contiguous bytes per load. Both loads are issued before either vector is counted.
  const uint4* vecs = reinterpret_cast<const uint4*>(data + head);
  const std::size_t per_trip = static_cast<std::size_t>(kThreads) * kVecsPerThread;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * per_trip;
  Run run;
  for (std::size_t base = blockIdx.x * per_trip + threadIdx.x; base < num_vecs; base += stride) {
    uint4 v[kVecsPerThread];
#pragma unroll
    for (unsigned int u = 0; u < kVecsPerThread; ++u) {
      const std::size_t i = base + u * kThreads;
      v[u] = i < num_vecs ? __ldg(&vecs[i]) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (unsigned int u = 0; u < kVecsPerThread; ++u)
      if (base + u * kThreads < num_vecs) count_vec(column, v[u], run);
  }
  if (run.count != 0) add_count(column, run.value, run.count);
  // The block's counts are complete before any thread reads one.
  __syncthreads();

  // One thread per byte value folds its 32 copies (starting at copy b, so that the threads of a warp
  // read 32 different banks) and adds the count to the bin it falls into; other blocks do the same at
  // any moment, so these are global atomics. Empty counters cost nothing.
  for (unsigned int b = threadIdx.x; b < kValues; b += blockDim.x) {
    unsigned int count = 0;
#pragma unroll
    for (unsigned int c = 0; c < kLanes; ++c) count += hist[b * kLanes + (b + c) % kLanes];
    if (count != 0) atomicAdd(&bins[b * static_cast<unsigned int>(num_bins) / kValues], count);
  }
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void histogram_bins(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins, cudaStream_t stream) {
  if (num_bins < 1 || num_bins > kHistogramMaxBins)
    throw std::invalid_argument("histogram_bins: num_bins must be 1..256, got " + std::to_string(num_bins));
  if (n > kHistogramMaxBytes)
    throw std::invalid_argument("histogram_bins: n = " + std::to_string(n) +
                                " bytes could overflow a 32-bit count (n must stay below 2^32)");
  // Blocks only add to bins, so it starts from zero, on the same stream: the zeros land before the
  // kernel. Zeros are also the whole answer for n = 0.
  CUDA_CHECK(cudaMemsetAsync(bins, 0, static_cast<std::size_t>(num_bins) * sizeof(unsigned int), stream));
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch
  // As many blocks as the GPU holds at once, and no more (the grid-stride loop covers the rest): each
  // block ends with up to 256 global atomics, so extra blocks only add atomics.
  static const int blocks_per_sm = [] {
    int count = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&count, histogram_kernel, kThreads, 0));
    return std::max(count, 1);
  }();
  const int blocks =
      std::max(1, wb::grid_stride_blocks(n / kVecBytes, static_cast<int>(kThreads * kVecsPerThread), blocks_per_sm));
  histogram_kernel<<<blocks, kThreads, 0, stream>>>(data, n, bins, num_bins);
  CUDA_CHECK_KERNEL();
}

void histogram_256(const unsigned char* data, std::size_t n, unsigned int* bins, cudaStream_t stream) {
  histogram_bins(data, n, bins, kHistogramMaxBins, stream);
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Runs histogram_256 on the device copy of `host` (its CPU histogram is the answer), verifies it before
// and after timing, times CUB's HistogramEven on the same bytes, and prints one result line against it.
bool histogram_line(wb::Lesson& lesson, const std::string& name, const std::vector<unsigned char>& host,
                    const wb::DeviceBuffer<unsigned char>& din) {
  const std::size_t n = host.size();
  const wb::BenchOptions options = lesson.bench_options(true);
  const std::vector<unsigned int> expected = p0::histogram_reference(host.data(), n, kHistogramMaxBins);

  // The yardstick is checked too: a library line that miscounts would flatter every kernel.
  std::vector<unsigned int> cub_bins;
  const double cub_gbs = wb::gb_per_s(
      static_cast<double>(n), p0::time_cub_histogram(din.data(), n, kHistogramMaxBins, options, &cub_bins).median_ms);
  bool cub_right = cub_bins == expected;
  if (!cub_right) std::fprintf(stderr, "%s: CUB's HistogramEven disagrees with the CPU histogram\n", name.c_str());

  p0::HistogramCase what;
  what.data = host.data();
  what.n = n;
  what.offset = reinterpret_cast<std::uintptr_t>(din.data()) % 16;
  what.num_bins = kHistogramMaxBins;
  wb::GuardedDeviceBuffer<unsigned int> bins(kHistogramMaxBins);  // poisoned, canaries around
  auto launch = [&] { histogram_256(din.data(), n, bins.data(), nullptr); };
  auto verify = [&](const char* when) {
    const std::string verdict = p0::judge_histogram(what, expected, bins.download());
    const wb::GuardReport guards = bins.check_guards();
    if (!verdict.empty()) std::fprintf(stderr, "%s%s: %s", name.c_str(), when, verdict.c_str());
    if (!guards.ok()) std::fprintf(stderr, "%s", guards.describe(name + " bins").c_str());
    // The cause on the result line: "output untouched", "lost or double-counted bytes", ...
    if (!verdict.empty()) wb::note_check_failure(name, wb::failure_headline(verdict));
    if (!guards.ok()) wb::note_check_failure(name, guards.reason());
    return verdict.empty() && guards.ok();
  };
  launch();
  CUDA_CHECK(cudaDeviceSynchronize());
  bool pass = verify("");
  const wb::TimingStats time = wb::bench(nullptr, options, launch);
  pass = verify(" (after timing)") && pass;
  if (!cub_right) wb::note_check_failure("CUB HistogramEven", "wrong counts");
  lesson.report(lesson.memory_bound_line(name, "n=" + wb::format_count(n), time, static_cast<double>(n),
                                         pass && cub_right, wb::MeasuredReference{"CUB HistogramEven", cub_gbs}));
  return pass && cub_right;
}

// Napkin math: a histogram reads each byte once and writes 256 counts, so its traffic is n bytes: 1 GiB
// in about 0.36 ms at the ~3 TB/s an H100 reads. The lines count GB/s of input read against CUB's
// HistogramEven on the same bytes in the same run (2160-2730 GB/s on an H100, by run and input). The
// hard part is not the bytes but the 2^30 increments, about 3000 per nanosecond at that speed.
int histogram_lesson(wb::Lesson& lesson) {
  const std::size_t n = lesson.size_or(wb::GiB);
  if (n == 0 || n > kHistogramMaxBytes)
    throw wb::UsageError("--size must be 1 to 4G - 1 bytes (counts are 32-bit), got " + std::to_string(n));
  // Device: the bytes, CUB's storage and the L2 flush; host: the bytes.
  lesson.require_memory(static_cast<double>(n) + 256.0 * wb::MiB, 1.1 * static_cast<double>(n));
  std::vector<unsigned char> host = p0::random_bytes(n, lesson.seed());
  wb::DeviceBuffer<unsigned char> din(host);
  bool pass = histogram_line(lesson, "histogram_256", host, din);

  // One hot bin: every byte the same value (from the seed), so every increment meets every other at
  // one counter.
  const unsigned char hot = static_cast<unsigned char>(wb::Rng(lesson.seed()).next_u64());
  std::fill(host.begin(), host.end(), hot);
  CUDA_CHECK(cudaMemset(din.data(), hot, n));
  pass = histogram_line(lesson, "histogram_256-skewed", host, din) && pass;
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(histogram_lesson, "a byte histogram of random and of one-valued bytes, measured against CUB");
