// SPDX-License-Identifier: MIT
#include "phase6_multi_gpu/harness/lesson_support.h"

#include <cstdio>
#include <vector>

#include "common/check.h"
#include "common/gpu.h"

namespace p6 {

int skip_unless_gpus(const std::string& id, const std::string& name, int needed, const std::string& why) {
  const int visible = visible_gpu_count();
  if (visible >= needed) return 0;
  std::printf("SKIPPED: %s %s needs %d GPUs, this machine has %d (%s)\n", id.c_str(), name.c_str(), needed, visible,
              why.c_str());
  return wb::kExitSkip;
}

wb::TimingStats bench_group(const RankGroup& group, const wb::BenchOptions& options,
                            const std::function<void()>& work) {
  const int n = group.size();
  cudaEvent_t start = nullptr, stop = nullptr;
  std::vector<cudaEvent_t> ready(static_cast<std::size_t>(n)), done(static_cast<std::size_t>(n));
  {
    DeviceScope scope(group.device(0));
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
  }
  for (int r = 0; r < n; ++r) {
    DeviceScope scope(group.device(r));
    CUDA_CHECK(cudaEventCreateWithFlags(&done[static_cast<std::size_t>(r)], cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&ready[static_cast<std::size_t>(r)], cudaEventDisableTiming));
  }
  auto one = [&](bool timed) {
    // Every rank ready, then rank 0's start: the clock starts when the slowest rank could start.
    for (int r = 1; r < n; ++r) {
      DeviceScope scope(group.device(r));
      CUDA_CHECK(cudaEventRecord(ready[static_cast<std::size_t>(r)], group.stream(r)));
    }
    {
      DeviceScope scope(group.device(0));
      for (int r = 1; r < n; ++r)
        CUDA_CHECK(cudaStreamWaitEvent(group.stream(0), ready[static_cast<std::size_t>(r)], 0));
      if (timed) CUDA_CHECK(cudaEventRecord(start, group.stream(0)));
    }
    for (int r = 1; r < n; ++r) {
      DeviceScope scope(group.device(r));
      CUDA_CHECK(cudaStreamWaitEvent(group.stream(r), start, 0));
    }
    work();
    for (int r = 1; r < n; ++r) {
      DeviceScope scope(group.device(r));
      CUDA_CHECK(cudaEventRecord(done[static_cast<std::size_t>(r)], group.stream(r)));
    }
    DeviceScope scope(group.device(0));
    for (int r = 1; r < n; ++r) CUDA_CHECK(cudaStreamWaitEvent(group.stream(0), done[static_cast<std::size_t>(r)], 0));
    if (timed) CUDA_CHECK(cudaEventRecord(stop, group.stream(0)));
    CUDA_CHECK(cudaEventSynchronize(timed ? stop : start));
    group.synchronize();
    float ms = 0;
    if (timed) CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return static_cast<double>(ms);
  };
  // The start event must have been recorded once before the untimed runs wait on it.
  {
    DeviceScope scope(group.device(0));
    CUDA_CHECK(cudaEventRecord(start, group.stream(0)));
  }
  for (int i = 0; i < options.warmup; ++i) one(false);
  std::vector<double> times;
  for (int i = 0; i < options.repeat; ++i) times.push_back(one(true));
  for (int r = 0; r < n; ++r) {
    DeviceScope scope(group.device(r));
    cudaEventDestroy(done[static_cast<std::size_t>(r)]);
    cudaEventDestroy(ready[static_cast<std::size_t>(r)]);
  }
  {
    DeviceScope scope(group.device(0));
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  return wb::summarize(times);
}

double algbw_gbs(double bytes, double ms) {
  return ms > 0 ? bytes / (ms * 1e6) : 0.0;
}

double allreduce_busbw_gbs(double bytes, double ms, int ranks) {
  return ranks > 0 ? algbw_gbs(bytes, ms) * 2.0 * (ranks - 1) / ranks : 0.0;
}

}  // namespace p6
