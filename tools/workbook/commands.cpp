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
#include "tools/workbook/ctest.h"
#include "tools/workbook/doctor_checks.h"
#include "tools/workbook/grading_output.h"
#include "tools/workbook/hints.h"
#include "tools/workbook/lesson_csv.h"
#include "tools/workbook/reset.h"
#include "tools/workbook/runner.h"
#include "tools/workbook/sanitizer.h"
#include "tools/workbook/text.h"

namespace wbcli {

// The lesson `check` runs for the speed after a pass gets this long.
constexpr int kTestTimeoutS = 600;
// ctest enforces each grade test's own limit (TIMEOUT); this only guards against ctest itself stopping.
constexpr int kCTestGuardS = 3600;
// The start of tools/sanitize_test.sh's sentence when the build found no compute-sanitizer.
const char* const kSanitizerMissing = "compute-sanitizer was not found when the build was configured";

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

// Whether some rung needs a newer GPU (1.09, 1.10 and 5.05 sm_80, 1.11-1.14 and 5.08 Hopper).
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

// The last `chars` characters of `text` (all of it when shorter).
std::string tail(const std::string& text, std::size_t chars) {
  return text.substr(text.size() > chars ? text.size() - chars : 0);
}

}  // namespace

bool build_targets(Context& ctx, const std::vector<std::string>& targets, bool quiet, BuildFailure* failure) {
  std::vector<std::string> argv = {cmake_program(ctx), "--build", ctx.build_dir, "--target"};
  argv.insert(argv.end(), targets.begin(), targets.end());
  if (!quiet) std::printf("%s\n", ctx.dim("building " + join(targets, " ") + " ...").c_str());
  RunOptions options;
  const ProcessResult built = run_process(argv, options);
  if (built.started && built.exit_code == 0) return true;
  failure->text = built.started ? extract_compile_errors(built.output) : built.output;
  failure->compiler_errors = built.started && !failure->text.empty();
  // No compiler diagnostic in the output (a missing file or target, a link or configure step that
  // failed): show what the build tool said instead of an empty explanation.
  if (failure->text.empty()) failure->text = tail(built.output, 2000);
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
  // Rungs that need a newer GPU (1.09, 1.10 and 5.05 sm_80, 1.11-1.14 and 5.08 Hopper) say whether this one runs them.
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
  BuildFailure failure;
  if (!build_targets(ctx, {exercise.target}, false, &failure)) {
    std::printf("%s", failure.explain(exercise.stub).c_str());
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

// The ctest of the CMake that configured the build (beside its cmake), else the one on PATH.
std::string ctest_program(const Context& ctx) {
  if (const std::optional<std::string> cache = read_file(join_path(ctx.build_dir, "CMakeCache.txt")))
    if (const std::optional<std::string> ctest = cmake_cache_value(*cache, "CMAKE_CTEST_COMMAND"))
      if (file_exists(*ctest)) return *ctest;
  return "ctest";
}

// The tests of an exercise's grade as CTest has them (ctest -N): the graded test N.NN.name.learner,
// its source check .learner.source and its compute-sanitizer runs .learner.<tool>, in CTest's order.
std::vector<std::string> list_grade_tests(const Context& ctx, const Exercise& exercise) {
  const ProcessResult listed = run_process(
      {ctest_program(ctx), "--test-dir", ctx.build_dir, "-N", "-R", grade_tests_regex(exercise.id, exercise.name)},
      RunOptions{});
  return listed.started ? parse_ctest_listing(listed.output) : std::vector<std::string>{};
}

// One test, run by ctest: its command, environment and time limit (TIMEOUT) are CTest's.
CTestRun run_ctest(const Context& ctx, const std::string& name) {
  RunOptions options;
  options.timeout_s = kCTestGuardS;
  const ProcessResult run =
      run_process({ctest_program(ctx), "--test-dir", ctx.build_dir, "-V", "-R", ctest_exact_regex(name)}, options);
  CTestRun result = parse_ctest_verbose(run.output);
  if (result.name.empty()) result.name = name;
  if (!run.started) result.output = run.output;  // ctest itself could not start: say why
  return result;
}

// ctest's words for a crash without its stars: "***Exception: SegFault" -> "SegFault".
std::string crash_words(const CTestRun& run) {
  std::string words = run.status_text;
  for (const std::string& noise : {std::string("***"), std::string("Exception:")})
    for (std::string::size_type at = words.find(noise); at != std::string::npos; at = words.find(noise))
      words.replace(at, noise.size(), " ");
  words = trim(words);
  return words.empty() ? "a signal" : words;
}

// "300 s", from ctest's "Test timeout computed to be" line, or "its time limit" where ctest did not say.
std::string limit_words(const CTestRun& run) {
  return run.timeout_s > 0 ? std::to_string(run.timeout_s) + " s" : "its time limit";
}

// One grade in progress: what its steps share.
struct CheckRun {
  CheckRun(Context& c, const Exercise& e, const CheckOptions& o)
      : ctx(c), exercise(e), options(o), label(e.id + " " + e.name) {}
  Context& ctx;
  const Exercise& exercise;
  const CheckOptions& options;
  const std::string label;         // "0.02 vector_add"
  std::vector<std::string> tests;  // the grade's CTest tests (list_grade_tests)
  std::string measured;            // the lesson's best row after a pass, or empty

  // "0.02.vector_add.learner", or with a part: "0.02.vector_add.learner.memcheck"
  std::string test_name(const std::string& part = "") const {
    return exercise.id + "." + exercise.name + ".learner" + (part.empty() ? "" : "." + part);
  }
  bool has_test(const std::string& name) const { return std::find(tests.begin(), tests.end(), name) != tests.end(); }
  // The compute-sanitizer tools of the grade: its .learner.<tool> tests but the source check.
  std::vector<std::string> sanitizer_tools() const {
    std::vector<std::string> tools;
    const std::string prefix = test_name() + ".";
    for (const std::string& name : tests)
      if (starts_with(name, prefix) && name != test_name("source")) tools.push_back(name.substr(prefix.size()));
    return tools;
  }
};

struct SanitizerGrade {
  int problems = 0;     // findings (and runs that reported without itemizing or did not finish)
  bool no_gpu = false;  // the test's GPU probe said there is none
};

// The grade's compute-sanitizer runs on the learner test: its N.NN.name.learner.<tool> tests, run by
// ctest through tools/sanitize_test.sh, which sets the small case (memcheck with exact-size inputs) and
// is the one definition of a finding (its line "sanitize_test: <tool> found a problem"; racecheck's
// warnings count). The tool only explains: each finding as one sentence unless `quiet`.
SanitizerGrade run_grade_sanitizers(const CheckRun& run, bool quiet) {
  const Context& ctx = run.ctx;
  const Exercise& exercise = run.exercise;
  SanitizerGrade grade;
  for (const std::string& tool : run.sanitizer_tools()) {
    if (!quiet)
      std::printf("%s\n",
                  ctx.dim("compute-sanitizer --tool " + tool + " on your graded test (small sizes) ...").c_str());
    const CTestRun result = run_ctest(ctx, run.test_name(tool));
    if (result.status == CTestStatus::Skipped) {
      if (!quiet) std::printf("compute-sanitizer needs a GPU: %s\n", first_line(result.output).c_str());
      grade.no_gpu = true;
      return grade;
    }
    if (result.status == CTestStatus::Passed) {
      if (!quiet) std::printf("  %s: %s\n", tool.c_str(), ctx.green("clean").c_str());
      continue;
    }
    if (contains(result.output, kSanitizerMissing)) {
      // The script's sentence says what to install; it would say the same for every tool.
      if (!quiet)
        std::printf("%s(`./workbook check %s --fast` runs the graded test alone.)\n", result.output.c_str(),
                    exercise.id.c_str());
      grade.problems += 1;
      return grade;
    }
    const std::vector<SanitizerFinding> findings = fold_findings(parse_sanitizer_output(result.output));
    int problems = 0;
    for (const SanitizerFinding& finding : findings) problems += finding.api_call == "cascade" ? 0 : 1;
    grade.problems += std::max(problems, 1);
    if (quiet) continue;
    if (contains(result.output, "sanitize_test: " + tool + " found a problem") && problems > 0) {
      std::printf("  %s found %d problem%s:\n", tool.c_str(), problems, problems == 1 ? "" : "s");
      for (const SanitizerFinding& finding : findings)
        std::printf("  - %s\n", explain_finding(finding, [&ctx, &exercise](const std::string& file, int line) {
                                  return source_line(ctx, exercise, file, line);
                                }).c_str());
    } else {
      // A finding the parser could not itemize, or the graded test failing or hanging under the tool.
      const std::string how = result.status == CTestStatus::Timeout   ? "did not finish in " + limit_words(result)
                              : result.status == CTestStatus::Crashed ? "crashed (" + crash_words(result) + ")"
                              : result.status == CTestStatus::Failed  ? "failed"
                                                                      : "did not run (" + result.status_text + ")";
      std::printf("  %s: the run %s; its output ends with:\n%s\n", tool.c_str(), how.c_str(),
                  tail(result.output, 1500).c_str());
    }
  }
  return grade;
}

// A failed grade: recorded as failing in the progress (which is saved), then `outcome`.
CheckOutcome record_failure(CheckRun& run, CheckOutcome outcome) {
  run.ctx.progress.record_check(run.exercise.id, false, utc_timestamp());
  run.ctx.save();
  return outcome;
}

// Step 1: the lesson and the graded test compile, or the compiler's errors are shown.
std::optional<CheckOutcome> build_exercise(CheckRun& run) {
  const Exercise& exercise = run.exercise;
  BuildFailure failure;
  if (build_targets(run.ctx, {exercise.target, exercise.test_target()}, true, &failure)) return std::nullopt;
  record_failure(run, CheckOutcome::BuildFailed);
  if (run.options.compact) return CheckOutcome::BuildFailed;
  std::printf("%s %s: %s", run.ctx.red("✗").c_str(), run.label.c_str(), failure.explain(exercise.stub).c_str());
  return CheckOutcome::BuildFailed;
}

// The graded test exited 77: this GPU cannot run the exercise (skipped), or there is no usable GPU.
CheckOutcome explain_skipped_test(CheckRun& run, const CTestRun& test) {
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
void explain_failed_test(const CheckRun& run, const CTestRun& test) {
  const Exercise& exercise = run.exercise;
  std::printf("%s %s: not yet.\n\n", run.ctx.red("✗").c_str(), run.label.c_str());
  if (test.status == CTestStatus::Timeout)
    // The test's own output comes first: a rung that can hang prints what usually hangs and the case
    // it was on (watch_for_hangs).
    std::printf(
        "%s\nThe graded test ran for %s without finishing: does a kernel loop forever (a stride that never "
        "advances, a barrier some threads never reach, an mbarrier wait that never completes)?\n",
        tail(test.output, 3000).c_str(), limit_words(test).c_str());
  else if (test.status == CTestStatus::Crashed)
    std::printf("The graded test crashed (%s). Its last output:\n%s", crash_words(test).c_str(),
                extract_test_failure(test.output).c_str());
  else if (test.status == CTestStatus::Failed)
    std::printf("%s", extract_test_failure(test.output).c_str());
  else
    std::printf("ctest did not run the graded test %s (configure the build again?). It said:\n%s\n", test.name.c_str(),
                tail(test.output, 1500).c_str());
  std::printf("\nEdit %s and run `./workbook check %s` again (or `./workbook watch`). Stuck? ./workbook hint %s\n",
              exercise.stub.c_str(), exercise.id.c_str(), exercise.id.c_str());
}

// Step 2: the graded test passes (skipped where this GPU cannot run it or there is none). Its limit is
// CTest's TIMEOUT (shorter for rungs whose bugs hang, e.g. mbarrier waits).
std::optional<CheckOutcome> run_graded_test(CheckRun& run) {
  run.tests = list_grade_tests(run.ctx, run.exercise);
  const CTestRun test = run_ctest(run.ctx, run.test_name());
  if (test.status == CTestStatus::Skipped) return explain_skipped_test(run, test);
  if (test.status == CTestStatus::Passed) return std::nullopt;
  record_failure(run, CheckOutcome::Failed);
  if (!run.options.compact) explain_failed_test(run, test);
  return CheckOutcome::Failed;
}

// Step 3: orderings no run can see (asynchronous copies and tensor-core reads): the exercise's source
// check, its N.NN.name.learner.source test where it has one.
std::optional<CheckOutcome> run_source_check(CheckRun& run) {
  const Exercise& exercise = run.exercise;
  if (!run.has_test(run.test_name("source"))) return std::nullopt;
  const CTestRun source = run_ctest(run.ctx, run.test_name("source"));
  if (source.status == CTestStatus::Passed) return std::nullopt;
  record_failure(run, CheckOutcome::Failed);
  if (run.options.compact) return CheckOutcome::Failed;
  std::printf(
      "\n%s %s: not yet. The results are right on this run, but the order of the asynchronous "
      "operations is not:\n%s\nFix it in %s and run `./workbook check %s` again. Stuck? ./workbook hint %s\n",
      run.ctx.red("✗").c_str(), run.label.c_str(),
      source.status == CTestStatus::Failed ? source.output.c_str() : "(python3 was not found: the check needs it)\n",
      exercise.stub.c_str(), exercise.id.c_str(), exercise.id.c_str());
  return CheckOutcome::Failed;
}

// Step 4: the graded test passed; the grade is not complete until the sanitizer runs are clean too: a
// race or a read past the end can give the right numbers on one run. Skipped by check --fast, which then
// records nothing as done.
std::optional<CheckOutcome> run_sanitizers(CheckRun& run) {
  if (!run.options.sanitize) return std::nullopt;
  const Exercise& exercise = run.exercise;
  Context& ctx = run.ctx;
  if (!run.options.compact && !run.sanitizer_tools().empty())
    std::printf("%s\n", ctx.dim("graded test passed; now the compute-sanitizer runs").c_str());
  const SanitizerGrade grade = run_grade_sanitizers(run, run.options.compact);
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
      : run.sanitizer_tools().empty() ? std::string()
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
