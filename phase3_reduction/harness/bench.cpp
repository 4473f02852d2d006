// SPDX-License-Identifier: MIT
// p3_bench: the whole reduction ladder (every reference rung) and CUB's DeviceReduce::Sum on the
// same data, L2 flushed between repeats, as GB/s, % of HBM peak and % of CUB. Then the capstone, 3.11's
// scan_inclusive, against CUB's DeviceScan::InclusiveSum on as many ints (its bytes: every element read
// and written, 8 per element; its % of CUB: of CUB's scan). Writes a CSV.
//   p3_bench [--elements 256M,16M] [--repeat N] [--out p3_bench.csv]
// The defaults are 1 GiB and 64 MiB of floats. Inputs are exactly summable (multiples of 1/256 with
// random signs), so every sum is checked to the last bit, on an output poisoned before each rung runs;
// the scans' inputs are random ints in [-1000, 1000], checked exactly against the CPU's scan.
#include <cstdio>
#include <string>
#include <vector>

#include "common/args.h"
#include "common/bench_tool.h"
#include "common/buffer.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/report.h"
#include "common/timer.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/harness/reference.h"
#include "phase3_reduction/reduction.cuh"

namespace {

const wb::BenchToolSpec kTool = {
    "p3_bench",
    "usage: p3_bench [--elements 256M,16M] [--repeat N] [--out p3_bench.csv]\n"
    "Times every phase 3 reference reduction and CUB DeviceReduce::Sum (L2 flushed between repeats) on\n"
    "the same floats, then 3.11's scan_inclusive and CUB DeviceScan::InclusiveSum on as many ints, checks\n"
    "each result exactly, and writes the results as CSV.\n",
    {"--elements"},
    10,
    "p3_bench.csv"};

struct Row {
  std::string step, kernel;
  std::size_t n, bytes;  // bytes moved: 4 n for a sum, 8 n for a scan
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
  auto take_elements = [&elements](const std::string&, const std::string& value) -> std::string {
    return wb::parse_count_list(value, &elements, false) ? "" : "--elements needs counts like 256M,16M";
  };
  return wb::run_bench_tool(kTool, argc, argv, take_elements, [&elements](const wb::BenchToolArgs& args) {
    const int repeat = args.repeat;
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
      // A row against `library_gbs` (CUB's rate on the same bytes), `moved` bytes per run.
      auto add_row_against = [&](const char* step, const char* kernel, const wb::TimingStats& t, bool pass,
                                 double moved, double library_gbs) {
        const double gbs = wb::gb_per_s(moved, t.median_ms);
        rows.push_back(Row{step, kernel, n, static_cast<std::size_t>(moved), t, gbs,
                           library_gbs > 0 ? 100.0 * gbs / library_gbs : 0.0, pass});
        all_pass = all_pass && pass;
        std::printf("%-5s %-30s n=%-6s %9.3f ms %7.0f GB/s %4.0f%% HBM peak %5.1f%% of CUB  %s\n", step, kernel,
                    wb::format_count(n).c_str(), t.median_ms, gbs, 100.0 * gbs / peak, rows.back().cub_pct,
                    pass ? "PASS" : "FAIL");
        std::fflush(stdout);
      };
      auto add_row = [&](const char* step, const char* kernel, const wb::TimingStats& t, bool pass) {
        add_row_against(step, kernel, t, pass, bytes, cub_gbs);
      };
      add_row("cub", "cub::DeviceReduce::Sum", cub_time, judge_sum(input, cub_sum, 0.0).empty());
      for (const auto& rung : kLadder) {
        // The previous rung left the right sum in `result`: poisoned first, a rung that writes
        // nothing shows as untouched instead of passing.
        result.fill(wb::poison_value<float>());
        rung.launch(din.data(), result.data(), n, workspace.data(), nullptr);
        CUDA_CHECK(cudaDeviceSynchronize());
        std::string verdict = judge_sum(input, result.download()[0], 0.0);
        const wb::TimingStats t =
            wb::bench(nullptr, options, [&] { rung.launch(din.data(), result.data(), n, workspace.data(), nullptr); });
        if (verdict.empty()) verdict = judge_sum(input, result.download()[0], 0.0);  // again after timing
        if (!verdict.empty()) std::fprintf(stderr, "%s: %s\n", rung.name, verdict.c_str());
        add_row(rung.step, rung.name, t, verdict.empty());
      }

      // 3.11: the scan and CUB's InclusiveSum on n ints, into one output (poisoned before the scan runs).
      const std::vector<int> ints = wb::random_ints(n, wb::kDefaultSeed, -1000, 1000);
      wb::DeviceBuffer<int> ints_in(ints);
      wb::DeviceBuffer<int> scanned(n);
      wb::DeviceBuffer<unsigned char> scan_workspace(scan_workspace_bytes(n));
      const double scan_bytes = 8.0 * static_cast<double>(n);
      const wb::TimingStats cub_scan_time = time_cub_scan(ints_in.data(), scanned.data(), n, options);
      const double cub_scan_gbs = wb::gb_per_s(scan_bytes, cub_scan_time.median_ms);
      add_row_against("cub", "cub::DeviceScan::InclusiveSum", cub_scan_time,
                      judge_scan(ints, scanned.download()).empty(), scan_bytes, cub_scan_gbs);
      auto scan = [&] {
        scan_inclusive(ints_in.data(), scanned.data(), n, scan_workspace.data(), scan_workspace.size(), nullptr);
      };
      scanned.fill(wb::poison_value<int>());
      scan();
      CUDA_CHECK(cudaDeviceSynchronize());
      std::string scan_verdict = judge_scan(ints, scanned.download());
      const wb::TimingStats scan_time = wb::bench(nullptr, options, scan);
      if (scan_verdict.empty()) scan_verdict = judge_scan(ints, scanned.download());  // again after timing
      if (!scan_verdict.empty()) std::fprintf(stderr, "scan_inclusive: %s\n", scan_verdict.c_str());
      add_row_against("3.11", "scan_inclusive", scan_time, scan_verdict.empty(), scan_bytes, cub_scan_gbs);
    }
    std::FILE* csv = wb::open_bench_csv(args.out);
    const std::string date = wb::utc_date();
    std::fprintf(csv,
                 "device,date,id,kernel,size,bytes,median_ms,min_ms,spread_pct,gbps,pct_of_peak,pct_of_cub,status\n");
    for (const Row& r : rows)
      std::fprintf(csv, "\"%s\",%s,%s,%s,%zu,%zu,%.5f,%.5f,%.2f,%.1f,%.1f,%.1f,%s\n", device.name.c_str(), date.c_str(),
                   r.step.c_str(), r.kernel.c_str(), r.n, r.bytes, r.time.median_ms, r.time.min_ms, r.time.spread_pct,
                   r.gbs, 100.0 * r.gbs / peak, r.cub_pct, r.pass ? "PASS" : "FAIL");
    std::fclose(csv);
    std::printf("CSV written to %s\n", args.out.c_str());
    return all_pass ? wb::kExitPass : wb::kExitFail;
  });
}
