// SPDX-License-Identifier: MIT
// The verbs of the workbook tool. Each returns the process exit status: 0 success, 1 failed,
// 2 usage error, 77 no usable GPU.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/gpu.h"
#include "tools/workbook/args.h"
#include "tools/workbook/doctor_checks.h"
#include "tools/workbook/grading_output.h"
#include "tools/workbook/manifest.h"
#include "tools/workbook/progress.h"

namespace wbcli {

// The project's exit codes (common/gpu.h): the tool passes them through from lessons and tests.
constexpr int kExitOk = wb::kExitPass;
constexpr int kExitFailed = wb::kExitFail;
constexpr int kExitUsage = wb::kExitUsage;
constexpr int kExitNoGpu = wb::kExitSkip;

struct Context {
  std::string source_dir;
  std::string build_dir;
  Manifest manifest;
  Progress progress;
  bool colour = false;

  std::string source_path(const std::string& relative) const;
  std::string green(const std::string& text) const;
  std::string red(const std::string& text) const;
  std::string bold(const std::string& text) const;
  std::string dim(const std::string& text) const;
  void save() const;
};

// SanitizerFound: the graded test passed, a compute-sanitizer run of the grade did not. Unsupported:
// this GPU cannot run the exercise (its registry requirement, e.g. Hopper for 1.11): skipped, not failed.
enum class CheckOutcome { Passed, Failed, SanitizerFound, BuildFailed, NoGpu, Unsupported };

// The next exercise to work on (progress.h) among those this machine's GPU can run; with no GPU
// found, the next in course order.
const Exercise* next_exercise_here(const Context& ctx);

// The first GPU nvidia-smi lists (the one lessons run on), asked once per process; nothing when there is
// no nvidia-smi or it lists none: then lessons and graded tests cannot run here.
const std::optional<GpuQuery>& visible_gpu();

struct CheckOptions {
  bool compact = false;  // one line per exercise (check all)
  bool show_next = true;
  bool measure = true;  // run the lesson for the speed after a pass
  // The grade's compute-sanitizer runs (its N.NN.name.learner.<tool> CTest tests) after the graded test
  // passes; any finding fails. Off (check --fast): the graded test only, and a pass is not recorded as done.
  bool sanitize = true;
};

// Before running, watching or hinting: a warning when the exercise's file holds the answer to an earlier
// rung not passed yet (progress.h, held_answer_warning).
void warn_if_answer_held(const Context& ctx, const Exercise& exercise);

int command_status(Context& ctx);
int command_list(Context& ctx);
int command_run(Context& ctx, const Exercise& exercise, const std::vector<std::string>& lesson_args);
CheckOutcome check_exercise(Context& ctx, const Exercise& exercise, const CheckOptions& options);
int command_check(Context& ctx, const Exercise& exercise, bool fast);
int command_check_all(Context& ctx, bool fast);
int command_hint(Context& ctx, const Exercise& exercise);
int command_solution(Context& ctx, const Exercise& exercise, bool force);
int command_watch(Context& ctx, const Exercise* exercise);
int command_reset(Context& ctx, const Exercise* exercise, bool yes);
int command_bench(Context& ctx, int phase, const Exercise* exercise, const std::vector<std::string>& bench_args);
int command_profile(Context& ctx, const Exercise& exercise);
int command_doctor(const std::string& source_dir, const std::string& build_dir);

// Shared helpers.
// Why a build failed: the compiler's diagnostics, or the build tool's last lines when it stopped
// outside the compiler (compiler_errors false). explain() gives the heading and the text, as printed.
struct BuildFailure {
  std::string text;
  bool compiler_errors = true;
  std::string explain(const std::string& subject) const {
    return build_failure_heading(subject, compiler_errors) + "\n\n" + text;
  }
};
bool build_targets(Context& ctx, const std::vector<std::string>& targets, bool quiet, BuildFailure* failure);
void print_next(Context& ctx);
bool ask_yes_no(const std::string& question);

}  // namespace wbcli
