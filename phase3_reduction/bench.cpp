// SPDX-License-Identifier: MIT
// p3_bench: the whole reduction ladder (every reference rung) and CUB's DeviceReduce::Sum on the
// same data, L2 flushed between repeats, as GB/s, % of HBM peak and % of CUB. Writes a CSV.
//   p3_bench [--elements 256M,16M] [--repeat N] [--out p3_bench.csv]
// The defaults are 1 GiB and 64 MiB of floats. Inputs are exactly summable (multiples of 1/256 with
// random signs), so every sum is checked to the last bit.
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "common/args.h"
#include "common/buffer.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/report.h"
#include "common/timer.h"
#include "phase3_reduction/lesson_support.h"
#include "phase3_reduction/reduction.cuh"
#include "phase3_reduction/reference.h"

namespace {

const char* kUsage =
    "usage: p3_bench [--elements 256M,16M] [--repeat N] [--out p3_bench.csv]\n"
    "Times every phase 3 reference reduction and CUB DeviceReduce::Sum (L2 flushed between repeats) on\n"
    "the same floats, checks each sum exactly, and writes the results as CSV.\n";

int usage_error(const std::string& why) {
  std::fprintf(stderr, "p3_bench: %s\n%s", why.c_str(), kUsage);
  return wb::kExitUsage;
}

struct Row {
  std::string step, kernel;
  std::size_t n;
  wb::TimingStats time;
  double gbs, cub_pct;
  bool pass;
};

// The ladder in order: the version-to-launcher map lives here and nowhere else.
const struct {
  const char* step;
  const char* name;
  ReduceLauncher<float> launch;
} kLadder[] = {
    {"3.01", "reduce_interleaved_divergent", reduce_interleaved_divergent},
    {"3.02", "reduce_interleaved_strided", reduce_interleaved_strided},
    {"3.03", "reduce_sequential", reduce_sequential},
    {"3.04", "reduce_first_add_during_load", reduce_first_add_during_load},
    {"3.05", "reduce_unroll_last_warp", reduce_unroll_last_warp},
    {"3.06", "reduce_complete_unroll", reduce_complete_unroll},
    {"3.07", "reduce_many_per_thread", reduce_many_per_thread},
    {"3.08", "reduce_shuffle", reduce_shuffle},
    {"3.09", "reduce_single_pass_last_block", reduce_single_pass_last_block},
    {"3.09", "reduce_block_atomics", reduce_block_atomics},
    {"3.10", "reduce_cub", reduce_cub},
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> elements = {std::size_t(256) << 20, std::size_t(16) << 20};
  int repeat = 10;
  std::string out = "p3_bench.csv";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", kUsage);
      return wb::kExitPass;
    }
    if (i + 1 >= argc) return usage_error("unknown option or missing value: '" + arg + "'");
    const std::string value = argv[++i];
    std::size_t n = 0;
    if (arg == "--elements") {
      if (!wb::parse_count_list(value, &elements, false)) return usage_error("--elements needs counts like 256M,16M");
    } else if (arg == "--repeat") {
      if (!wb::parse_count(value, &n, false) || n > 1000) return usage_error("--repeat needs 1 to 1000");
      repeat = static_cast<int>(n);
    } else if (arg == "--out") {
      out = value;
    } else {
      return usage_error("unknown option '" + arg + "'");
    }
  }
  const wb::GpuStatus gpu = wb::probe_gpu();
  if (!gpu.usable) {
    std::printf("%s\n", gpu.message.c_str());
    return gpu.exit_code;
  }
  try {
    const wb::DeviceInfo device = wb::query_device(0);
    const double peak = wb::dram_peak_gbs(device);
    const wb::BenchOptions options{2, repeat, true};
    std::vector<Row> rows;
    bool all_pass = true;
    std::printf("%s\n", wb::describe(device).c_str());
    for (std::size_t n : elements) {
      const std::vector<float> input = wb::random_dyadic_floats(n, wb::kDefaultSeed);
      wb::DeviceBuffer<float> din(input);
      wb::DeviceBuffer<float> workspace(reduce_workspace_elements(n));
      wb::DeviceBuffer<float> result(1);
      const double bytes = 4.0 * static_cast<double>(n);
      float cub_sum = 0;
      const wb::TimingStats cub_time = time_cub_reduce(din.data(), n, options, &cub_sum);
      const double cub_gbs = wb::gb_per_s(bytes, cub_time.median_ms);
      auto add_row = [&](const char* step, const char* kernel, const wb::TimingStats& t, bool pass) {
        const double gbs = wb::gb_per_s(bytes, t.median_ms);
        rows.push_back(Row{step, kernel, n, t, gbs, cub_gbs > 0 ? 100.0 * gbs / cub_gbs : 0.0, pass});
        all_pass = all_pass && pass;
        std::printf("%-5s %-30s n=%-6s %9.3f ms %7.0f GB/s %4.0f%% HBM peak %5.1f%% of CUB  %s\n", step, kernel,
                    wb::format_count(n).c_str(), t.median_ms, gbs, 100.0 * gbs / peak, rows.back().cub_pct,
                    pass ? "PASS" : "FAIL");
        std::fflush(stdout);
      };
      add_row("cub", "cub::DeviceReduce::Sum", cub_time, judge_sum(input, cub_sum, 0.0).empty());
      for (const auto& rung : kLadder) {
        rung.launch(din.data(), result.data(), n, workspace.data(), nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        std::string verdict = judge_sum(input, result.download()[0], 0.0);
        const wb::TimingStats t =
            wb::bench(nullptr, options, [&] { rung.launch(din.data(), result.data(), n, workspace.data(), nullptr); });
        if (verdict.empty()) verdict = judge_sum(input, result.download()[0], 0.0);  // again after timing
        if (!verdict.empty()) std::fprintf(stderr, "%s: %s\n", rung.name, verdict.c_str());
        add_row(rung.step, rung.name, t, verdict.empty());
      }
    }
    std::FILE* csv = std::fopen(out.c_str(), "w");
    if (csv == nullptr) return usage_error("cannot write '" + out + "'");
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    std::fprintf(csv, "device,date,step,kernel,n,bytes,median_ms,min_ms,spread_pct,gbs,hbm_peak_pct,cub_pct,pass\n");
    for (const Row& r : rows)
      std::fprintf(csv, "\"%s\",%s,%s,%s,%zu,%zu,%.5f,%.5f,%.2f,%.1f,%.1f,%.1f,%s\n", device.name.c_str(), date,
                   r.step.c_str(), r.kernel.c_str(), r.n, 4 * r.n, r.time.median_ms, r.time.min_ms, r.time.spread_pct,
                   r.gbs, 100.0 * r.gbs / peak, r.cub_pct, r.pass ? "PASS" : "FAIL");
    std::fclose(csv);
    std::printf("CSV written to %s\n", out.c_str());
    return all_pass ? wb::kExitPass : wb::kExitFail;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "p3_bench: error: %s\n", e.what());
    return wb::kExitFail;
  }
}
