// SPDX-License-Identifier: MIT
// p1_ladder: every rung of the reference SGEMM ladder at several sizes against cuBLAS, measured in
// one run, then the BF16 tensor-core rungs (1.10-1.14) against "cuBLAS BF16 best" (the faster of
// cublasGemmEx and cublasLtMatmul), each where this GPU can run it. Writes a CSV (for a plot of the
// ladder against the cuBLAS line; precision fp32, tf32 or bf16) and prints a table.
//   p1_ladder [--sizes 1024,2048,4096,8192] [--repeat N] [--out p1_ladder.csv]
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "common/arch_requirement.h"
#include "common/args.h"
#include "common/bench_tool.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/measure.h"
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

struct Rung {
  const char* id;
  const char* name;
  MatmulLauncher launch;
  p1::MatmulPrecision precision;
  const char* arch = "";  // requires_arch of its cmake/exercises.json entry
};

// The version-to-launcher map lives here and nowhere else.
const std::vector<Rung>& rungs() {
  static const std::vector<Rung> all = {
      {"1.01", "matmul_naive", matmul_naive, p1::MatmulPrecision::FP32},
      {"1.02", "matmul_coalesced", matmul_coalesced, p1::MatmulPrecision::FP32},
      {"1.03", "matmul_smem_tiled", matmul_smem_tiled, p1::MatmulPrecision::FP32},
      {"1.04", "matmul_blocktiling_1d", matmul_blocktiling_1d, p1::MatmulPrecision::FP32},
      {"1.05", "matmul_blocktiling_2d", matmul_blocktiling_2d, p1::MatmulPrecision::FP32},
      {"1.06", "matmul_vectorized", matmul_vectorized, p1::MatmulPrecision::FP32},
      {"1.07", "matmul_warptiling", matmul_warptiling, p1::MatmulPrecision::FP32},
      {"1.08", "matmul_cublas", matmul_cublas, p1::MatmulPrecision::FP32},
      {"1.09", "matmul_tensor_core_tf32", matmul_tensor_core_tf32, p1::MatmulPrecision::TF32, "80"},
  };
  return all;
}

struct Bf16Rung {
  const char* id;
  const char* exercise;  // as cmake/exercises.json names it, for the skip line
  const char* name;
  Bf16MatmulLauncher launch;
  const char* arch;  // requires_arch of its cmake/exercises.json entry
};

const std::vector<Bf16Rung>& bf16_rungs() {
  static const std::vector<Bf16Rung> all = {
      {"1.10", "mma_sync", "matmul_mma_sync_bf16", matmul_mma_sync_bf16, "80"},
      {"1.11", "wgmma", "matmul_wgmma_bf16", matmul_wgmma_bf16, "90a"},
      {"1.12", "tma", "matmul_tma_bf16", matmul_tma_bf16, "90a"},
      {"1.13", "warp_specialized", "matmul_warp_specialized_bf16", matmul_warp_specialized_bf16, "90a"},
      {"1.14", "cluster_multicast", "matmul_cluster_bf16", matmul_cluster_bf16, "90a"},
  };
  return all;
}

// Repeats for one rung: slow rungs (the naive kernel at 8192 takes seconds) get fewer.
template <typename TimeFn>
wb::TimingStats timed(TimeFn time, int repeat) {
  const double once = time(wb::BenchOptions{0, 1, false}).median_ms;
  const int reps = once > 200.0 ? 3 : repeat;
  return time(wb::BenchOptions{1, reps, false});
}

const char* dtype_of(p1::MatmulPrecision precision) {
  return precision == p1::MatmulPrecision::FP32 ? "fp32" : precision == p1::MatmulPrecision::TF32 ? "tf32" : "bf16";
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
    const int repeat = args.repeat;
    const wb::DeviceInfo device = wb::query_device(0);
    wb::BenchTable::check_writable(args.out);
    wb::BenchTable table(device.name);
    std::printf("%s\n%-5s %-24s %6s %10s %12s %10s %12s  %s\n", wb::describe(device).c_str(), "id", "launcher", "size",
                "ms", "GFLOP/s", "% peak", "% of cuBLAS", "check");
    // The rungs this GPU cannot run (1.09 and 1.10 need sm_80, 1.11-1.14 Hopper) are skipped, said once.
    const int cc = device.cc_major * 10 + device.cc_minor;
    for (const Rung& rung : rungs())
      if (!wb::arch_requirement_met(rung.arch, cc))
        std::printf("%-5s %-24s skipped: %s\n", rung.id, rung.name,
                    wb::arch_requirement_unmet(rung.id, "tensor_cores", rung.arch, cc).c_str());
    std::vector<const Bf16Rung*> runnable;
    for (const Bf16Rung& rung : bf16_rungs()) {
      if (wb::arch_requirement_met(rung.arch, cc))
        runnable.push_back(&rung);
      else
        std::printf("%-5s %-24s skipped: %s\n", rung.id, rung.name,
                    wb::arch_requirement_unmet(rung.id, rung.exercise, rung.arch, cc).c_str());
    }
    for (int n : sizes) {
      const p1::MatmulShape shape{n, n, n};
      // One row: GFLOP/s, % of the peak at the row's precision and % of the library (`library_ms`).
      auto add = [&](const char* id, const char* variant, const std::string& launcher, p1::MatmulPrecision precision,
                     const wb::TimingStats& time, double library_ms, bool pass, const char* library_label) {
        wb::ResultRow row = wb::bench_row(variant, launcher, shape.text(), dtype_of(precision), time);
        row.id = id;
        row.flop = shape.flop();
        const bool bf16 = precision == p1::MatmulPrecision::BF16;
        wb::set_rate(row, "GFLOP/s", bf16 ? wb::bf16_peak_gflops(device) : p1::matmul_peak_gflops(device, precision),
                     bf16                                     ? "BF16 peak"
                     : precision == p1::MatmulPrecision::FP32 ? "FP32 peak"
                                                              : "TF32 peak");
        wb::set_reference(row, library_label, 100.0 * library_ms / time.median_ms);
        row.status = pass ? "PASS" : "FAIL";
        const wb::ResultRow& r = table.add(row);
        std::printf("%-5s %-24s %6d %10.3f %12.0f %s %11.1f%%  %s\n", id, launcher.c_str(), n, r.median_ms, r.rate,
                    peak_cell(r).c_str(), r.ref_value, r.status.c_str());
      };
      // Freed before the BF16 operands are made (8192 fits either way, on smaller GPUs too).
      auto fp32_bench = std::make_unique<p1::MatmulBench>(shape, wb::kDefaultSeed);
      p1::MatmulBench& bench = *fp32_bench;
      const wb::BenchOptions options{2, repeat, false};
      const wb::TimingStats fp32_library = bench.time_library(p1::MatmulPrecision::FP32, options);
      const double tf32_library = bench.time_library(p1::MatmulPrecision::TF32, options).median_ms;
      for (const Rung& rung : rungs()) {
        if (!wb::arch_requirement_met(rung.arch, cc)) continue;
        wb::MeasureSteps steps;
        steps.verify = [&](const std::string& when) {
          return bench.verify(rung.name + when, rung.launch, rung.precision);
        };
        steps.time = [&] {
          return timed([&](const wb::BenchOptions& o) { return bench.time(rung.launch, o); }, repeat);
        };
        const wb::Measured m = wb::measure(steps);
        const bool fp32 = rung.precision == p1::MatmulPrecision::FP32;
        add(rung.id, "solution", rung.name, rung.precision, m.time, fp32 ? fp32_library.median_ms : tf32_library,
            m.pass, fp32 ? "cuBLAS" : "cuBLAS TF32");
      }
      add("-", "library", "cublasSgemm", p1::MatmulPrecision::FP32, fp32_library, fp32_library.median_ms, true,
          "cuBLAS");
      std::fflush(stdout);
      fp32_bench.reset();
      if (runnable.empty()) continue;

      // BF16: each runnable rung against the faster of cublasGemmEx and cublasLtMatmul on the same data.
      p1::Bf16MatmulBench bf16(shape, wb::kDefaultSeed);
      const p1::Bf16LibraryTiming library = bf16.time_library(wb::BenchOptions{2, repeat, false});
      const double best = library.best_ms();
      for (const Bf16Rung* rung : runnable) {
        wb::MeasureSteps steps;
        steps.verify = [&](const std::string& when) { return bf16.verify(rung->name + when, rung->launch); };
        steps.time = [&] {
          return timed([&](const wb::BenchOptions& o) { return bf16.time(rung->launch, o); }, repeat);
        };
        const wb::Measured m = wb::measure(steps);
        add(rung->id, "solution", rung->name, p1::MatmulPrecision::BF16, m.time, best, m.pass, "cuBLAS BF16 best");
      }
      // "cuBLAS BF16 best" is the faster of the two; both are rows (launcher = the cuBLAS call).
      const bool lt_best = library.lt_found && library.lt_wins();
      add("-", "library", library.best_name(), p1::MatmulPrecision::BF16, lt_best ? library.lt : library.gemm_ex, best,
          true, "cuBLAS BF16 best");
      if (library.lt_found)
        add("-", "library", lt_best ? "cublasGemmEx" : "cublasLtMatmul", p1::MatmulPrecision::BF16,
            lt_best ? library.gemm_ex : library.lt, best, true, "cuBLAS BF16 best");
      std::printf("      (cuBLAS BF16 best = %s)\n", library.best_name());
      std::fflush(stdout);
    }
    table.write(args.out);
    return table.all_pass() ? wb::kExitPass : wb::kExitFail;
  });
}
