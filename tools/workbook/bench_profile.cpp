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

std::string csv_field(const std::string& text) {
  return text.find_first_of(",\"") == std::string::npos ? text : "\"" + text + "\"";
}

std::string lesson_csv_line(const std::string& source, const LessonRow& row) {
  char numbers[160], peak[32] = "";  // an unknown peak stays an empty field
  if (row.peak_known) std::snprintf(peak, sizeof peak, "%.2f", row.peak_pct);
  std::snprintf(numbers, sizeof numbers, "%.6f,%.3f,%s,%s,%s,%.2f", row.median_ms, row.rate, row.rate_unit.c_str(),
                peak, row.peak_label.c_str(), row.ref_value);
  return source + "," + row.id + "," + row.name + "," + csv_field(row.problem) + "," + numbers + "," +
         (row.ref_style == "percent" ? "% of " + row.ref_label : "x " + row.ref_label) + "," +
         (row.pass ? "PASS" : "FAIL") + "," + csv_field(row.device) + "\n";
}

// A lesson that runs several shapes (2.05's RMSNorm) prints one row per shape: its groups need the
// shape in their labels to be told apart.
bool runs_several_shapes(const std::vector<LessonRow>& rows, const std::string& launcher) {
  int n = 0;
  for (const LessonRow& row : rows) n += row.name == launcher;
  return n > 1;
}

// The PyTorch rows of this phase and GPU, as rows of the bench CSV. vs_reference stays empty: the
// peer's % of the library is only defined beside a lesson (the SVG's bars), not for the row alone.
std::string peer_csv_lines(const std::vector<PeerRow>& rows) {
  std::string lines;
  for (const PeerRow& row : rows) {
    const bool flops = row.gbps <= 0;
    char numbers[96];
    std::snprintf(numbers, sizeof numbers, "%.6f,%.3f,%s", row.median_ms, flops ? row.gflops : row.gbps,
                  flops ? "GFLOP/s" : "GB/s");
    lines += "pytorch," + csv_field(row.id) + "," + csv_field(row.op + " " + row.dtype) + "," + csv_field(row.shape) +
             "," + numbers + ",,,,,PEER," + csv_field(row.device) + "\n";
  }
  return lines;
}

}  // namespace

int command_bench(Context& ctx, int phase, const Exercise* exercise, const std::vector<std::string>& bench_args) {
  // Said before anything is built: without a GPU there is nothing to measure.
  if (!visible_gpu()) {
    std::printf("Benchmarks need a GPU, and nvidia-smi lists none here (./workbook doctor says more).\n");
    return kExitNoGpu;
  }
  std::vector<const Exercise*> exercises =
      phase >= 0 ? ctx.manifest.in_phase(phase) : std::vector<const Exercise*>{exercise};
  const std::string name = phase >= 0 ? "phase" + std::to_string(phase) : exercise->id;
  std::vector<std::string> targets;
  for (const Exercise* e : exercises) {
    targets.push_back(e->target);
    targets.push_back(e->solution_target());
  }
  const std::string bench_target = phase >= 0 ? exercises.front()->bench_target : "";
  const std::string bench_exe = phase >= 0 ? exercises.front()->bench : "";
  if (!bench_target.empty() && !bench_exe.empty()) targets.push_back(bench_target);
  const bool has_ladder = !bench_target.empty() && !bench_exe.empty();
  const std::size_t steps = exercises.size() + (has_ladder ? 2 : 1);
  std::printf("[1/%zu] building %zu targets ...\n", steps, targets.size());
  std::string errors;
  if (!build_targets(ctx, targets, true, &errors)) {
    std::printf("The build failed; the compiler says:\n\n%s", errors.c_str());
    return kExitFailed;
  }
  const std::string out_dir = join_path(state_dir(ctx.build_dir), "bench");
  make_directories(out_dir);
  std::string csv =
      "source,id,launcher,problem,median_ms,rate,rate_unit,pct_of_peak,peak_label,vs_reference,reference,status,"
      "device\n";

  // The phase's own benchmark (the ladder of reference kernels against the library), when it has one.
  std::string ladder_csv_path;
  if (!bench_target.empty() && !bench_exe.empty()) {
    ladder_csv_path = join_path(out_dir, name + "_" + bench_target + ".csv");
    std::vector<std::string> argv = {bench_exe, "--out", ladder_csv_path};
    argv.insert(argv.end(), bench_args.begin(), bench_args.end());
    std::printf("[2/%zu] the reference ladder: %s\n", steps, describe_command(argv).c_str());
    RunOptions options;
    options.echo = true;  // the ladder prints a line per rung: visible progress
    const ProcessResult ladder = run_process(argv, options);
    if (ladder.exit_code == kExitNoGpu) {
      std::printf("Benchmarks need a GPU; this machine has none usable (./workbook doctor says why).\n");
      return kExitNoGpu;
    }
    if (!ladder.started || (ladder.exit_code != 0 && ladder.exit_code != 1)) {
      std::printf("%s failed (exit %d)\n", bench_target.c_str(), ladder.exit_code);
      return kExitFailed;
    }
    std::string error;
    const std::optional<std::string> text = read_file(ladder_csv_path);
    const std::vector<BenchRow> ladder_rows = text ? parse_bench_csv(*text, &error) : std::vector<BenchRow>{};
    if (!text) error = "it wrote no " + ladder_csv_path;
    if (!error.empty()) std::printf("(the ladder's rows are left out of %s.csv: %s)\n", name.c_str(), error.c_str());
    for (const BenchRow& row : ladder_rows)
      csv += "ladder," + (row.id.empty() ? "-" : row.id) + "," + row.launcher + "," + csv_field(row.size) + ",,,," +
             format_number(row.pct_of_peak) + ",peak," + format_number(row.pct_of_library) + ",% of " + row.library +
             "," + (row.status.empty() ? "PASS" : row.status) + ",\n";  // a SKIP stays a SKIP, not a FAIL
  } else if (!bench_args.empty()) {
    std::printf("(no phase benchmark here: the arguments after -- are ignored)\n");
  }

  // Your lessons and the reference lessons, each measured with its library in the same run. Bars in
  // % of a library and bars in % of a peak are different yardsticks: one panel each.
  PlotPanel library_panel, peak_panel;
  std::set<std::string> libraries, peaks;
  std::string device;
  // The PyTorch peer, read once the lessons have named the GPU (its rows must be from the same one).
  const int peer_phase = phase >= 0 ? phase : exercise->phase;
  const std::string peer_path = peer_csv_path(ctx.build_dir);
  std::optional<PeerLookup> peer;
  std::set<const PeerRow*> peers_used;
  std::size_t step = has_ladder ? 3 : 2;
  for (const Exercise* e : exercises) {
    std::printf("[%zu/%zu] %s %s: your lesson, then the reference ...\n", step++, steps, e->id.c_str(),
                e->name.c_str());
    std::fflush(stdout);
    RunOptions options;
    options.timeout_s = kLessonTimeoutS;
    const ProcessResult yours = run_process({e->learner_lesson, "--csv"}, options);
    if (yours.exit_code == kExitNoGpu) {
      std::printf("Benchmarks need a GPU; this machine has none usable (./workbook doctor says why).\n");
      return kExitNoGpu;
    }
    const ProcessResult reference = run_process({e->solution_lesson, "--csv"}, options);
    const std::vector<LessonRow> mine = parse_lesson_csv(yours.output);
    const std::vector<LessonRow> theirs = parse_lesson_csv(reference.output);
    for (const LessonRow& row : mine) csv += lesson_csv_line("yours", row);
    for (const LessonRow& row : theirs) csv += lesson_csv_line("reference", row);
    for (const LessonRow& ref : theirs) {
      if (device.empty()) device = ref.device;
      if (!peer && !device.empty()) {
        peer = lookup_peer(read_file(peer_path), peer_path, device, peer_phase);
        std::printf("    %s\n", peer->message.c_str());
      }
      PlotGroup group;
      group.label = e->id + " " + ref.name;
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
      const PeerRow* peer_row = peer ? find_peer_row(peer->rows, ref) : nullptr;
      const std::optional<double> peer_value = peer_row ? peer_score(*peer_row, ref) : std::nullopt;
      if (peer_value) {
        group.bars.push_back(PlotBar{"pytorch", *peer_value, false, ""});
        peers_used.insert(peer_row);
      }
      if (ref.ref_style == "percent") {
        libraries.insert(ref.ref_label);
        library_panel.groups.push_back(group);
      } else {
        peaks.insert(ref.peak_label);
        peak_panel.groups.push_back(group);
      }
      std::printf("    %-28s yours %-10s reference %s%s\n", ref.name.c_str(),
                  bar_yours.missing ? "-" : (format_number(bar_yours.value) + "%").c_str(),
                  ref.has_score() ? (format_number(ref.score()) + "% (" + ref.score_label() + ")").c_str()
                                  : (ref.peak_label + " unknown").c_str(),
                  peer_value ? ("  PyTorch " + format_number(*peer_value) + "%").c_str() : "");
    }
    if (theirs.empty()) std::printf("    the reference lesson printed no result (exit %d)\n", reference.exit_code);
  }
  if (peer) csv += peer_csv_lines(peer->rows);

  PlotSpec plot;
  plot.title = "workbook bench " + name + ": your kernels and the reference solutions";
  plot.subtitle = device + ", " + utc_timestamp() + " (lesson default sizes)";
  if (!peers_used.empty()) {
    const PeerRow& first = **peers_used.begin();
    plot.peer_label = "PyTorch " + first.peer.substr(first.peer.find(' ') + 1) + " (" + first.date + ", " +
                      base_name(peer_path) + ")";
  }
  const std::vector<std::string> library_names(libraries.begin(), libraries.end());
  library_panel.axis_label = "% of " + join(library_names, " / ") + ", measured in the same run";
  library_panel.library_label =
      (library_names.size() == 1 ? library_names.front() : std::string("library")) + " = 100%";
  const std::vector<std::string> peak_names(peaks.begin(), peaks.end());
  peak_panel.axis_label = "% of " + join(peak_names, " / ") + " (from the device's attributes)";
  plot.panels = {library_panel, peak_panel};

  const std::string csv_path = join_path(out_dir, name + ".csv");
  const std::string svg_path = join_path(out_dir, name + ".svg");
  if (!write_file(csv_path, csv) || !write_file(svg_path, render_svg(plot))) {
    std::printf("cannot write to %s\n", out_dir.c_str());
    return kExitFailed;
  }
  std::printf("\nCSV: %s\nSVG: %s%s\n", csv_path.c_str(), svg_path.c_str(),
              ladder_csv_path.empty() ? "" : ("\nladder CSV: " + ladder_csv_path).c_str());
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
  std::string errors;
  if (!build_targets(ctx, {exercise.target, exercise.solution_target()}, true, &errors)) {
    std::printf("%s does not compile:\n\n%s", exercise.stub.c_str(), errors.c_str());
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

  std::string advice;
  for (const KernelMetrics& ref : reference.report.kernels) {
    const KernelMetrics* mine = nullptr;
    for (const KernelMetrics& k : yours.report.kernels)
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
  std::printf("\n%s\n", advice.empty() ? "Look at: your kernel is as good as the reference on these metrics; compare "
                                         "the kernel time."
                                       : ("Look at " + advice).c_str());
  return kExitOk;
}

}  // namespace wbcli
