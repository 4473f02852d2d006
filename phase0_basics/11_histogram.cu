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

// Each byte is one increment, a gigabyte of them per call, onto at most 256 counters: where those
// counters live while the bytes stream past decides the speed, and so does how often two increments
// meet at one counter.
__global__ void histogram_kernel(const unsigned char* __restrict__ data, std::size_t n, unsigned int* __restrict__ bins,
                                 int num_bins) {
  // TODO(0.11): count every byte of data[0..n) exactly once: a byte of value v adds 1 to
  //             bins[v * num_bins / 256], whatever order the blocks run in. data may
  //             start at any byte address, n need not be a multiple of anything, no byte past n may
  //             be read, and all n bytes may be equal: that input must run as fast as random bytes
  //             (about 60 lines, with the helpers you write above this kernel).
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void histogram_bins(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins, cudaStream_t stream) {
  if (num_bins < 1 || num_bins > kHistogramMaxBins)
    throw std::invalid_argument("histogram_bins: num_bins must be 1..256, got " + std::to_string(num_bins));
  if (n > kHistogramMaxBytes)
    throw std::invalid_argument("histogram_bins: n = " + std::to_string(n) +
                                " bytes could overflow a 32-bit count (n must stay below 2^32)");
  // TODO(0.11): leave exactly the histogram of data[0..n) in bins, enqueued on `stream`. bins holds
  //             garbage on entry (the tests fill it with poison) and every call must give the same
  //             answer; n = 0 must give all zeros, and a grid of 0 blocks is an invalid launch. Choose
  //             the grid and replace the placeholder launch (about 10 lines).
  histogram_kernel<<<1, 32, 0, stream>>>(data, n, bins, num_bins);  // TODO(0.11): placeholder launch
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
