// SPDX-License-Identifier: MIT
// 6.04's planted steps for the grader's self-test: a right one, the serial one (right too), and one bug
// each. Never used by lessons.
#pragma once

#include <cstddef>

#include "phase6_multi_gpu/harness/overlap_support.h"

void planted_overlap_correct(const p6::BackwardModel& m, float* const* g, std::size_t b, p6::RankGroup& group,
                             p6::GradientComm& comm);
// The whole backward, then one all-reduce of everything: right, not overlapped.
void planted_overlap_serial(const p6::BackwardModel& m, float* const* g, std::size_t b, p6::RankGroup& group,
                            p6::GradientComm& comm);
// A bucket's all-reduce waits for nothing on the compute stream.
void planted_overlap_no_wait(const p6::BackwardModel& m, float* const* g, std::size_t b, p6::RankGroup& group,
                             p6::GradientComm& comm);
// A bucket's all-reduce waits for its first layer (the first one computed) instead of its last.
void planted_overlap_waits_first_layer(const p6::BackwardModel& m, float* const* g, std::size_t b, p6::RankGroup& group,
                                       p6::GradientComm& comm);
// The last bucket (layer 0's) is never all-reduced.
void planted_overlap_forgets_last_bucket(const p6::BackwardModel& m, float* const* g, std::size_t b,
                                         p6::RankGroup& group, p6::GradientComm& comm);
// The last bucket is all-reduced twice.
void planted_overlap_reduces_twice(const p6::BackwardModel& m, float* const* g, std::size_t b, p6::RankGroup& group,
                                   p6::GradientComm& comm);
// The compute streams never wait for the communication streams: the step ends before its all-reduces.
void planted_overlap_no_join(const p6::BackwardModel& m, float* const* g, std::size_t b, p6::RankGroup& group,
                             p6::GradientComm& comm);
