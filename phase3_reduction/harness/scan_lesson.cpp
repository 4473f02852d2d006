// SPDX-License-Identifier: MIT
// 3.11's lesson and CUB's InclusiveSum timed on the same data (declared in lesson_support.h).
#include <climits>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "common/buffer.h"
#include "common/data.h"
#include "common/gpu.h"
#include "common/measure.h"
#include "phase3_reduction/harness/cub_scan.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/harness/reference.h"

namespace p3 {

namespace {

template <typename T>
wb::TimingStats time_cub(const T* in, T* out, std::size_t n, const wb::BenchOptions& options) {
  if (n == 0 || n > static_cast<std::size_t>(INT_MAX))
    throw std::invalid_argument("time_cub_scan: n must be 1 to 2^31 - 1 (CUB's int offsets), got " + std::to_string(n));
  const int items = static_cast<int>(n);
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub_inclusive_sum(nullptr, temp_bytes, in, out, items, nullptr));
  wb::DeviceBuffer<unsigned char> temp(temp_bytes > 0 ? temp_bytes : 1);
  return wb::bench(nullptr, options,
                   [&] { CUDA_CHECK(cub_inclusive_sum(temp.data(), temp_bytes, in, out, items, nullptr)); });
}

// One result line: CUB into the output first (checked too: a yardstick that scans wrong would flatter
// every kernel), then the launcher into the poisoned output, verified before and after timing.
template <typename T>
bool scan_line(wb::Lesson& lesson, const std::string& name, ScanLauncher<T> scan, const std::vector<T>& input,
               const std::function<std::string(const std::vector<T>&)>& judge) {
  const std::size_t n = input.size();
  const double bytes = 8.0 * static_cast<double>(n);  // every element read once and written once
  const wb::BenchOptions options = lesson.bench_options(true);
  wb::DeviceBuffer<T> din(input);
  wb::GuardedDeviceBuffer<T> out(n);  // poisoned, canaries around
  wb::DeviceBuffer<unsigned char> workspace(scan_workspace_bytes(n));

  const double cub_gbs = wb::gb_per_s(bytes, time_cub(din.data(), out.data(), n, options).median_ms);
  const std::string cub_verdict = judge(out.download());
  if (!cub_verdict.empty()) std::fprintf(stderr, "CUB InclusiveSum disagrees with the CPU: %s", cub_verdict.c_str());

  wb::MeasureSteps steps;
  steps.poison = [&] { out.fill(wb::poison_value<T>()); };
  steps.launch = [&] { scan(din.data(), out.data(), n, workspace.data(), workspace.size(), nullptr); };
  steps.verify = [&](const std::string& when) {
    const std::string verdict = judge(out.download());
    const wb::GuardReport guards = out.check_guards();
    if (!verdict.empty()) std::fprintf(stderr, "%s%s: %s", name.c_str(), when.c_str(), verdict.c_str());
    if (!guards.ok()) std::fprintf(stderr, "%s", guards.describe(name).c_str());
    // The cause on the result line: "output untouched", "exclusive scan", "wrong carry between tiles".
    if (!verdict.empty()) wb::note_check_failure(name, wb::failure_headline(verdict));
    if (!guards.ok()) wb::note_check_failure(name, guards.reason());
    return verdict.empty() && guards.ok();
  };
  steps.options = options;
  const wb::Measured measured = wb::measure(steps);
  const wb::TimingStats& time = measured.time;
  const bool pass = measured.pass;
  if (!cub_verdict.empty()) wb::note_check_failure("CUB InclusiveSum", "wrong scan");
  wb::ResultLine line =
      lesson.memory_bound_line(name, "n=" + wb::format_count(n), time, bytes, pass && cub_verdict.empty(),
                               wb::MeasuredReference{"CUB InclusiveSum", cub_gbs});
  line.dtype = std::is_same<T, int>::value ? "int32" : "fp32";
  lesson.report(line);
  return pass && cub_verdict.empty();
}

}  // namespace

wb::TimingStats time_cub_scan(const int* in, int* out, std::size_t n, const wb::BenchOptions& options) {
  return time_cub(in, out, n, options);
}

wb::TimingStats time_cub_scan(const float* in, float* out, std::size_t n, const wb::BenchOptions& options) {
  return time_cub(in, out, n, options);
}

// Napkin math: a scan reads every element once and writes every element once, 8 bytes per element:
// 256M ints move 2 GiB, about 0.72 ms at the ~3.0 TB/s a copy reaches on an H100. Its floor is a copy;
// CUB's single-pass InclusiveSum runs at about 81% of one there (2450 GB/s).
int run_scan_lesson(wb::Lesson& lesson, ScanLauncher<int> scan_int, ScanLauncher<float> scan_float) {
  const std::size_t n = lesson.size_or(std::size_t(256) << 20);
  if (n == 0 || n > static_cast<std::size_t>(INT_MAX))
    throw wb::UsageError("--size must be 1 to 2^31 - 1 elements (CUB, the yardstick, counts them in an int), got " +
                         std::to_string(n));
  // Device, for one line at a time: input, output, workspace, CUB's storage and the L2 flush; host: the
  // input, the output's initial poison and one download.
  const double element_bytes = 4.0 * static_cast<double>(n);
  lesson.require_memory(2.1 * element_bytes + static_cast<double>(scan_workspace_bytes(n)) + 256.0 * wb::MiB,
                        3.3 * element_bytes);
  bool pass = true;
  {
    // Random ints in [-1000, 1000]: every result is checked exactly against the CPU's uint32 scan.
    const std::vector<int> ints = wb::random_ints(n, lesson.seed(), -1000, 1000);
    pass = scan_line<int>(lesson, "scan_inclusive", scan_int, ints,
                          [&ints](const std::vector<int>& got) { return judge_scan(ints, got); }) &&
           pass;
  }
  {
    // Random floats in [-1, 1): each prefix within i u sum|x[0..i]| of the exact one (reference.h).
    const std::vector<float> floats = wb::random_floats(n, lesson.seed());
    pass = scan_line<float>(lesson, "scan_inclusive_float", scan_float, floats,
                            [&floats](const std::vector<float>& got) { return judge_scan(floats, got, false); }) &&
           pass;
  }
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace p3
