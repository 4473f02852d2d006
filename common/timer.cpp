// SPDX-License-Identifier: MIT
#include "common/timer.h"

#include <algorithm>
#include <memory>

#include "common/buffer.h"
#include "common/check.h"

namespace wb {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(pos);
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

TimingStats summarize(std::vector<double> times_ms) {
  TimingStats stats;
  if (times_ms.empty()) return stats;
  std::sort(times_ms.begin(), times_ms.end());
  stats.samples = static_cast<int>(times_ms.size());
  stats.min_ms = times_ms.front();
  stats.max_ms = times_ms.back();
  stats.median_ms = quantile(times_ms, 0.5);
  const double iqr = quantile(times_ms, 0.75) - quantile(times_ms, 0.25);
  stats.spread_pct = stats.median_ms > 0 ? 100.0 * 0.5 * iqr / stats.median_ms : 0.0;
  return stats;
}

GpuTimer::GpuTimer() {
  CUDA_CHECK(cudaEventCreate(&start_));
  CUDA_CHECK(cudaEventCreate(&stop_));
}

GpuTimer::~GpuTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void GpuTimer::start(cudaStream_t stream) {
  CUDA_CHECK(cudaEventRecord(start_, stream));
}
void GpuTimer::stop(cudaStream_t stream) {
  CUDA_CHECK(cudaEventRecord(stop_, stream));
}

double GpuTimer::elapsed_ms() {
  CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return ms;
}

TimingStats bench(cudaStream_t stream, const BenchOptions& options, const std::function<void()>& work) {
  DeviceBuffer<unsigned char> flush;
  if (options.flush_l2) {
    int device = 0, l2_bytes = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
    flush = DeviceBuffer<unsigned char>(2 * static_cast<std::size_t>(std::max(l2_bytes, 1 << 20)));
  }
  for (int i = 0; i < options.warmup; ++i) work();
  CUDA_CHECK(cudaStreamSynchronize(stream));

  const int repeat = std::max(options.repeat, 1);
  std::vector<std::unique_ptr<GpuTimer>> timers;
  for (int i = 0; i < repeat; ++i) timers.push_back(std::make_unique<GpuTimer>());
  for (int i = 0; i < repeat; ++i) {
    // The flush writes a buffer twice the size of L2, evicting the kernel's data; it runs
    // before the start event, so it is not timed.
    if (options.flush_l2) CUDA_CHECK(cudaMemsetAsync(flush.data(), i & 0xff, flush.bytes(), stream));
    timers[i]->start(stream);
    work();
    timers[i]->stop(stream);
  }
  std::vector<double> times;
  for (auto& timer : timers) times.push_back(timer->elapsed_ms());
  return summarize(times);
}

}  // namespace wb
