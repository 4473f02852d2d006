// SPDX-License-Identifier: MIT
// A lesson is an ordinary function registered with WB_LESSON; the common main (lesson_main.cpp)
// parses the options, checks for a GPU, prints the device line and calls it. The exercise's
// object file is linked into both the lesson executable and the graded tests, so the file is
// compiled once per variant. A phase benchmark links the reference objects of its whole phase and runs
// their lessons itself (common/lesson_bench.h), taking the rows they report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/args.h"
#include "common/buffer.h"
#include "common/device.h"
#include "common/measure.h"
#include "common/report.h"
#include "common/timer.h"

namespace wb {

// A yardstick measured in the same run, for the result line's "% of <label>" column.
struct MeasuredReference {
  std::string label;  // "memcpy", "CUB", "cuSPARSE CSR"
  double gbs = 0;     // its rate over the same bytes as the line's kernel
};

class Lesson {
 public:
  Lesson(std::string id, std::string name, std::string variant, LessonOptions options, DeviceInfo device);

  const std::string& id() const { return id_; }
  const std::string& name() const { return name_; }
  const std::string& variant() const { return variant_; }  // "learner" or "solution"
  const LessonOptions& options() const { return options_; }
  const DeviceInfo& device() const { return device_; }
  std::uint64_t seed() const { return options_.seed; }

  // --size as one count ("64M"), or `fallback` when not given; UsageError when malformed.
  std::size_t size_or(std::size_t fallback) const;
  // --size as dimensions ("1024x512"), `fallback` when not given; must have fallback.size() parts.
  std::vector<std::size_t> dims_or(const std::vector<std::size_t>& fallback) const;

  // Refuses (UsageError: exit 2) a --size whose buffers cannot fit: `device_bytes` against the GPU's
  // free memory, `host_bytes` against 90% of the machine's RAM. Call it before allocating anything.
  void require_memory(double device_bytes, double host_bytes) const;

  BenchOptions bench_options(bool flush_l2) const;
  // D2D cudaMemcpy GB/s over `bytes` (read + written), measured once per size in this run.
  double memcpy_gbs(std::size_t bytes);
  double dram_peak_gbs() const;
  double fp32_peak_gflops() const;

  // Fills id and, for memory-bound lines, the HBM/DRAM-peak, reference and cache-resident columns
  // (cache-resident: faster than the copy with a working set of at most twice the L2 size):
  // `bytes_moved` is the minimum traffic of the kernel (every input read once, output written once).
  // The reference is a D2D cudaMemcpy of the same bytes, measured here...
  ResultLine memory_bound_line(const std::string& launcher, const std::string& problem, const TimingStats& time,
                               double bytes_moved, bool pass);
  // ... or a library the lesson timed on the same data in this run, as GB/s over the same bytes_moved
  // (CUB's DeviceReduce, cuSPARSE's SpMV): then the copy is measured only where the cache-resident
  // label needs it.
  ResultLine memory_bound_line(const std::string& launcher, const std::string& problem, const TimingStats& time,
                               double bytes_moved, bool pass, const MeasuredReference& reference);
  // Prints the result line, or CSV with --csv, or hands the row to the row sink when one is set. A FAIL
  // line without a cause of its own gets the first failure check_output noted since the previous line
  // (see note_check_failure).
  void report(const ResultLine& line);
  // Where report() sends its rows (device, date, variant and GPU count filled in) instead of printing
  // them: a phase benchmark collects the rows of the lessons it runs. Empty: report() prints.
  using RowSink = std::function<void(const ResultRow& row)>;
  void set_row_sink(RowSink sink) { row_sink_ = std::move(sink); }

  // The usual life of a memory-bound launcher: poison `out`, launch once and verify (values and
  // guards), time it with a cold L2, verify again (a kernel that breaks on later calls is caught),
  // print the result line and return it. `bytes_moved`: each input read once plus each output
  // written once.
  template <typename T>
  ResultLine run_memory_bound(const std::string& launcher, const std::string& problem, double bytes_moved,
                              GuardedDeviceBuffer<T>& out, const std::vector<T>& expected, Tolerance tolerance,
                              const std::function<void()>& launch, std::size_t cols = 0);
  // The same with a tolerance per element (as wb::compare_each), for bounds that grow with a value.
  template <typename T>
  ResultLine run_memory_bound(const std::string& launcher, const std::string& problem, double bytes_moved,
                              GuardedDeviceBuffer<T>& out, const std::vector<T>& expected,
                              const std::function<Tolerance(std::size_t)>& tolerance_of,
                              const std::function<void()>& launch, std::size_t cols = 0);

 private:
  std::string id_, name_, variant_;
  LessonOptions options_;
  DeviceInfo device_;
  // Above the copy's bandwidth with a working set of at most twice the L2 size: served by the cache.
  bool cache_resident(double rate, double bytes_moved);

  std::map<std::size_t, double> memcpy_cache_;
  bool csv_header_printed_ = false;
  RowSink row_sink_;
};

// How check_output's verdict reaches the result line: lessons hand memory_bound_line a plain bool, so
// the first failure since the last result line is kept here as "<what>: <reason>" ("global_index:
// output untouched"), and Lesson::report writes it after FAIL and forgets it.
void note_check_failure(const std::string& what, const std::string& reason);

// Compares a device output with the reference and its guards; prints the teaching report on failure
// and notes its cause for the result line.
template <typename T>
bool check_output(const std::string& what, const std::vector<T>& expected, const GuardedDeviceBuffer<T>& out,
                  const std::function<Tolerance(std::size_t)>& tolerance_of, std::size_t cols = 0) {
  const std::vector<T> got = out.download();
  const CompareReport values = got.size() == expected.size()
                                   ? compare_each(expected.data(), got.data(), got.size(), tolerance_of, cols)
                                   : compare(expected, got, Tolerance{});
  const GuardReport guards = out.check_guards();
  if (!values.ok()) std::fprintf(stderr, "%s", values.describe(what).c_str());
  if (!guards.ok()) std::fprintf(stderr, "%s", guards.describe(what).c_str());
  if (!values.ok()) note_check_failure(what, values.reason());
  if (!guards.ok()) note_check_failure(what, guards.reason());
  return values.ok() && guards.ok();
}

template <typename T>
bool check_output(const std::string& what, const std::vector<T>& expected, const GuardedDeviceBuffer<T>& out,
                  Tolerance tolerance, std::size_t cols = 0) {
  return check_output(
      what, expected, out, [tolerance](std::size_t) { return tolerance; }, cols);
}

template <typename T>
ResultLine Lesson::run_memory_bound(const std::string& launcher, const std::string& problem, double bytes_moved,
                                    GuardedDeviceBuffer<T>& out, const std::vector<T>& expected,
                                    const std::function<Tolerance(std::size_t)>& tolerance_of,
                                    const std::function<void()>& launch, std::size_t cols) {
  MeasureSteps steps;
  steps.poison = [&out] { out.fill(poison_value<T>()); };
  steps.launch = launch;
  steps.verify = [&](const std::string& when) {
    return check_output(launcher + when, expected, out, tolerance_of, cols);
  };
  steps.options = bench_options(true);
  const Measured measured = measure(steps);
  const ResultLine line = memory_bound_line(launcher, problem, measured.time, bytes_moved, measured.pass);
  report(line);
  return line;
}

template <typename T>
ResultLine Lesson::run_memory_bound(const std::string& launcher, const std::string& problem, double bytes_moved,
                                    GuardedDeviceBuffer<T>& out, const std::vector<T>& expected, Tolerance tolerance,
                                    const std::function<void()>& launch, std::size_t cols) {
  return run_memory_bound(launcher, problem, bytes_moved, out, expected,
                          std::function<Tolerance(std::size_t)>([tolerance](std::size_t) { return tolerance; }), launch,
                          cols);
}

using LessonFn = int (*)(Lesson&);

// A lesson as WB_LESSON registers it, with the facts of its exercise that cmake/WorkbookExercise.cmake
// compiles into its object.
struct LessonRegistration {
  LessonFn fn = nullptr;
  std::string id, name, variant, title;
  std::string requires_arch;  // the manifest's requires_arch: "", "80" or "90a" (common/arch_requirement.h)
};

struct LessonRegistrar {
  LessonRegistrar(LessonFn fn, const char* id, const char* name, const char* variant, const char* title,
                  const char* requires_arch);
};

// Every lesson linked into this program, in id order: one in a lesson executable, each of a phase's
// reference lessons in its benchmark.
std::vector<LessonRegistration> registered_lessons();

// Called by the one main() of every lesson executable.
int lesson_main(int argc, char** argv);

}  // namespace wb

// In an exercise file: WB_LESSON(vector_add_lesson, "vector add with a grid-stride loop")
#define WB_LESSON(fn, title)                                                                                       \
  static const ::wb::LessonRegistrar wb_lesson_registrar_(fn, WB_EXERCISE_ID, WB_EXERCISE_NAME, WB_VARIANT, title, \
                                                          WB_EXERCISE_ARCH)
