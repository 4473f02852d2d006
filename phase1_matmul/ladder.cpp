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
#include "common/timer.h"
#include "phase1_matmul/lesson_support.h"

namespace {

// % of a peak for the table ("%9.1f%%") and the CSV ("%.2f"); a peak of 0 (an architecture the peak
// tables lack) is neither 0% nor inf%: "unknown" in the table, an empty field in the CSV.
std::string peak_cell(double gflops, double peak, bool for_csv) {
  char text[32];
  if (peak <= 0) return for_csv ? "" : "   unknown";
  std::snprintf(text, sizeof text, for_csv ? "%.2f" : "%9.1f%%", 100.0 * gflops / peak);
  return text;
}

struct Rung {
  const char* id;
  const char* name;
  MatmulLauncher launch;
  MatmulPrecision precision;
  const char* arch = "";  // requires_arch of its cmake/exercises.json entry
};

// The version-to-launcher map lives here and nowhere else.
const std::vector<Rung>& rungs() {
  static const std::vector<Rung> all = {
      {"1.01", "matmul_naive", matmul_naive, MatmulPrecision::FP32},
      {"1.02", "matmul_coalesced", matmul_coalesced, MatmulPrecision::FP32},
      {"1.03", "matmul_smem_tiled", matmul_smem_tiled, MatmulPrecision::FP32},
      {"1.04", "matmul_blocktiling_1d", matmul_blocktiling_1d, MatmulPrecision::FP32},
      {"1.05", "matmul_blocktiling_2d", matmul_blocktiling_2d, MatmulPrecision::FP32},
      {"1.06", "matmul_vectorized", matmul_vectorized, MatmulPrecision::FP32},
      {"1.07", "matmul_warptiling", matmul_warptiling, MatmulPrecision::FP32},
      {"1.08", "matmul_cublas", matmul_cublas, MatmulPrecision::FP32},
      {"1.09", "matmul_tensor_core_tf32", matmul_tensor_core_tf32, MatmulPrecision::TF32, "80"},
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
double median_ms(TimeFn time, int repeat) {
  const double once = time(wb::BenchOptions{0, 1, false}).median_ms;
  const int reps = once > 200.0 ? 3 : repeat;
  return time(wb::BenchOptions{1, reps, false}).median_ms;
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
    std::FILE* csv = wb::open_bench_csv(args.out);
    const std::string date = wb::utc_date();
    std::fprintf(csv,
                 "device,date,size,id,launcher,precision,median_ms,gflops,peak_pct,cublas_ms,pct_of_cublas,status\n");
    std::printf("%s\n%-5s %-24s %6s %10s %12s %10s %12s  %s\n", wb::describe(device).c_str(), "id", "launcher", "size",
                "ms", "GFLOP/s", "% peak", "% of cuBLAS", "check");
    bool all_pass = true;
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
    const double bf16_peak = wb::bf16_peak_gflops(device);
    for (int n : sizes) {
      const MatmulShape shape{n, n, n};
      // Freed before the BF16 operands are made (8192 fits either way, on smaller GPUs too).
      auto fp32_bench = std::make_unique<MatmulBench>(shape, wb::kDefaultSeed);
      MatmulBench& bench = *fp32_bench;
      const wb::BenchOptions options{2, repeat, false};
      const double fp32_library = bench.time_library(MatmulPrecision::FP32, options).median_ms;
      const double tf32_library = bench.time_library(MatmulPrecision::TF32, options).median_ms;
      for (const Rung& rung : rungs()) {
        if (!wb::arch_requirement_met(rung.arch, cc)) continue;
        const bool pass = bench.verify(rung.name, rung.launch, rung.precision);
        all_pass = all_pass && pass;
        const double ms = median_ms([&](const wb::BenchOptions& o) { return bench.time(rung.launch, o); }, repeat);
        const double library = rung.precision == MatmulPrecision::FP32 ? fp32_library : tf32_library;
        const double gflops = wb::gflop_per_s(MatmulShape{n, n, n}.flop(), ms);
        const double peak = matmul_peak_gflops(device, rung.precision);
        const double of_library = 100.0 * library / ms;
        std::printf("%-5s %-24s %6d %10.3f %12.0f %s %11.1f%%  %s\n", rung.id, rung.name, n, ms, gflops,
                    peak_cell(gflops, peak, false).c_str(), of_library, pass ? "PASS" : "FAIL");
        std::fprintf(csv, "%s,%s,%d,%s,%s,%s,%.4f,%.1f,%s,%.4f,%.2f,%s\n", device.name.c_str(), date.c_str(), n,
                     rung.id, rung.name, rung.precision == MatmulPrecision::FP32 ? "fp32" : "tf32", ms, gflops,
                     peak_cell(gflops, peak, true).c_str(), library, of_library, pass ? "PASS" : "FAIL");
      }
      const double cublas_gflops = wb::gflop_per_s(MatmulShape{n, n, n}.flop(), fp32_library);
      const double fp32_peak = wb::fp32_peak_gflops(device);
      std::printf("%-5s %-24s %6d %10.3f %12.0f %s %11.1f%%\n", "-", "cublasSgemm (FP32)", n, fp32_library,
                  cublas_gflops, peak_cell(cublas_gflops, fp32_peak, false).c_str(), 100.0);
      std::fprintf(csv, "%s,%s,%d,-,cublasSgemm,fp32,%.4f,%.1f,%s,%.4f,100.00,PASS\n", device.name.c_str(),
                   date.c_str(), n, fp32_library, cublas_gflops, peak_cell(cublas_gflops, fp32_peak, true).c_str(),
                   fp32_library);
      std::fflush(stdout);
      fp32_bench.reset();
      if (runnable.empty()) continue;

      // BF16: each runnable rung against the faster of cublasGemmEx and cublasLtMatmul on the same data.
      Bf16MatmulBench bf16(shape, wb::kDefaultSeed);
      const Bf16LibraryTiming library = bf16.time_library(wb::BenchOptions{2, repeat, false});
      const double best = library.best_ms();
      auto bf16_row = [&](const char* id, const char* name, double ms, const char* status) {
        const double gflops = wb::gflop_per_s(shape.flop(), ms);
        std::printf("%-5s %-24s %6d %10.3f %12.0f %s %11.1f%%  %s\n", id, name, n, ms, gflops,
                    peak_cell(gflops, bf16_peak, false).c_str(), 100.0 * best / ms, status);
        std::fprintf(csv, "%s,%s,%d,%s,%s,bf16,%.4f,%.1f,%s,%.4f,%.2f,%s\n", device.name.c_str(), date.c_str(), n, id,
                     name, ms, gflops, peak_cell(gflops, bf16_peak, true).c_str(), best, 100.0 * best / ms,
                     *status ? status : "PASS");
      };
      for (const Bf16Rung* rung : runnable) {
        const bool pass = bf16.verify(rung->name, rung->launch);
        all_pass = all_pass && pass;
        const double ms = median_ms([&](const wb::BenchOptions& o) { return bf16.time(rung->launch, o); }, repeat);
        bf16_row(rung->id, rung->name, ms, pass ? "PASS" : "FAIL");
      }
      // "cuBLAS BF16 best" is the faster of the two; both are rows (launcher = the cuBLAS call).
      bf16_row("-", library.best_name(), best, "");
      if (library.lt_found) {
        const bool lt_best = library.lt_wins();
        bf16_row("-", lt_best ? "cublasGemmEx" : "cublasLtMatmul",
                 lt_best ? library.gemm_ex.median_ms : library.lt.median_ms, "");
      }
      std::printf("      (cuBLAS BF16 best = %s)\n", library.best_name());
      std::fflush(stdout);
    }
    std::fclose(csv);
    std::printf("CSV written to %s\n", args.out.c_str());
    return all_pass ? wb::kExitPass : wb::kExitFail;
  });
}
