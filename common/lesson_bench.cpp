// SPDX-License-Identifier: MIT
#include "common/lesson_bench.h"

#include <cstdio>
#include <stdexcept>

#include "common/arch_requirement.h"
#include "common/args.h"
#include "common/gpu.h"

namespace wb {
namespace {

// A row for a lesson that reported nothing on the shape: SKIP (refused) or FAIL (failed silently).
ResultRow lesson_row(const LessonRegistration& lesson, const LessonShape& shape, const std::string& dtype,
                     const std::string& status, const std::string& note) {
  ResultRow row;
  row.id = lesson.id;
  row.variant = lesson.variant;
  row.launcher = lesson.name;
  row.shape = shape.label.empty() ? shape.size : shape.label;
  row.dtype = dtype;
  row.status = status;
  row.note = note;
  return row;
}

}  // namespace

std::vector<LessonRegistration> runnable_phase_lessons(const std::vector<LessonRegistration>& lessons, int phase,
                                                       int cc) {
  const std::string prefix = std::to_string(phase) + ".";
  std::vector<LessonRegistration> runnable;
  bool any = false;
  for (const LessonRegistration& lesson : lessons) {
    if (lesson.id.rfind(prefix, 0) != 0) continue;
    any = true;
    if (arch_requirement_met(lesson.requires_arch, cc)) {
      runnable.push_back(lesson);
    } else {
      std::printf("%-5s %-24s skipped: %s\n", lesson.id.c_str(), lesson.name.c_str(),
                  arch_requirement_unmet(lesson.id, lesson.name, lesson.requires_arch, cc).c_str());
    }
  }
  if (!any) throw std::runtime_error("no lesson of phase " + prefix + "NN is linked into this benchmark");
  std::fflush(stdout);
  return runnable;
}

void run_lessons(const LessonBench& bench, const std::vector<LessonRegistration>& lessons, const LessonShape& shape,
                 const DeviceInfo& device, BenchTable& table) {
  auto take = [&](ResultRow row) {
    if (row.dtype.empty()) row.dtype = bench.dtype;
    if (bench.keep && !bench.keep(row, shape)) return;
    const ResultRow& added = table.add(row);
    if (bench.print) bench.print(added);
    std::fflush(stdout);
  };
  for (const LessonRegistration& registration : lessons) {
    LessonOptions options;
    options.size = shape.size;
    options.repeat = bench.repeat;
    options.warmup = bench.warmup;
    options.seed = kDefaultSeed;
    options.csv = true;  // nothing on stdout but rows, and those come to the sink
    if (shape.prepare) shape.prepare();
    Lesson lesson(registration.id, registration.name, registration.variant, options, device);
    std::vector<ResultRow> rows;
    lesson.set_row_sink([&rows](const ResultRow& row) { rows.push_back(row); });
    int status = kExitPass;
    try {
      status = registration.fn(lesson);
    } catch (const SizeFormError&) {
      continue;  // another form of --size: not one of this lesson's shapes
    } catch (const UsageError& e) {
      take(lesson_row(registration, shape, bench.dtype, "SKIP", e.what()));
      continue;
    }
    bool failed_row = false;
    for (const ResultRow& row : rows) failed_row = failed_row || row.status == "FAIL";
    for (ResultRow& row : rows) take(row);
    if (status != kExitPass && !failed_row) {
      take(lesson_row(registration, shape, bench.dtype, "FAIL",
                      "the lesson failed (exit " + std::to_string(status) + ") without a FAIL line of its own"));
    }
  }
}

PhaseBench start_phase_bench(int phase, const BenchToolArgs& args) {
  const DeviceInfo device = query_device(0);
  BenchTable::check_writable(args.out);
  std::printf("%s\n", describe(device).c_str());
  PhaseBench run{device, runnable_phase_lessons(registered_lessons(), phase, 10 * device.cc_major + device.cc_minor),
                 LessonBench{}, BenchTable(device.name)};
  run.bench.repeat = args.repeat;
  return run;
}

int PhaseBench::finish(const std::string& out) const {
  table.write(out);
  return table.all_pass() ? kExitPass : kExitFail;
}

}  // namespace wb
