// SPDX-License-Identifier: MIT
#include "phase3_reduction/harness/lesson_support.h"

#include <cstdio>

#include "common/buffer.h"
#include "common/data.h"
#include "common/gpu.h"
#include "common/measure.h"
#include "phase3_reduction/harness/reference.h"

namespace p3 {

// Napkin math: a sum reads 4 bytes per element and writes one number, so its only cost is the read:
// 1 GiB at the ~3.0 TB/s an H100 streams is about 0.36 ms. There is no output traffic to compare with
// a copy, so the yardstick is CUB's DeviceReduce::Sum on the same data in the same run (about 3050
// GB/s on an H100), and the HBM peak from the device's attributes.
int run_reduce_lesson(wb::Lesson& lesson, const std::vector<NamedLauncher>& launchers) {
  const std::size_t n = lesson.size_or(std::size_t(256) << 20);
  const double bytes = 4.0 * static_cast<double>(n);
  // Device: the input and the workspace (under 1% more); host: the input.
  lesson.require_memory(1.05 * bytes + 4.0 * kFixedWorkspaceElements, 1.1 * bytes);
  // Multiples of 1/256 with random signs: every order of summation is exact, so the lesson demands the
  // exact answer and a missed or doubled element shows.
  const std::vector<float> input = wb::random_dyadic_floats(n, lesson.seed());
  wb::DeviceBuffer<float> din(input);
  wb::DeviceBuffer<float> workspace(reduce_workspace_elements(n));
  wb::GuardedDeviceBuffer<float> out(1);
  const wb::BenchOptions options = lesson.bench_options(true);

  float cub_sum = 0;
  const double cub_gbs = wb::gb_per_s(bytes, time_cub_reduce(din.data(), n, options, &cub_sum).median_ms);
  bool all_pass = judge_sum(input, cub_sum, 0.0).empty();

  const std::string problem = "n=" + wb::format_count(n);
  for (const NamedLauncher& l : launchers) {
    wb::MeasureSteps steps;
    steps.poison = [&] { out.fill(wb::poison_value<float>()); };
    steps.launch = [&] { l.launch(din.data(), out.data(), n, workspace.data(), nullptr); };
    steps.verify = [&](const std::string& when) {
      const std::string verdict = judge_sum(input, out.download()[0], 0.0);
      const wb::GuardReport guards = out.check_guards();
      if (!verdict.empty()) std::fprintf(stderr, "%s%s: %s\n", l.name, when.c_str(), verdict.c_str());
      if (!guards.ok()) std::fprintf(stderr, "%s", guards.describe(l.name).c_str());
      // The cause on the result line: "wrong sum", "output untouched", "wrote past the end".
      if (!verdict.empty()) wb::note_check_failure(l.name, wb::failure_headline(verdict));
      if (!guards.ok()) wb::note_check_failure(l.name, guards.reason());
      return verdict.empty() && guards.ok();
    };
    steps.options = options;
    const wb::Measured measured = wb::measure(steps);
    lesson.report(lesson.memory_bound_line(l.name, problem, measured.time, bytes, measured.pass,
                                           wb::MeasuredReference{"CUB", cub_gbs}));
    all_pass = all_pass && measured.pass;
  }
  return all_pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace p3
