// SPDX-License-Identifier: MIT
// bench (your kernels, the references and the library: CSV + SVG) and profile (Nsight Compute).
#include <cstdio>
#include <optional>
#include <regex>
#include <set>

#include "tools/workbook/commands.h"
#include "tools/workbook/lesson_csv.h"
#include "tools/workbook/ncu.h"
#include "tools/workbook/peer_csv.h"
#include "tools/workbook/runner.h"
#include "tools/workbook/svg_plot.h"
#include "tools/workbook/text.h"

namespace wbcli {
namespace {

constexpr int kLessonTimeoutS = 600;

// A lesson that runs several shapes (2.05's RMSNorm) prints one row per shape: its groups need the
// shape in their labels to be told apart.
bool runs_several_shapes(const std::vector<LessonRow>& rows, const std::string& launcher) {
  int n = 0;
  for (const LessonRow& row : rows) n += row.name == launcher;
  return n > 1;
}

// Rows of the result CSV (common/result_csv.h) as lines of the bench CSV.
std::string csv_lines(const std::vector<wb::ResultRow>& rows) {
  std::string lines;
  for (const wb::ResultRow& row : rows) lines += wb::format_result_csv(row) + "\n";
  return lines;
}

// The PyTorch rows of this phase and GPU, as the peer script wrote them. They name no yardstick: the
// peer's % of the library is only defined beside a lesson (the SVG's bars), not for the row alone.
std::string peer_csv_lines(const std::vector<PeerRow>& rows) {
  std::string lines;
  for (const PeerRow& row : rows) lines += wb::format_result_csv(row.source) + "\n";
  return lines;
}

// One `workbook bench` in progress: what its steps share.
struct BenchRun {
  BenchRun(Context& c, int p, const Exercise* e, const std::vector<std::string>& a)
      : ctx(c),
        bench_args(a),
        exercises(p >= 0 ? c.manifest.in_phase(p) : std::vector<const Exercise*>{e}),
        name(p >= 0 ? "phase" + std::to_string(p) : e->id),
        bench_target(p >= 0 ? exercises.front()->bench_target : ""),
        bench_exe(p >= 0 ? exercises.front()->bench : ""),
        has_ladder(!bench_target.empty() && !bench_exe.empty()),
        steps(exercises.size() + (has_ladder ? 2 : 1)),
        out_dir(join_path(state_dir(c.build_dir), "bench")),
        peer_phase(p >= 0 ? p : e->phase),
        peer_path(peer_csv_path(c.build_dir)) {}

  Context& ctx;
  const std::vector<std::string> bench_args;  // after --: the phase benchmark's
  const std::vector<const Exercise*> exercises;
  const std::string name;          // phase1 or 1.03: the output files' name
  const std::string bench_target;  // the phase's own benchmark (the ladder), or empty
  const std::string bench_exe;
  const bool has_ladder;
  const std::size_t steps;  // the [k/steps] progress lines
  const std::string out_dir;
  // One table: the lessons' rows (variant learner or solution), the phase benchmark's, the peer's.
  std::string csv = wb::result_csv_header() + "\n";
  std::string ladder_csv_path;  // the ladder's own CSV, when it ran
  // Bars in % of a library and bars in % of a peak are different yardsticks: one panel each.
  PlotPanel library_panel, peak_panel;
  std::set<std::string> libraries, peaks;
  std::string device;  // the GPU the lessons name
  // The PyTorch peer, read once the lessons have named the GPU (its rows must be from the same one).
  const int peer_phase;
  const std::string peer_path;
  std::optional<PeerLookup> peer;
  std::set<const PeerRow*> peers_used;
};

constexpr const char* kBenchNeedsGpu =
    "Benchmarks need a GPU; this machine has none usable (./workbook doctor says why).\n";

// Step 1: every lesson, its reference and the phase benchmark are built.
std::optional<int> build_bench_targets(BenchRun& run) {
  std::vector<std::string> targets;
  for (const Exercise* e : run.exercises) {
    targets.push_back(e->target);
    targets.push_back(e->solution_target());
  }
  if (run.has_ladder) targets.push_back(run.bench_target);
  std::printf("[1/%zu] building %zu targets ...\n", run.steps, targets.size());
  BuildFailure failure;
  if (!build_targets(run.ctx, targets, true, &failure)) {
    std::printf("%s", failure.explain("A lesson or its reference").c_str());
    return kExitFailed;
  }
  make_directories(run.out_dir);
  return std::nullopt;
}

// The ladder's rows, in the same schema, as rows of the bench CSV (a SKIP stays a SKIP, not a FAIL).
void add_ladder_rows(BenchRun& run) {
  std::string error;
  const std::optional<std::string> text = read_file(run.ladder_csv_path);
  const std::vector<wb::ResultRow> ladder_rows =
      text ? wb::parse_result_csv(*text, &error) : std::vector<wb::ResultRow>{};
  if (!text) error = "it wrote no " + run.ladder_csv_path;
  if (!error.empty()) std::printf("(the ladder's rows are left out of %s.csv: %s)\n", run.name.c_str(), error.c_str());
  run.csv += csv_lines(ladder_rows);
}

// Step 2: the phase's own benchmark (the ladder of reference kernels against the library), when it has one.
std::optional<int> run_ladder(BenchRun& run) {
  if (!run.has_ladder) {
    if (!run.bench_args.empty()) std::printf("(no phase benchmark here: the arguments after -- are ignored)\n");
    return std::nullopt;
  }
  run.ladder_csv_path = join_path(run.out_dir, run.name + "_" + run.bench_target + ".csv");
  std::vector<std::string> argv = {run.bench_exe, "--out", run.ladder_csv_path};
  argv.insert(argv.end(), run.bench_args.begin(), run.bench_args.end());
  std::printf("[2/%zu] the reference ladder: %s\n", run.steps, describe_command(argv).c_str());
  RunOptions options;
  options.echo = true;  // the ladder prints a line per rung: visible progress
  const ProcessResult ladder = run_process(argv, options);
  if (ladder.exit_code == kExitNoGpu) {
    std::printf("%s", kBenchNeedsGpu);
    return kExitNoGpu;
  }
  if (!ladder.started || (ladder.exit_code != 0 && ladder.exit_code != 1)) {
    std::printf("%s failed (exit %d)\n", run.bench_target.c_str(), ladder.exit_code);
    return kExitFailed;
  }
  add_ladder_rows(run);
  return std::nullopt;
}

// One reference row of exercise `e`: its plot group (yours, the reference, PyTorch where measured) in the
// panel of its yardstick, and its line on the terminal.
void add_plot_group(BenchRun& run, const Exercise& e, const LessonRow& ref, const std::vector<LessonRow>& mine,
                    const std::vector<LessonRow>& theirs) {
  if (run.device.empty()) run.device = ref.device;
  if (!run.peer && !run.device.empty()) {
    run.peer = lookup_peer(read_file(run.peer_path), run.peer_path, run.device, run.peer_phase);
    std::printf("    %s\n", run.peer->message.c_str());
  }
  PlotGroup group;
  group.label = e.id + " " + ref.name;
  if (runs_several_shapes(theirs, ref.name)) group.label += " " + ref.problem;
  PlotBar bar_yours{"yours", 0, true, "not passing yet"};
  // A bar in % of a peak this GPU's tables lack (a new architecture) has no length: "peak unknown".
  for (const LessonRow& row : mine)
    if (row.name == ref.name && row.problem == ref.problem && row.pass)
      bar_yours =
          row.has_score() ? PlotBar{"yours", row.score(), false, ""} : PlotBar{"yours", 0, true, "peak unknown"};
  group.bars.push_back(bar_yours);
  group.bars.push_back(PlotBar{"reference", ref.score(), !ref.pass || !ref.has_score(),
                               !ref.pass         ? "FAIL"
                               : ref.has_score() ? ""
                                                 : "peak unknown"});
  const PeerRow* peer_row = run.peer ? find_peer_row(run.peer->rows, ref) : nullptr;
  const std::optional<double> peer_value = peer_row ? peer_score(*peer_row, ref) : std::nullopt;
  if (peer_value) {
    group.bars.push_back(PlotBar{"pytorch", *peer_value, false, ""});
    run.peers_used.insert(peer_row);
  }
  if (ref.ref_style == "percent") {
    run.libraries.insert(ref.ref_label);
    run.library_panel.groups.push_back(group);
  } else {
    run.peaks.insert(ref.peak_label);
    run.peak_panel.groups.push_back(group);
  }
  std::printf("    %-28s yours %-10s reference %s%s\n", ref.name.c_str(),
              bar_yours.missing ? "-" : (format_number(bar_yours.value) + "%").c_str(),
              ref.has_score() ? (format_number(ref.score()) + "% (" + ref.score_label() + ")").c_str()
                              : (ref.peak_label + " unknown").c_str(),
              peer_value ? ("  PyTorch " + format_number(*peer_value) + "%").c_str() : "");
}

// Step 3: your lessons and the reference lessons, each measured with its library in the same run.
std::optional<int> run_lessons(BenchRun& run) {
  std::size_t step = run.has_ladder ? 3 : 2;
  for (const Exercise* e : run.exercises) {
    std::printf("[%zu/%zu] %s %s: your lesson, then the reference ...\n", step++, run.steps, e->id.c_str(),
                e->name.c_str());
    std::fflush(stdout);
    RunOptions options;
    options.timeout_s = kLessonTimeoutS;
    const ProcessResult yours = run_process({e->learner_lesson, "--csv"}, options);
    if (yours.exit_code == kExitNoGpu) {
      std::printf("%s", kBenchNeedsGpu);
      return kExitNoGpu;
    }
    const ProcessResult reference = run_process({e->solution_lesson, "--csv"}, options);
    const std::vector<wb::ResultRow> mine_rows = wb::parse_result_csv(yours.output);
    const std::vector<wb::ResultRow> their_rows = wb::parse_result_csv(reference.output);
    run.csv += csv_lines(mine_rows) + csv_lines(their_rows);
    std::vector<LessonRow> mine, theirs;
    for (const wb::ResultRow& row : mine_rows) mine.push_back(lesson_row(row));
    for (const wb::ResultRow& row : their_rows) theirs.push_back(lesson_row(row));
    for (const LessonRow& ref : theirs) add_plot_group(run, *e, ref, mine, theirs);
    if (theirs.empty()) std::printf("    the reference lesson printed no result (exit %d)\n", reference.exit_code);
  }
  if (run.peer) run.csv += peer_csv_lines(run.peer->rows);
  return std::nullopt;
}

// The plot of everything measured: a panel per yardstick, the peer named where its rows were used.
PlotSpec bench_plot(const BenchRun& run) {
  PlotSpec plot;
  plot.title = "workbook bench " + run.name + ": your kernels and the reference solutions";
  plot.subtitle = run.device + ", " + utc_timestamp() + " (lesson default sizes)";
  if (!run.peers_used.empty()) {
    const PeerRow& first = **run.peers_used.begin();
    plot.peer_label = "PyTorch " + first.peer.substr(first.peer.find(' ') + 1) + " (" + first.date + ", " +
                      base_name(run.peer_path) + ")";
  }
  PlotPanel library_panel = run.library_panel, peak_panel = run.peak_panel;
  const std::vector<std::string> library_names(run.libraries.begin(), run.libraries.end());
  library_panel.axis_label = "% of " + join(library_names, " / ") + ", measured in the same run";
  library_panel.library_label =
      (library_names.size() == 1 ? library_names.front() : std::string("library")) + " = 100%";
  const std::vector<std::string> peak_names(run.peaks.begin(), run.peaks.end());
  peak_panel.axis_label = "% of " + join(peak_names, " / ") + " (from the device's attributes)";
  plot.panels = {library_panel, peak_panel};
  return plot;
}

// Step 4: the CSV and the SVG, and where they are.
std::optional<int> write_bench_files(BenchRun& run) {
  const std::string csv_path = join_path(run.out_dir, run.name + ".csv");
  const std::string svg_path = join_path(run.out_dir, run.name + ".svg");
  if (!write_file(csv_path, run.csv) || !write_file(svg_path, render_svg(bench_plot(run)))) {
    std::printf("cannot write to %s\n", run.out_dir.c_str());
    return kExitFailed;
  }
  std::printf("\nCSV: %s\nSVG: %s%s\n", csv_path.c_str(), svg_path.c_str(),
              run.ladder_csv_path.empty() ? "" : ("\nladder CSV: " + run.ladder_csv_path).c_str());
  return std::nullopt;
}

}  // namespace

int command_bench(Context& ctx, int phase, const Exercise* exercise, const std::vector<std::string>& bench_args) {
  // Said before anything is built: without a GPU there is nothing to measure.
  if (!visible_gpu()) {
    std::printf("Benchmarks need a GPU, and nvidia-smi lists none here (./workbook doctor says more).\n");
    return kExitNoGpu;
  }
  BenchRun run(ctx, phase, exercise, bench_args);
  // In this order; a step that cannot go on ends the command with its exit status.
  for (std::optional<int> (*step)(BenchRun&) : {build_bench_targets, run_ladder, run_lessons, write_bench_files})
    if (const std::optional<int> status = step(run)) return *status;
  return kExitOk;
}

namespace {

std::vector<std::string> kernel_names(const std::string& source) {
  std::vector<std::string> names;
  static const std::regex kernel(
      R"(__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\()");
  for (auto it = std::sregex_iterator(source.begin(), source.end(), kernel); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1];
    bool seen = false;
    for (const std::string& n : names) seen = seen || n == name;
    if (!seen) names.push_back(name);
  }
  return names;
}

struct ProfileRun {
  NcuReport report;
  bool no_gpu = false;
};

ProfileRun profile_lesson(const std::string& ncu, const std::string& lesson, const std::vector<std::string>& kernels) {
  const std::string filter = "regex:^(" + join(kernels, "|") + ")$";
  RunOptions options;
  options.timeout_s = kLessonTimeoutS;
  const ProcessResult run =
      run_process({ncu, "--csv", "--print-units", "base", "--metrics", curated_metric_list(), "--kernel-name", filter,
                   "--launch-count", "12", lesson, "--repeat", "1", "--warmup", "0"},
                  options);
  ProfileRun result;
  result.no_gpu = contains(run.output, "SKIPPED: no CUDA GPU") || run.exit_code == kExitNoGpu;
  result.report = parse_ncu_csv(run.output);
  if (!run.started) result.report.problem = run.output;
  return result;
}

double metric_of(const KernelMetrics* k, const std::string& metric) {
  if (k == nullptr) return -1;
  const auto found = k->average.find(metric);
  return found == k->average.end() ? -1 : found->second;
}

// Each of the reference's kernels: the curated metrics, yours beside the reference's. Returns the advice
// for the first metric where yours is clearly worse than the reference, or "" when none is.
std::string compare_metrics(const Context& ctx, const NcuReport& yours, const NcuReport& reference) {
  std::string advice;
  for (const KernelMetrics& ref : reference.kernels) {
    const KernelMetrics* mine = nullptr;
    for (const KernelMetrics& k : yours.kernels)
      if (k.kernel == ref.kernel) mine = &k;
    std::printf("\n%s\n%-50s %14s %14s\n", ctx.bold(ref.kernel).c_str(), "metric", "yours", "reference");
    for (const CuratedMetric& m : curated_metrics()) {
      const double a = metric_of(mine, m.name), b = metric_of(&ref, m.name);
      std::printf("%-50s %14s %14s\n", m.label.c_str(), a < 0 ? "-" : format_metric(m.name, a).c_str(),
                  b < 0 ? "-" : format_metric(m.name, b).c_str());
      // The advice names the first metric where yours is clearly worse than the reference.
      if (!advice.empty() || a < 0 || b < 0 || m.advice.empty()) continue;
      const bool lower_is_worse =
          m.name.find("bank_conflicts") == std::string::npos && m.name != "launch__registers_per_thread";
      if ((lower_is_worse && a < 0.8 * b) || (!lower_is_worse && a > 1.25 * b + 16)) advice = m.label + ": " + m.advice;
    }
  }
  return advice;
}

}  // namespace

int command_profile(Context& ctx, const Exercise& exercise) {
  if (!visible_gpu()) {
    std::printf("Profiling needs a GPU, and nvidia-smi lists none here (./workbook doctor says more).\n");
    return kExitNoGpu;
  }
  const std::string ncu = find_ncu();
  if (ncu.empty()) {
    std::printf(
        "Nsight Compute (ncu) is not installed or not on PATH. It ships with the CUDA toolkit "
        "(/usr/local/cuda/bin/ncu) or as the nsight-compute package; add its directory to PATH.\n");
    return kExitFailed;
  }
  const std::optional<std::string> stub = read_file(ctx.source_path(exercise.stub));
  const std::vector<std::string> kernels = stub ? kernel_names(*stub) : std::vector<std::string>{};
  if (kernels.empty()) {
    std::printf("%s defines no __global__ kernel to profile.\n", exercise.stub.c_str());
    return kExitFailed;
  }
  BuildFailure failure;
  if (!build_targets(ctx, {exercise.target, exercise.solution_target()}, true, &failure)) {
    std::printf("%s", failure.explain(exercise.stub).c_str());
    return kExitFailed;
  }
  std::printf("Profiling %s (%s) with Nsight Compute: yours, then the reference ...\n", exercise.id.c_str(),
              join(kernels, ", ").c_str());
  const ProfileRun yours = profile_lesson(ncu, exercise.learner_lesson, kernels);
  if (yours.no_gpu) {
    std::printf("Profiling needs a GPU; this machine has none usable (./workbook doctor says why).\n");
    return kExitNoGpu;
  }
  if (contains(yours.report.problem, "ERR_NVGPUCTRPERM")) {
    std::printf("%s\n", yours.report.problem.c_str());
    return kExitFailed;
  }
  const ProfileRun reference = profile_lesson(ncu, exercise.solution_lesson, kernels);
  if (!reference.report.problem.empty()) {
    std::printf("The reference could not be profiled: %s\n", reference.report.problem.c_str());
    return kExitFailed;
  }
  if (!yours.report.problem.empty()) std::printf("Yours: %s\n", yours.report.problem.c_str());

  const std::string advice = compare_metrics(ctx, yours.report, reference.report);
  std::printf("\n%s\n", advice.empty() ? "Look at: your kernel is as good as the reference on these metrics; compare "
                                         "the kernel time."
                                       : ("Look at " + advice).c_str());
  return kExitOk;
}

}  // namespace wbcli
