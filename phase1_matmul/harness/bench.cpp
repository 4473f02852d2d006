// SPDX-License-Identifier: MIT
// p1_ladder: every rung of the reference SGEMM ladder at several sizes, each rung's own lesson against
// the cuBLAS call at its precision timed in the same run (common/lesson_bench.h: the lessons the manifest
// lists for the phase), then cuBLAS itself: cublasSgemm, and where the GPU has BF16 tensor cores the two
// BF16 calls whose faster one, "cuBLAS BF16 best", is the BF16 rungs' (1.10-1.14) yardstick. A rung this
// GPU cannot run (its exercise's requires_arch) is said once and left out. Writes a CSV (for a plot of
// the ladder against the cuBLAS line; precision fp32, tf32 or bf16) and prints a table.
//   p1_ladder [--sizes 1024,2048,4096,8192] [--repeat N] [--out p1_ladder.csv]
#include <cstdio>
#include <string>
#include <vector>

#include "common/arch_requirement.h"
#include "common/args.h"
#include "common/bench_tool.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/lesson_bench.h"
#include "common/timer.h"
#include "phase1_matmul/harness/lesson_support.h"

namespace {

// % of a peak for the table; a peak of 0 (an architecture the peak tables lack) is neither 0% nor inf%:
// "unknown" (and "-" in the CSV).
std::string peak_cell(const wb::ResultRow& row) {
  char text[32];
  if (!row.peak_known) return "   unknown";
  std::snprintf(text, sizeof text, "%9.1f%%", row.peak_pct);
  return text;
}

void print_row(const wb::ResultRow& r) {
  std::printf("%-5s %-28s %-14s %10.3f %12.0f %s %11.1f%%  %s\n", r.id == "-" ? "" : r.id.c_str(), r.launcher.c_str(),
              r.shape.c_str(), r.median_ms, r.rate, peak_cell(r).c_str(), r.ref_value, r.status.c_str());
}

// The ladder compares every rung with the library, in % of its time; a lesson's lines against another
// yardstick (1.08's cuBLAS math modes, as speedups over its pedantic call) are left out.
bool bench_keeps(const wb::ResultRow& row, const wb::LessonShape&) {
  return row.ref_style == "percent";
}

const wb::BenchToolSpec kTool = {
    "p1_ladder",
    "usage: p1_ladder [--sizes 1024,2048,4096,8192] [--repeat N] [--out p1_ladder.csv]\n"
    "Runs every rung of the reference SGEMM ladder and cuBLAS at each size (M = N = K) in one process,\n"
    "then the BF16 tensor-core rungs this GPU can run against the faster of cublasGemmEx and\n"
    "cublasLtMatmul, verifies each result, and writes median time, GFLOP/s, % of the peak and % of\n"
    "cuBLAS (at the rung's precision) as CSV.\n",
    {"--sizes"},
    10,
    "p1_ladder.csv"};

// A library row: GFLOP/s of `time`, % of the peak at `precision`, % of the yardstick's `library_ms`.
wb::ResultRow library_row(const std::string& launcher, const p1::MatmulShape& shape, p1::MatmulPrecision precision,
                          const wb::TimingStats& time, double library_ms, const char* library_label,
                          const wb::DeviceInfo& device) {
  const bool bf16 = precision == p1::MatmulPrecision::BF16;
  wb::ResultRow row = wb::bench_row("library", launcher, shape.text(), bf16 ? "bf16" : "fp32", time);
  row.flop = shape.flop();
  wb::set_rate(row, "GFLOP/s", bf16 ? wb::bf16_peak_gflops(device) : p1::matmul_peak_gflops(device, precision),
               bf16 ? "BF16 peak" : "FP32 peak");
  wb::set_reference(row, library_label, 100.0 * library_ms / time.median_ms);
  return row;
}

// The library's rows at one size: cublasSgemm (FP32, default math), then, with BF16 tensor cores, both
// BF16 calls against the faster of the two ("cuBLAS BF16 best").
void add_library_rows(const p1::MatmulShape& shape, int repeat, const wb::DeviceInfo& device, wb::BenchTable& table) {
  const wb::BenchOptions options{2, repeat, false};
  {
    p1::MatmulBench fp32(shape, wb::kDefaultSeed);  // freed before the BF16 operands are made
    const wb::TimingStats time = fp32.time_library(p1::MatmulPrecision::FP32, options);
    print_row(table.add(
        library_row("cublasSgemm", shape, p1::MatmulPrecision::FP32, time, time.median_ms, "cuBLAS", device)));
  }
  if (!wb::arch_requirement_met("80", 10 * device.cc_major + device.cc_minor)) return;
  p1::Bf16MatmulBench bf16(shape, wb::kDefaultSeed);
  const p1::Bf16LibraryTiming library = bf16.time_library(options);
  const double best = library.best_ms();
  const bool lt_best = library.lt_found && library.lt_wins();
  print_row(table.add(library_row(library.best_name(), shape, p1::MatmulPrecision::BF16,
                                  lt_best ? library.lt : library.gemm_ex, best, "cuBLAS BF16 best", device)));
  if (library.lt_found)
    print_row(table.add(library_row(lt_best ? "cublasGemmEx" : "cublasLtMatmul", shape, p1::MatmulPrecision::BF16,
                                    lt_best ? library.gemm_ex : library.lt, best, "cuBLAS BF16 best", device)));
  std::printf("      (cuBLAS BF16 best = %s)\n", library.best_name());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> sizes = {1024, 2048, 4096, 8192};
  auto take_sizes = [&sizes](const std::string&, const std::string& value) -> std::string {
    std::vector<std::size_t> parsed;
    if (!wb::parse_count_list(value, &parsed, false))
      return "--sizes needs sizes from 1 to 65536 separated by commas, got '" + value + "'";
    sizes.clear();
    for (std::size_t n : parsed) {
      if (n > 65536) return "--sizes needs sizes from 1 to 65536, got '" + value + "'";
      sizes.push_back(static_cast<int>(n));
    }
    return "";
  };
  return wb::run_bench_tool(kTool, argc, argv, take_sizes, [&sizes](const wb::BenchToolArgs& args) {
    // The rungs this GPU cannot run (1.09 and 1.10 need sm_80, 1.11-1.14 Hopper) are skipped, said once.
    wb::PhaseBench run = wb::start_phase_bench(1, args);
    std::printf("%-5s %-28s %-14s %10s %12s %10s %12s  %s\n", "id", "launcher", "size", "ms", "GFLOP/s", "% peak",
                "% of cuBLAS", "check");
    run.bench.warmup = 1;  // the naive rungs take seconds a run at 8192
    run.bench.keep = bench_keeps;
    run.bench.print = print_row;
    for (int n : sizes) {
      const p1::MatmulShape shape{n, n, n};
      run.run(wb::LessonShape{std::to_string(n), shape.text(), nullptr});
      add_library_rows(shape, args.repeat, run.device, run.table);
      std::fflush(stdout);
    }
    return run.finish(args.out);
  });
}
