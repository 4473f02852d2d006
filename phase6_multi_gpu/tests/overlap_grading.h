// SPDX-License-Identifier: MIT
// The grader of 6.04 overlap (gradient buckets all-reduced while the backward computes). Rank r's
// gradients are grading.h's all-reduce inputs (a x 8^r, a in {1, 2, 3}): every sum is exact, so every
// gradient of every rank is compared exactly with the sum. Gradient buffers start as each rank's
// poison. Two runs per case, each making one kind of ordering bug visible every time: in the first,
// every layer's backward is held 1 ms (a bucket all-reduced before its layers finished reads poison,
// or is overwritten by its layer afterwards); in the second, every all-reduce is held 5 ms and the
// gradients are read as soon as the compute streams are done (a step that ends before its last
// all-reduce shows unreduced gradients). The all-reduces the step asked for are logged, so a bucket
// never reduced, reduced twice, or reduced before its gradient was written are told apart.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "phase6_multi_gpu/harness/overlap_support.h"
#include "phase6_multi_gpu/tests/grading.h"

namespace p6 {
namespace test {

using OverlapLauncher = void (*)(const BackwardModel& model, float* const* grad, std::size_t bucket_floats,
                                 RankGroup& group, GradientComm& comm);

struct OverlapCase {
  GroupSpec group;
  std::vector<std::size_t> layers;  // gradient floats per layer
  std::size_t bucket_floats = 0;    // 0: the launcher's own choice
  std::string describe() const;
};

// For each group of group_specs(true): one layer of one float; five layers of 3, 0, 4099, 33 and 1
// floats; twelve layers of 1 to 70000 floats; each with buckets of 1 float (a bucket per layer), 4096
// floats, the launcher's choice (0) and everything in one bucket. Under WB_SANITIZE: virtual groups of
// up to 4 ranks only, layers of at most 5000 floats.
std::vector<OverlapCase> overlap_cases();

// The judging half (host): rank `rank`'s gradients `got` against inputs[0 .. n-1], given how many
// all-reduces covered each gradient (`covered`); "" when right, else the report and its diagnosis.
std::string judge_overlap(const std::vector<std::vector<float>>& inputs, int rank, const std::vector<float>& got,
                          const std::vector<int>& covered, const std::vector<std::size_t>& layers);

// Runs the step on the case's layers twice (layers held, then all-reduces held) and judges every rank's
// gradients and guards: "" when right, else the report.
std::string grade_overlap(const char* name, OverlapLauncher launch, RankGroup& group,
                          const std::vector<std::size_t>& layers, std::size_t bucket_floats, std::uint64_t seed);
void check_overlap(const char* name, OverlapLauncher launch, const OverlapCase& c);

}  // namespace test
}  // namespace p6
