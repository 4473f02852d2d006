// SPDX-License-Identifier: MIT
// p1_ladder: every rung of the reference SGEMM ladder at several sizes against cuBLAS, measured in
// one run. Writes a CSV (for a plot of the ladder against the cuBLAS line) and prints a table.
//   p1_ladder [--sizes 1024,2048,4096,8192] [--repeat N] [--out p1_ladder.csv]
#include <cstdio>
#include <string>
#include <vector>

#include "common/args.h"
#include "common/bench_tool.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/timer.h"
#include "phase1_matmul/lesson_support.h"

namespace {

struct Rung {
  const char* id;
  const char* name;
  MatmulLauncher launch;
  MatmulPrecision precision;
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
      {"1.09", "matmul_tensor_core_tf32", matmul_tensor_core_tf32, MatmulPrecision::TF32},
  };
  return all;
}

const wb::BenchToolSpec kTool = {
    "p1_ladder",
    "usage: p1_ladder [--sizes 1024,2048,4096,8192] [--repeat N] [--out p1_ladder.csv]\n"
    "Runs every rung of the reference SGEMM ladder and cuBLAS at each size (M = N = K) in one process,\n"
    "verifies each result, and writes median time, GFLOP/s, % of the peak and % of cuBLAS as CSV.\n",
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
    for (int n : sizes) {
      MatmulBench bench(MatmulShape{n, n, n}, wb::kDefaultSeed);
      const wb::BenchOptions options{2, repeat, false};
      const double fp32_library = bench.time_library(MatmulPrecision::FP32, options).median_ms;
      const double tf32_library = bench.time_library(MatmulPrecision::TF32, options).median_ms;
      for (const Rung& rung : rungs()) {
        const bool pass = bench.verify(rung.name, rung.launch, rung.precision);
        all_pass = all_pass && pass;
        // Slow rungs (the naive kernel at 8192 takes seconds) get fewer repeats.
        const double once = bench.time(rung.launch, wb::BenchOptions{0, 1, false}).median_ms;
        const int reps = once > 200.0 ? 3 : repeat;
        const double ms = bench.time(rung.launch, wb::BenchOptions{1, reps, false}).median_ms;
        const double library = rung.precision == MatmulPrecision::FP32 ? fp32_library : tf32_library;
        const double gflops = wb::gflop_per_s(MatmulShape{n, n, n}.flop(), ms);
        const double peak = 100.0 * gflops / matmul_peak_gflops(device, rung.precision);
        const double of_library = 100.0 * library / ms;
        std::printf("%-5s %-24s %6d %10.3f %12.0f %9.1f%% %11.1f%%  %s\n", rung.id, rung.name, n, ms, gflops, peak,
                    of_library, pass ? "PASS" : "FAIL");
        std::fprintf(csv, "%s,%s,%d,%s,%s,%s,%.4f,%.1f,%.2f,%.4f,%.2f,%s\n", device.name.c_str(), date.c_str(), n,
                     rung.id, rung.name, rung.precision == MatmulPrecision::FP32 ? "fp32" : "tf32", ms, gflops, peak,
                     library, of_library, pass ? "PASS" : "FAIL");
      }
      const double cublas_gflops = wb::gflop_per_s(MatmulShape{n, n, n}.flop(), fp32_library);
      std::printf("%-5s %-24s %6d %10.3f %12.0f %9.1f%% %11.1f%%\n", "-", "cublasSgemm (FP32)", n, fp32_library,
                  cublas_gflops, 100.0 * cublas_gflops / wb::fp32_peak_gflops(device), 100.0);
      std::fprintf(csv, "%s,%s,%d,-,cublasSgemm,fp32,%.4f,%.1f,%.2f,%.4f,100.00,PASS\n", device.name.c_str(),
                   date.c_str(), n, fp32_library, cublas_gflops, 100.0 * cublas_gflops / wb::fp32_peak_gflops(device),
                   fp32_library);
      std::fflush(stdout);
    }
    std::fclose(csv);
    std::printf("CSV written to %s\n", args.out.c_str());
    return all_pass ? wb::kExitPass : wb::kExitFail;
  });
}
