// SPDX-License-Identifier: MIT
// The one life of a measured launcher, for every lesson and every phase benchmark: poison the outputs,
// run once and verify (values and guards), time the repeats (common/timer.h: events, warm-up, L2 flushed
// for memory-bound work), verify again (a kernel that breaks on later calls is caught). Each phase keeps
// its own verify functions; only this order is shared.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>

#include "common/timer.h"

namespace wb {

struct MeasureSteps {
  // Fills the outputs with poison; empty when `verify` poisons and runs the work itself.
  std::function<void()> poison;
  // One run of the work, enqueued on `stream`; empty when `verify` runs it itself (then `time` is given).
  std::function<void()> launch;
  // Checks the outputs (printing the teaching report on failure); `when` is "" the first time and
  // " (after timing)" the second, for the messages.
  std::function<bool(const std::string& when)> verify;
  // The timing; empty: wb::bench(stream, options, launch).
  std::function<TimingStats()> time;
  BenchOptions options;
  cudaStream_t stream = nullptr;
};

struct Measured {
  TimingStats time;
  bool pass = false;  // both verifications passed
};

Measured measure(const MeasureSteps& steps);

}  // namespace wb
