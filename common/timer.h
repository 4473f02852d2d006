// SPDX-License-Identifier: MIT
// GPU timing: CUDA events on the launcher's stream, warm-up launches discarded, each repeat timed
// on its own, reported as median, min and spread. Memory-bound lessons flush L2 between repeats
// (a read of twice the L2 size outside the timed region, common/l2_flush.h) so they measure DRAM,
// not cache.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <vector>

namespace wb {

struct TimingStats {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double spread_pct = 0;  // half the interquartile range, in % of the median
  int samples = 0;
};

// Pure arithmetic on per-repeat times (host-tested).
TimingStats summarize(std::vector<double> times_ms);

struct BenchOptions {
  int warmup = 3;
  int repeat = 20;
  bool flush_l2 = false;
};

// Times `work` (which enqueues on `stream`) `repeat` times after `warmup` untimed runs.
TimingStats bench(cudaStream_t stream, const BenchOptions& options, const std::function<void()>& work);

// A pair of CUDA events: start(), stop(), elapsed_ms() waits for stop.
class GpuTimer {
 public:
  GpuTimer();
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;
  void start(cudaStream_t stream);
  void stop(cudaStream_t stream);
  double elapsed_ms();

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

}  // namespace wb
