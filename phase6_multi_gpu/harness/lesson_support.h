// SPDX-License-Identifier: MIT
// What every phase 6 lesson shares: the skip line for fewer GPUs than a lesson needs, timing that spans
// every rank's stream, and the bandwidth conventions of nccl-tests (algorithm and bus bandwidth).
// Every phase 6 program starts with p6::disable_nvls() (p6_lesson_main does it for the lessons).
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "common/lesson.h"
#include "common/timer.h"
#include "phase6_multi_gpu/harness/ranks.h"

namespace p6 {

// 0 when at least `needed` GPUs are visible; else prints one line, "SKIPPED: 6.01 peer_access needs 2
// GPUs, this machine has 1 (...)", and returns 77 (wb::kExitSkip) for the lesson or test to return.
int skip_unless_gpus(const std::string& id, const std::string& name, int needed, const std::string& why);

// Times `work`, which enqueues on the streams of every rank: each repeat starts when every rank's
// stream is ready (rank 0's start event, waited for by all) and ends when the last rank's work ends
// (all joined back into rank 0 before its stop event). Warm-ups first, as wb::bench.
wb::TimingStats bench_group(const RankGroup& group, const wb::BenchOptions& options, const std::function<void()>& work);

// nccl-tests' conventions (its doc/PERFORMANCE.md): algorithm bandwidth = bytes / time; an all-reduce's
// bus bandwidth = algbw x 2 (n - 1) / n, the rate each link must carry, comparable across rank counts.
double algbw_gbs(double bytes, double ms);
double allreduce_busbw_gbs(double bytes, double ms, int ranks);

}  // namespace p6
