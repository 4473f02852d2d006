// SPDX-License-Identifier: MIT
// A phase benchmark made of the phase's lessons. workbook_solution_tool links the reference object of
// every exercise the manifest lists for the phase, and each object registers its lesson (WB_LESSON,
// common/lesson.h); the benchmark keeps a table of shapes, hands each shape to every one of those
// lessons as its --size (with whatever phase options the shape sets) and takes the rows each lesson
// reports as its own. A new exercise's lesson so appears in its phase's benchmark, on the shapes it
// reads, without an edit to the benchmark:
//   - a lesson that reads another form of --size (a count where it takes RxC, or the other way round)
//     refuses the shape with a SizeFormError: not one of its shapes, no row;
//   - any other refusal (a UsageError: ELL on a matrix whose padding explodes, a shape too big for the
//     GPU) becomes a SKIP row with the lesson's reason in the note;
//   - a lesson this GPU cannot run (its exercise's requires_arch) is said once and left out;
//   - a lesson that fails without a FAIL line of its own (a wrong yardstick) gets a FAIL row.
// The lessons run in their CSV mode (nothing on stdout but rows, and the rows come here instead), with
// the benchmark's --repeat and warm-up and the default seed; what only the benchmark measures (the
// library's own rows) stays in the benchmark, in small named tables.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/bench_tool.h"
#include "common/device.h"
#include "common/lesson.h"
#include "common/result_csv.h"

namespace wb {

struct LessonShape {
  std::string size;   // the lessons' --size: "64M", "16384x4096"
  std::string label;  // the shape as a SKIP or FAIL row of this benchmark names it; `size` when empty
  // Called before each lesson runs on this shape: sets what the phase's lessons read besides --size
  // (phase 4's matrix options). May be empty.
  std::function<void()> prepare;
};

struct LessonBench {
  int repeat = 10;
  int warmup = 2;
  std::string dtype = "fp32";  // for a row whose lesson names no dtype
  // The rows the benchmark keeps of those a lesson reports on `shape` (a lesson may add lines on shapes
  // or data of its own, or comparisons with something else, which its benchmark leaves out); empty:
  // every row.
  std::function<bool(const ResultRow& row, const LessonShape& shape)> keep;
  // Called with each row the table takes, as it takes it: the benchmark's line on stdout.
  std::function<void(const ResultRow& row)> print;
};

// The lessons of `phase` among `lessons` (registered_lessons()) that a GPU of compute capability `cc`
// (major * 10 + minor) can run, in id order; prints "<id> <name> skipped: <why>" for each other one.
// Throws std::runtime_error when `lessons` holds none of the phase (the benchmark was linked without them).
std::vector<LessonRegistration> runnable_phase_lessons(const std::vector<LessonRegistration>& lessons, int phase,
                                                       int cc);

// Runs each of `lessons` on `shape` and adds the rows it reports to `table` (see above). Errors other
// than a UsageError (a CUDA error) propagate: the benchmark stops, as a lesson would.
void run_lessons(const LessonBench& bench, const std::vector<LessonRegistration>& lessons, const LessonShape& shape,
                 const DeviceInfo& device, BenchTable& table);

// What every phase benchmark starts from: device 0 (its line printed), the lessons of the phase it can
// run (runnable_phase_lessons), a LessonBench with --repeat, and the table of rows, --out checked
// writable before anything runs (start_phase_bench). run() hands one shape to every lesson; finish()
// writes the CSV and gives the benchmark's exit status.
struct PhaseBench {
  DeviceInfo device;
  std::vector<LessonRegistration> lessons;
  LessonBench bench;
  BenchTable table;

  void run(const LessonShape& shape) { run_lessons(bench, lessons, shape, device, table); }
  int finish(const std::string& out) const;  // kExitPass when no row failed, else kExitFail
};

PhaseBench start_phase_bench(int phase, const BenchToolArgs& args);

}  // namespace wb
