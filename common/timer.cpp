// SPDX-License-Identifier: MIT
#include "common/timer.h"

#include <algorithm>
#include <memory>

#include "common/check.h"
#include "common/l2_flush.h"

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
  std::unique_ptr<L2Flush> flush;
  if (options.flush_l2) flush = std::make_unique<L2Flush>();
  for (int i = 0; i < options.warmup; ++i) work();
  CUDA_CHECK(cudaStreamSynchronize(stream));

  const int repeat = std::max(options.repeat, 1);
  std::vector<std::unique_ptr<GpuTimer>> timers;
  for (int i = 0; i < repeat; ++i) timers.push_back(std::make_unique<GpuTimer>());
  for (int i = 0; i < repeat; ++i) {
    // Before the start event, so not timed: see common/l2_flush.h for why it reads.
    if (flush) flush->run(stream);
    timers[i]->start(stream);
    work();
    timers[i]->stop(stream);
  }
  std::vector<double> times;
  for (auto& timer : timers) times.push_back(timer->elapsed_ms());
  return summarize(times);
}

}  // namespace wb
