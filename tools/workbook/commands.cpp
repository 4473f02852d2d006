// SPDX-License-Identifier: MIT
// status, list, run, check, hint, solution, reset: the everyday verbs.
#include "tools/workbook/commands.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>

#include "common/arch_requirement.h"
#include "tools/workbook/doctor_checks.h"
#include "tools/workbook/grading_output.h"
#include "tools/workbook/hints.h"
#include "tools/workbook/lesson_csv.h"
#include "tools/workbook/reset.h"
#include "tools/workbook/runner.h"
#include "tools/workbook/sanitizer.h"
#include "tools/workbook/text.h"

namespace wbcli {

// Graded tests and lessons get this long before they count as hung.
constexpr int kTestTimeoutS = 600;
// A sanitizer run of the small case; CTest gives the same runs WORKBOOK_LEARNER_SANITIZE_TIMEOUT.
constexpr int kSanitizerTimeoutS = 300;
// tools/sanitize_test.sh's exit status for a finding.
constexpr int kExitFinding = 99;

std::string Context::source_path(const std::string& relative) const {
  return join_path(source_dir, relative);
}
std::string Context::green(const std::string& t) const {
  return colour ? "\033[32m" + t + "\033[0m" : t;
}
std::string Context::red(const std::string& t) const {
  return colour ? "\033[31m" + t + "\033[0m" : t;
}
std::string Context::bold(const std::string& t) const {
  return colour ? "\033[1m" + t + "\033[0m" : t;
}
std::string Context::dim(const std::string& t) const {
  return colour ? "\033[2m" + t + "\033[0m" : t;
}

void Context::save() const {
  if (!save_progress(build_dir, progress))
    std::fprintf(stderr, "workbook: warning: cannot write %s\n", progress_path(build_dir).c_str());
}

bool ask_yes_no(const std::string& question) {
  std::printf("%s [y/N] ", question.c_str());
  std::fflush(stdout);
  std::string answer;
  if (!std::getline(std::cin, answer)) {
    std::printf("\n(no answer: nothing changed)\n");
    return false;
  }
  answer = trim(answer);
  return answer == "y" || answer == "Y" || answer == "yes";
}

namespace {

std::string cmake_program(const Context& ctx) {
  if (const std::optional<std::string> cache = read_file(join_path(ctx.build_dir, "CMakeCache.txt")))
    if (const std::optional<std::string> cmake = cmake_cache_value(*cache, "CMAKE_COMMAND"))
      if (file_exists(*cmake)) return *cmake;
  return "cmake";
}

std::string phase_name(const Exercise& exercise) {
  const std::string dir = exercise.phase_dir();
  const std::string::size_type underscore = dir.find('_');
  return underscore == std::string::npos ? dir : dir.substr(underscore + 1);
}

std::string progress_bar(int done, int total) {
  const int width = 20;
  const int filled = total == 0 ? 0 : done * width / total;
  return "[" + std::string(static_cast<std::size_t>(filled), '#') +
         std::string(static_cast<std::size_t>(width - filled), '-') + "]";
}

// The width of the exercise-name column: the longest name (3.01 interleaved_divergent is 21).
std::size_t name_width(const Manifest& manifest) {
  std::size_t width = 8;  // "exercise"
  for (const Exercise& exercise : manifest.exercises) width = std::max(width, exercise.name.size());
  return width;
}

std::string pad(const std::string& text, std::size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

// The best row of a lesson's CSV output: passing rows first, then the highest score.
std::optional<LessonRow> best_row(const std::vector<LessonRow>& rows) {
  std::optional<LessonRow> best;
  for (const LessonRow& row : rows)
    if (row.pass && (!best || row.score() > best->score())) best = row;
  return best;
}

std::string first_line(const std::string& text) {
  return trim(text.substr(0, text.find('\n')));
}

// The GPU lessons will run on, from nvidia-smi (no CUDA needed; lessons use the first visible device),
// or nothing when nvidia-smi is missing or says nothing usable.
std::optional<GpuQuery> query_gpu() {
  const std::string smi = find_program("nvidia-smi", {"/usr/lib/wsl/lib"});
  if (smi.empty()) return std::nullopt;
  std::vector<std::string> argv = {smi, "--query-gpu=compute_cap,name", "--format=csv,noheader"};
  // CUDA_VISIBLE_DEVICES=2 makes device 0 of a lesson the third GPU nvidia-smi lists.
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string first = visible ? trim(split(visible, ',').front()) : "";
  if (!first.empty() && first.find_first_not_of("0123456789") == std::string::npos) {
    argv.push_back("-i");
    argv.push_back(first);
  }
  RunOptions options;
  options.timeout_s = 20;
  const ProcessResult run = run_process(argv, options);
  if (!run.started || run.exit_code != 0) return std::nullopt;
  return parse_gpu_query(run.output);
}

}  // namespace

const std::optional<GpuQuery>& visible_gpu() {
  static const std::optional<GpuQuery> gpu = query_gpu();
  return gpu;
}

namespace {

// Whether some rung needs a newer GPU (1.09, 1.10 and 5.05 sm_80, 1.11-1.13 and 5.08 Hopper).
bool any_arch_requirement(const Manifest& manifest) {
  return std::any_of(manifest.exercises.begin(), manifest.exercises.end(),
                     [](const Exercise& e) { return !e.arch_requirement.empty(); });
}

// The GPU, asked once per process (`watch` asks for the next exercise after every pass), and only
// where some rung has a requirement: otherwise no one needs the answer.
std::optional<GpuQuery> gpu_for_requirements(const Manifest& manifest) {
  if (!any_arch_requirement(manifest)) return std::nullopt;
  return visible_gpu();
}

// Whether a graded test that exited 77 skipped because this GPU cannot run the exercise (its probe's
// line, common/arch_requirement.h), rather than for want of any usable GPU.
bool skipped_for_requirement(const Exercise& exercise, const std::string& output) {
  return !exercise.arch_requirement.empty() &&
         contains(output, "SKIPPED: " + exercise.id + " " + exercise.name + " needs");
}

}  // namespace

bool build_targets(Context& ctx, const std::vector<std::string>& targets, bool quiet, std::string* errors) {
  std::vector<std::string> argv = {cmake_program(ctx), "--build", ctx.build_dir, "--target"};
  argv.insert(argv.end(), targets.begin(), targets.end());
  if (!quiet) std::printf("%s\n", ctx.dim("building " + join(targets, " ") + " ...").c_str());
  RunOptions options;
  const ProcessResult built = run_process(argv, options);
  if (built.started && built.exit_code == 0) return true;
  *errors = built.started ? extract_compile_errors(built.output) : built.output;
  return false;
}

const Exercise* next_exercise_here(const Context& ctx) {
  const std::optional<GpuQuery> gpu = gpu_for_requirements(ctx.manifest);
  return next_exercise(ctx.manifest, ctx.progress, gpu ? gpu->cc : 0);
}

void print_next(Context& ctx) {
  const Exercise* next = next_exercise_here(ctx);
  if (next == nullptr) {
    std::printf("%s\n", ctx.green("Every exercise is done. Try `./workbook bench phase1` to see your ladder.").c_str());
    return;
  }
  const std::string& title = next->title;
  std::printf("Next: %s %s%s\n      edit %s, then: ./workbook check %s   (stuck? ./workbook hint %s)\n",
              ctx.bold(next->id).c_str(), next->name.c_str(), title.empty() ? "" : (": " + title).c_str(),
              next->stub.c_str(), next->id.c_str(), next->id.c_str());
}

int command_status(Context& ctx) {
  std::printf("%s\n\n", ctx.bold("CUDA Workbook: your progress").c_str());
  for (const PhaseSummary& phase : summarize_phases(ctx.manifest, ctx.progress)) {
    const std::vector<const Exercise*> exercises = ctx.manifest.in_phase(phase.phase);
    const int total = static_cast<int>(exercises.size());
    std::printf("phase %d %-12s %s %2d/%d done", phase.phase, phase_name(*exercises.front()).c_str(),
                progress_bar(phase.done, total).c_str(), phase.done, total);
    if (phase.failing) std::printf(", %s", ctx.red(std::to_string(phase.failing) + " failing").c_str());
    std::printf(", %d not started\n", phase.not_started);
    if (!phase.best.empty()) std::printf("        best measured: %s\n", phase.best.c_str());
  }
  std::printf("\n");
  print_next(ctx);
  if (!visible_gpu())
    std::printf("%s\n", ctx.dim("No GPU here: check compiles your file and shows the compiler's errors, hints and "
                                "solution --force work; grading needs an NVIDIA GPU (README: No GPU yet?).")
                            .c_str());
  std::printf("%s\n", ctx.dim("More: ./workbook list | check | hint | watch | bench phaseN | doctor | help").c_str());
  return kExitOk;
}

int command_list(Context& ctx) {
  // Rungs that need a newer GPU (1.09, 1.10 and 5.05 sm_80, 1.11-1.13 and 5.08 Hopper) say whether this one runs them.
  const std::optional<GpuQuery> gpu = gpu_for_requirements(ctx.manifest);
  const int cc = gpu ? gpu->cc : 0;
  const int width = static_cast<int>(name_width(ctx.manifest));
  std::printf("%-5s %-*s %-12s %-44s %s\n", "id", width, "exercise", "state", "best measured", "file");
  int last_phase = -1;
  for (const Exercise& exercise : ctx.manifest.exercises) {
    if (exercise.phase != last_phase && last_phase >= 0) std::printf("\n");
    last_phase = exercise.phase;
    const ExerciseProgress entry = ctx.progress.get(exercise.id);
    std::string state = pad(state_name(entry.state), 12);
    if (entry.state == ExerciseState::Done) state = ctx.green(state);
    if (entry.state == ExerciseState::Failing) state = ctx.red(state);
    std::string best = entry.best.substr(0, 44);
    if (!exercise.arch_requirement.empty()) {
      const std::string need = "needs " + wb::arch_requirement_short(exercise.arch_requirement);
      if (!exercise.runs_on(cc))
        state = ctx.dim(pad(need, 12));  // cannot be graded here: not "not started"
      else if (!gpu && best.empty())
        best = need;
    }
    std::printf("%-5s %-*s %s %-44s %s\n", exercise.id.c_str(), width, exercise.name.c_str(), state.c_str(),
                best.c_str(), exercise.stub.c_str());
  }
  if (gpu) {
    const std::vector<std::string> unsupported = unsupported_exercises(ctx.manifest, cc);
    if (!unsupported.empty()) {
      std::printf("\nThis GPU (%s, sm_%d): ", gpu->name.c_str(), cc);
      for (const std::string& sentence : unsupported) std::printf("%s ", sentence.c_str());
      std::printf("Their lessons and tests report skipped here.\n");
    }
  } else if (any_arch_requirement(ctx.manifest)) {
    std::printf("\n(No GPU found here: `needs` marks the rungs that need a newer GPU than compute capability 7.5.)\n");
  }
  return kExitOk;
}

void warn_if_answer_held(const Context& ctx, const Exercise& exercise) {
  const std::optional<std::string> stub = read_file(ctx.source_path(exercise.stub));
  const std::string warning = stub ? held_answer_warning(exercise.id, *stub, ctx.progress) : "";
  if (!warning.empty()) std::printf("%s\n\n", ctx.bold(warning).c_str());
}

int command_run(Context& ctx, const Exercise& exercise, const std::vector<std::string>& lesson_args) {
  warn_if_answer_held(ctx, exercise);
  std::string errors;
  if (!build_targets(ctx, {exercise.target}, false, &errors)) {
    std::printf("%s does not compile:\n\n%s", exercise.stub.c_str(), errors.c_str());
    return kExitFailed;
  }
  std::vector<std::string> argv = {exercise.learner_lesson};
  argv.insert(argv.end(), lesson_args.begin(), lesson_args.end());
  std::printf("%s\n", ctx.dim("$ " + describe_command(argv)).c_str());
  const int status = run_attached(argv, {});
  if (status == kExitNoGpu && !exercise.arch_requirement.empty())
    std::printf(
        "\n%s did not run here: the line above says why (it needs %s; ./workbook doctor says which rungs "
        "this GPU runs).\n",
        exercise.id.c_str(), wb::arch_requirement_text(exercise.arch_requirement).c_str());
  else if (status == kExitNoGpu)
    std::printf(
        "\n%s needs a GPU to run: this machine has no usable one (./workbook doctor says why; the "
        "README's \"No GPU yet?\" says what works without one).\n",
        exercise.id.c_str());
  return status;
}

namespace {

// compute-sanitizer prints the path nvcc was given, or only the file name (2024+ releases):
// try the path, then the exercise's own files and its phase directory by name.
std::string source_line(const Context& ctx, const Exercise& exercise, const std::string& file, int line) {
  std::optional<std::string> text = read_file(file);
  if (!text) text = read_file(ctx.source_path(file));
  for (const std::string& candidate : {exercise.stub, exercise.solution, exercise.phase_dir() + "/" + base_name(file)})
    if (!text && base_name(candidate) == base_name(file)) text = read_file(ctx.source_path(candidate));
  if (!text || line <= 0) return "";
  const std::vector<std::string> lines = split_lines(*text);
  return static_cast<std::size_t>(line) <= lines.size() ? lines[static_cast<std::size_t>(line) - 1] : "";
}

std::string sanitizer_program() {
  return find_program("compute-sanitizer", {"/usr/local/cuda/bin", "/usr/local/cuda/compute-sanitizer"});
}

struct SanitizerGrade {
  int problems = 0;     // findings (and runs that reported without itemizing or did not finish)
  bool no_gpu = false;  // the test's GPU probe said there is none
};

// The grade's compute-sanitizer runs on the learner test, through the script CTest's
// N.NN.name.learner.<tool> tests run (tools/sanitize_test.sh): it sets the small case (memcheck with
// exact-size inputs) and decides what a finding is (exit 99; racecheck's warnings count), so the tool
// and ctest cannot disagree. The tool only explains: each finding as one sentence unless `quiet`.
SanitizerGrade run_grade_sanitizers(const Context& ctx, const Exercise& exercise, bool quiet) {
  SanitizerGrade grade;
  if (exercise.sanitizers.empty()) return grade;
  const std::string sanitizer = sanitizer_program();
  if (sanitizer.empty()) {
    if (!quiet)
      std::printf(
          "compute-sanitizer was not found (not on PATH, not in /usr/local/cuda/bin), so the %s part of the "
          "grade did not run: %s is not marked done. It ships with the CUDA toolkit (its bin/ folder): install it "
          "or put it on PATH, then check again (`./workbook check %s --fast` runs the graded test alone).\n",
          join(exercise.sanitizers, " ").c_str(), exercise.id.c_str(), exercise.id.c_str());
    grade.problems = 1;
    return grade;
  }
  const std::string script = ctx.source_path("tools/sanitize_test.sh");
  for (const std::string& tool : exercise.sanitizers) {
    if (!quiet)
      std::printf("%s\n",
                  ctx.dim("compute-sanitizer --tool " + tool + " on your graded test (small sizes) ...").c_str());
    RunOptions options;
    options.timeout_s = kSanitizerTimeoutS;
    const ProcessResult run = run_process({"bash", script, sanitizer, tool, exercise.learner_test}, options);
    if (run.exit_code == kExitNoGpu) {
      if (!quiet) std::printf("compute-sanitizer needs a GPU: %s\n", first_line(run.output).c_str());
      grade.no_gpu = true;
      return grade;
    }
    if (run.started && run.exit_code == 0 && !run.timed_out) {
      if (!quiet) std::printf("  %s: %s\n", tool.c_str(), ctx.green("clean").c_str());
      continue;
    }
    const std::vector<SanitizerFinding> findings = fold_findings(parse_sanitizer_output(run.output));
    int problems = 0;
    for (const SanitizerFinding& finding : findings) problems += finding.api_call == "cascade" ? 0 : 1;
    grade.problems += std::max(problems, 1);
    if (quiet) continue;
    if (run.exit_code == kExitFinding && problems > 0) {
      std::printf("  %s found %d problem%s:\n", tool.c_str(), problems, problems == 1 ? "" : "s");
      for (const SanitizerFinding& finding : findings)
        std::printf("  - %s\n", explain_finding(finding, [&ctx, &exercise](const std::string& file, int line) {
                                  return source_line(ctx, exercise, file, line);
                                }).c_str());
    } else {
      // A finding the parser could not itemize, or the graded test failing or hanging under the tool.
      std::printf("  %s: the run %s; its output ends with:\n%s\n", tool.c_str(),
                  run.timed_out ? ("did not finish in " + std::to_string(kSanitizerTimeoutS) + " s").c_str()
                                : ("exited with status " + std::to_string(run.exit_code)).c_str(),
                  run.output.substr(run.output.size() > 1500 ? run.output.size() - 1500 : 0).c_str());
    }
  }
  return grade;
}

// One grade in progress: what its steps share.
struct CheckRun {
  CheckRun(Context& c, const Exercise& e, const CheckOptions& o)
      : ctx(c), exercise(e), options(o), label(e.id + " " + e.name) {}
  Context& ctx;
  const Exercise& exercise;
  const CheckOptions& options;
  const std::string label;  // "0.02 vector_add"
  int timeout_s = 0;        // the graded test's limit
  std::string measured;     // the lesson's best row after a pass, or empty
};

// A failed grade: recorded as failing in the progress (which is saved), then `outcome`.
CheckOutcome record_failure(CheckRun& run, CheckOutcome outcome) {
  run.ctx.progress.record_check(run.exercise.id, false, utc_timestamp());
  run.ctx.save();
  return outcome;
}

// Step 1: the lesson and the graded test compile, or the compiler's errors are shown.
std::optional<CheckOutcome> build_exercise(CheckRun& run) {
  const Exercise& exercise = run.exercise;
  std::string errors;
  if (build_targets(run.ctx, {exercise.target, exercise.test_target()}, true, &errors)) return std::nullopt;
  record_failure(run, CheckOutcome::BuildFailed);
  if (run.options.compact) return CheckOutcome::BuildFailed;
  std::printf("%s %s: %s does not compile. The compiler says:\n\n%s", run.ctx.red("✗").c_str(), run.label.c_str(),
              exercise.stub.c_str(), errors.c_str());
  return CheckOutcome::BuildFailed;
}

// The graded test exited 77: this GPU cannot run the exercise (skipped), or there is no usable GPU.
CheckOutcome explain_skipped_test(CheckRun& run, const ProcessResult& test) {
  const Exercise& exercise = run.exercise;
  if (skipped_for_requirement(exercise, test.output)) {
    if (!run.options.compact)
      std::printf(
          "%s %s compiles, but this GPU cannot run it: %s\nIt is skipped here, not failed (./workbook list "
          "shows which rungs this GPU runs).\n",
          run.ctx.dim("-").c_str(), run.label.c_str(),
          first_line(test.output.substr(test.output.find("SKIPPED: ") + 9)).c_str());
    return CheckOutcome::Unsupported;
  }
  run.ctx.progress.record_ungraded(exercise.id);
  run.ctx.save();
  if (!run.options.compact)
    std::printf(
        "%s %s compiles (so the compiler has no complaint), but grading it needs a GPU: %s\n"
        "(./workbook doctor says what is missing; the README's \"No GPU yet?\" says what works without one.)\n",
        run.ctx.dim("-").c_str(), run.label.c_str(), first_line(test.output).c_str());
  return CheckOutcome::NoGpu;
}

// The graded test failed, crashed or hung: its diagnosis and what to do next.
void explain_failed_test(const CheckRun& run, const ProcessResult& test) {
  const Exercise& exercise = run.exercise;
  std::printf("%s %s: not yet.\n\n", run.ctx.red("✗").c_str(), run.label.c_str());
  if (test.timed_out)
    // The test's own output comes first: a rung that can hang prints what usually hangs and the case
    // it was on (watch_for_hangs).
    std::printf(
        "%s\nThe graded test ran for %d s without finishing: does a kernel loop forever (a stride that never "
        "advances, a barrier some threads never reach, an mbarrier wait that never completes)?\n",
        test.output.substr(test.output.size() > 3000 ? test.output.size() - 3000 : 0).c_str(), run.timeout_s);
  else if (test.exit_code > 128)
    std::printf("The graded test crashed (signal %d). Its last output:\n%s", test.exit_code - 128,
                extract_test_failure(test.output).c_str());
  else
    std::printf("%s", extract_test_failure(test.output).c_str());
  std::printf("\nEdit %s and run `./workbook check %s` again (or `./workbook watch`). Stuck? ./workbook hint %s\n",
              exercise.stub.c_str(), exercise.id.c_str(), exercise.id.c_str());
}

// Step 2: the graded test passes (skipped where this GPU cannot run it or there is none).
std::optional<CheckOutcome> run_graded_test(CheckRun& run) {
  RunOptions run_options;
  // Rungs whose bugs hang (mbarrier waits) have a shorter limit of their own, as in CTest.
  run.timeout_s = run.exercise.test_timeout_s > 0 ? run.exercise.test_timeout_s : kTestTimeoutS;
  run_options.timeout_s = run.timeout_s;
  const ProcessResult test = run_process({run.exercise.learner_test}, run_options);
  if (test.exit_code == kExitNoGpu) return explain_skipped_test(run, test);
  if (test.started && test.exit_code == 0) return std::nullopt;
  record_failure(run, CheckOutcome::Failed);
  if (!run.options.compact) explain_failed_test(run, test);
  return CheckOutcome::Failed;
}

// Step 3: orderings no run can see (asynchronous copies and tensor-core reads): the exercise's source check.
std::optional<CheckOutcome> run_source_check(CheckRun& run) {
  const Exercise& exercise = run.exercise;
  if (exercise.source_check.empty()) return std::nullopt;
  const ProcessResult source = run_process(
      {"python3", run.ctx.source_path(exercise.source_check), exercise.id, run.ctx.source_path(exercise.stub)},
      RunOptions{});
  if (source.started && source.exit_code == 0) return std::nullopt;
  record_failure(run, CheckOutcome::Failed);
  if (run.options.compact) return CheckOutcome::Failed;
  std::printf(
      "\n%s %s: not yet. The results are right on this run, but the order of the asynchronous "
      "operations is not:\n%s\nFix it in %s and run `./workbook check %s` again. Stuck? ./workbook hint %s\n",
      run.ctx.red("✗").c_str(), run.label.c_str(),
      source.started ? source.output.c_str() : "(python3 was not found: the check needs it)\n", exercise.stub.c_str(),
      exercise.id.c_str(), exercise.id.c_str());
  return CheckOutcome::Failed;
}

// Step 4: the graded test passed; the grade is not complete until the sanitizer runs are clean too: a
// race or a read past the end can give the right numbers on one run. Skipped by check --fast, which then
// records nothing as done.
std::optional<CheckOutcome> run_sanitizers(CheckRun& run) {
  if (!run.options.sanitize) return std::nullopt;
  const Exercise& exercise = run.exercise;
  Context& ctx = run.ctx;
  if (!run.options.compact) std::printf("%s\n", ctx.dim("graded test passed; now the compute-sanitizer runs").c_str());
  const SanitizerGrade grade = run_grade_sanitizers(ctx, exercise, run.options.compact);
  if (grade.no_gpu) return CheckOutcome::NoGpu;
  if (grade.problems == 0) {
    ctx.progress.record_check(exercise.id, true, utc_timestamp());
    return std::nullopt;
  }
  record_failure(run, CheckOutcome::SanitizerFound);
  if (run.options.compact) return CheckOutcome::SanitizerFound;
  std::printf(
      "\n%s %s: not yet. The results are right on this run, but compute-sanitizer found the problem%s above: "
      "a race or a read past the end can give other results on another run or GPU.\nFix it in %s and run "
      "`./workbook check %s` again. Stuck? ./workbook hint %s\n",
      ctx.red("✗").c_str(), run.label.c_str(), grade.problems == 1 ? "" : "s", exercise.stub.c_str(),
      exercise.id.c_str(), exercise.id.c_str());
  return CheckOutcome::SanitizerFound;
}

// After a pass: the lesson's best passing row becomes the exercise's measured speed.
void measure_speed(CheckRun& run) {
  if (!run.options.measure) return;
  RunOptions lesson_options;
  lesson_options.timeout_s = kTestTimeoutS;
  const ProcessResult lesson = run_process({run.exercise.learner_lesson, "--csv"}, lesson_options);
  if (const std::optional<LessonRow> best = best_row(parse_lesson_csv(lesson.output))) {
    run.ctx.progress.record_speed(run.exercise.id, best->summary(), best->score());
    run.measured = best->summary();
  } else if (lesson.exit_code != 0 && !run.options.compact) {
    std::printf("(Your graded tests pass, but the lesson did not: %s)\n", first_line(lesson.output).c_str());
  }
}

// The pass, what it covered, the speed measured, and where to go next.
void report_pass(CheckRun& run) {
  const Exercise& exercise = run.exercise;
  const CheckOptions& options = run.options;
  const std::string scope =
      !options.sanitize ? " (--fast: not marked done until `./workbook check " + exercise.id + "` runs the sanitizers)"
      : exercise.sanitizers.empty() ? std::string()
                                    : " and its compute-sanitizer runs";
  std::printf("%s %s passes its graded tests%s.%s\n", run.ctx.green("✓").c_str(), run.label.c_str(), scope.c_str(),
              run.measured.empty() ? "" : ("\n  measured: " + run.measured).c_str());
  if (options.show_next) {
    std::printf("  Compare with the reference: ./workbook solution %s\n\n", exercise.id.c_str());
    print_next(run.ctx);
  }
}

}  // namespace

CheckOutcome check_exercise(Context& ctx, const Exercise& exercise, const CheckOptions& options) {
  CheckRun run(ctx, exercise, options);
  // In this order; the first step that settles the grade (a failure, a skip) ends it.
  for (std::optional<CheckOutcome> (*step)(CheckRun&) :
       {build_exercise, run_graded_test, run_source_check, run_sanitizers})
    if (const std::optional<CheckOutcome> outcome = step(run)) return *outcome;
  measure_speed(run);
  ctx.save();
  if (!options.compact) report_pass(run);
  return CheckOutcome::Passed;
}

int command_check(Context& ctx, const Exercise& exercise, bool fast) {
  CheckOptions options;
  options.sanitize = !fast;
  switch (check_exercise(ctx, exercise, options)) {
    case CheckOutcome::Passed:
      return kExitOk;
    case CheckOutcome::NoGpu:
    case CheckOutcome::Unsupported:
      return kExitNoGpu;
    default:
      return kExitFailed;
  }
}

int command_check_all(Context& ctx, bool fast) {
  const int width = static_cast<int>(name_width(ctx.manifest));
  std::printf("%-5s %-*s %-14s %s\n", "id", width, "exercise", "result", "measured");
  int passed = 0, failed = 0, skipped = 0, ungraded = 0;
  for (const Exercise& exercise : ctx.manifest.exercises) {
    std::printf("%-5s %-*s ", exercise.id.c_str(), width, exercise.name.c_str());
    std::fflush(stdout);
    CheckOptions options{true, false, true};
    options.sanitize = !fast;
    const CheckOutcome outcome = check_exercise(ctx, exercise, options);
    if (outcome == CheckOutcome::NoGpu) {  // it compiled: that much is known without a GPU
      std::printf("%s\n", ctx.dim(pad("compiles", 14) + " grading needs a GPU").c_str());
      ++ungraded;
      continue;
    }
    if (outcome == CheckOutcome::Unsupported) {
      std::printf("%s\n", ctx.dim(pad("skipped", 14) + " this GPU cannot run it (needs " +
                                  wb::arch_requirement_text(exercise.arch_requirement) + ")")
                              .c_str());
      ++skipped;
      continue;
    }
    std::string result = outcome == CheckOutcome::Passed           ? ctx.green(pad("pass", 14))
                         : outcome == CheckOutcome::BuildFailed    ? ctx.red(pad("compile error", 14))
                         : outcome == CheckOutcome::SanitizerFound ? ctx.red(pad("sanitizer", 14))
                                                                   : ctx.red(pad("fail", 14));
    (outcome == CheckOutcome::Passed ? passed : failed) += 1;
    std::printf("%s %s\n", result.c_str(),
                outcome == CheckOutcome::Passed ? ctx.progress.get(exercise.id).best.c_str() : "");
  }
  std::printf("\n%d passed, %d not yet", passed, failed);
  if (skipped > 0) std::printf(", %d skipped (this GPU cannot run them)", skipped);
  if (ungraded > 0)
    std::printf(", %d compile but are not graded (no usable GPU here: ./workbook doctor says why)", ungraded);
  std::printf(". ");
  if (fast) std::printf("(--fast: graded tests only; passes are not marked done.) ");
  print_next(ctx);
  if (failed > 0) return kExitFailed;
  return ungraded > 0 && passed == 0 ? kExitNoGpu : kExitOk;
}

int command_hint(Context& ctx, const Exercise& exercise) {
  warn_if_answer_held(ctx, exercise);
  const std::optional<std::string> text = read_file(ctx.source_path(exercise.hints));
  if (!text) {
    std::printf("No hints file for %s (expected %s).\n", exercise.id.c_str(), exercise.hints.c_str());
    return kExitFailed;
  }
  const HintsResult hints = parse_hints(*text);
  if (!hints.error.empty()) {
    std::printf("%s: %s\n", exercise.hints.c_str(), hints.error.c_str());
    return kExitFailed;
  }
  const auto found = ctx.progress.hints_shown.find(exercise.id);
  const HintStep step = next_hint(hints.tiers, found == ctx.progress.hints_shown.end() ? 0 : found->second);
  ctx.progress.hints_shown[exercise.id] = step.shown_after;
  ctx.save();
  std::printf("%s %s, hint %d of %zu\n\n", ctx.bold(exercise.id).c_str(), exercise.name.c_str(), step.shown_after,
              hints.tiers.size());
  for (std::size_t i = 0; i < step.to_show.size(); ++i) {
    const bool newest = i + 1 == step.to_show.size() && !step.all_shown;
    const std::string heading = std::to_string(i + 1) + ". " + tier_title(step.to_show[i].label);
    std::printf("%s\n   %s\n\n", (newest ? ctx.bold(heading) : ctx.dim(heading)).c_str(), step.to_show[i].text.c_str());
  }
  const std::string& title = exercise.title;
  if (!title.empty())
    std::printf("The idea behind it: %s, section \"%s %s: %s\".\n", exercise.readme.c_str(), exercise.id.c_str(),
                exercise.name.c_str(), title.c_str());
  const bool last_tier = step.shown_after >= static_cast<int>(hints.tiers.size());
  if (!last_tier)
    std::printf("Still stuck? `./workbook hint %s` again shows the next one.\n", exercise.id.c_str());
  else if (!visible_gpu())
    std::printf(
        "That was every hint. `./workbook solution %s --force` shows the reference (grading, which unlocks "
        "it, needs a GPU).\n",
        exercise.id.c_str());
  else
    std::printf("That was every hint. Once your file passes, `./workbook solution %s` shows the reference.\n",
                exercise.id.c_str());
  return kExitOk;
}

int command_solution(Context& ctx, const Exercise& exercise, bool force) {
  if (ctx.progress.get(exercise.id).state != ExerciseState::Done && !force) {
    if (!visible_gpu())
      std::printf(
          "The reference for %s is shown once your file passes `./workbook check %s`, and grading needs a GPU, which "
          "this machine does not have.\nTry `./workbook hint %s` first; `./workbook solution %s --force` shows the "
          "reference now.\n",
          exercise.id.c_str(), exercise.id.c_str(), exercise.id.c_str(), exercise.id.c_str());
    else
      std::printf(
          "The reference for %s is shown once your file passes (`./workbook check %s`).\n"
          "Try `./workbook hint %s` first; `./workbook solution %s --force` shows it anyway.\n",
          exercise.id.c_str(), exercise.id.c_str(), exercise.id.c_str(), exercise.id.c_str());
    return kExitFailed;
  }
  const std::string mine = ctx.source_path(exercise.stub), reference = ctx.source_path(exercise.solution);
  const ProcessResult diff = run_process({"diff", "-u", "--label", "yours: " + exercise.stub, "--label",
                                          "reference: " + exercise.solution, mine, reference},
                                         RunOptions{});
  if (!diff.started) {
    std::printf("diff is not installed; the reference is %s\n", reference.c_str());
    return kExitFailed;
  }
  if (diff.exit_code == 0) {
    std::printf("Your file is identical to the reference %s.\n", exercise.solution.c_str());
    return kExitOk;
  }
  std::printf("Lines starting with - are yours, + the reference's (%s):\n\n", exercise.solution.c_str());
  for (const std::string& line : split_lines(diff.output)) {
    if (starts_with(line, "+") && !starts_with(line, "+++"))
      std::printf("%s\n", ctx.green(line).c_str());
    else if (starts_with(line, "-") && !starts_with(line, "---"))
      std::printf("%s\n", ctx.red(line).c_str());
    else
      std::printf("%s\n", line.c_str());
  }
  return kExitOk;
}

int command_reset(Context& ctx, const Exercise* exercise, bool yes) {
  std::vector<const Exercise*> targets;
  if (exercise != nullptr)
    targets.push_back(exercise);
  else
    for (const Exercise& e : ctx.manifest.exercises) targets.push_back(&e);

  std::vector<std::pair<const Exercise*, ResetPlan>> changed;
  for (const Exercise* e : targets) {
    ResetPlan plan = plan_reset(ctx.source_dir, ctx.build_dir, e->stub);
    if (!plan.pristine.content) {
      std::printf("workbook: %s\n", plan.pristine.error.c_str());
      return kExitFailed;
    }
    if (plan.differs) changed.emplace_back(e, std::move(plan));
  }
  if (changed.empty()) {
    std::printf(exercise ? "%s is already the untouched stub: nothing to reset.\n"
                         : "Every exercise file is already the untouched stub: nothing to reset.\n",
                exercise ? exercise->stub.c_str() : "");
    return kExitOk;
  }
  std::printf("Reset restores the untouched stub%s (from %s), discarding your changes to:\n",
              changed.size() == 1 ? "" : "s", changed.front().second.pristine.origin.c_str());
  for (const auto& [e, plan] : changed) std::printf("  %s\n", e->stub.c_str());
  const bool confirmed = yes || ask_yes_no(changed.size() == 1 ? "Discard your changes?"
                                                               : "Discard your changes to all " +
                                                                     std::to_string(changed.size()) + " files?");
  if (!confirmed) {
    std::printf("Nothing changed.\n");
    return kExitFailed;
  }
  for (const auto& [e, plan] : changed) {
    std::string error;
    if (apply_reset(plan, true, &error) == ResetOutcome::Failed) {
      std::printf("workbook: %s\n", error.c_str());
      return kExitFailed;
    }
    ctx.progress.forget(e->id);
    std::printf("restored %s\n", e->stub.c_str());
  }
  ctx.save();
  return kExitOk;
}

}  // namespace wbcli
