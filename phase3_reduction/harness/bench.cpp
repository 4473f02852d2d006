// SPDX-License-Identifier: MIT
// p3_bench: the whole reduction ladder (every reference rung) and CUB's DeviceReduce::Sum on the
// same data, L2 flushed between repeats, as GB/s, % of HBM peak and % of CUB. Then the capstone, 3.11's
// scan_inclusive, against CUB's DeviceScan::InclusiveSum on as many ints (its bytes: every element read
// and written, 8 per element; its % of CUB: of CUB's scan). Writes the result CSV (common/result_csv.h).
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
#include "common/measure.h"
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
    const std::string peak_label = wb::memory_peak_label(device);
    wb::BenchTable::check_writable(args.out);
    wb::BenchTable table(device.name);
    std::printf("%s\n", wb::describe(device).c_str());
    for (std::size_t n : elements) {
      const std::vector<float> input = wb::random_dyadic_floats(n, wb::kDefaultSeed);
      wb::DeviceBuffer<float> din(input);
      wb::DeviceBuffer<float> workspace(reduce_workspace_elements(n));
      wb::DeviceBuffer<float> result(1);
      const double bytes = 4.0 * static_cast<double>(n);
      const std::string shape = "n=" + wb::format_count(n);
      float cub_sum = 0;
      const wb::TimingStats cub_time = p3::time_cub_reduce(din.data(), n, options, &cub_sum);
      const double cub_gbs = wb::gb_per_s(bytes, cub_time.median_ms);
      // A row against `library_gbs` (CUB's rate on the same bytes), `moved` bytes per run: a sum against
      // CUB's reduction, a scan (int32) against CUB's InclusiveSum.
      auto add_row_against = [&](const char* step, const char* variant, const char* kernel, const char* dtype,
                                 const wb::TimingStats& t, bool pass, double moved, double library_gbs) {
        const bool scan = std::string(dtype) == "int32";
        wb::ResultRow row = wb::bench_row(variant, kernel, shape, dtype, t);
        row.id = step;
        row.bytes = moved;
        wb::set_rate(row, "GB/s", peak, peak_label);
        wb::set_reference(row, scan ? "CUB InclusiveSum" : "CUB",
                          library_gbs > 0 ? 100.0 * row.rate / library_gbs : 0.0);
        row.status = pass ? "PASS" : "FAIL";
        const wb::ResultRow& r = table.add(row);
        std::printf("%-5s %-30s n=%-6s %9.3f ms %7.0f GB/s %4.0f%% %s %5.1f%% of CUB  %s\n", r.id == "-" ? "cub" : step,
                    kernel, wb::format_count(n).c_str(), t.median_ms, r.rate, r.peak_pct, peak_label.c_str(),
                    r.ref_value, r.status.c_str());
        std::fflush(stdout);
      };
      add_row_against("-", "library", "cub::DeviceReduce::Sum", "fp32", cub_time,
                      p3::judge_sum(input, cub_sum, 0.0).empty(), bytes, cub_gbs);
      for (const auto& rung : kLadder) {
        // The previous rung left the right sum in `result`: poisoned first, a rung that writes
        // nothing shows as untouched instead of passing.
        wb::MeasureSteps steps;
        steps.poison = [&] { result.fill(wb::poison_value<float>()); };
        steps.launch = [&] { rung.launch(din.data(), result.data(), n, workspace.data(), nullptr); };
        steps.verify = [&](const std::string& when) {
          const std::string verdict = p3::judge_sum(input, result.download()[0], 0.0);
          if (!verdict.empty()) std::fprintf(stderr, "%s%s: %s\n", rung.name, when.c_str(), verdict.c_str());
          return verdict.empty();
        };
        steps.options = options;
        const wb::Measured m = wb::measure(steps);
        add_row_against(rung.step, "solution", rung.name, "fp32", m.time, m.pass, bytes, cub_gbs);
      }

      // 3.11: the scan and CUB's InclusiveSum on n ints, into one output (poisoned before the scan runs).
      const std::vector<int> ints = wb::random_ints(n, wb::kDefaultSeed, -1000, 1000);
      wb::DeviceBuffer<int> ints_in(ints);
      wb::DeviceBuffer<int> scanned(n);
      wb::DeviceBuffer<unsigned char> scan_workspace(scan_workspace_bytes(n));
      const double scan_bytes = 8.0 * static_cast<double>(n);
      const wb::TimingStats cub_scan_time = p3::time_cub_scan(ints_in.data(), scanned.data(), n, options);
      const double cub_scan_gbs = wb::gb_per_s(scan_bytes, cub_scan_time.median_ms);
      add_row_against("-", "library", "cub::DeviceScan::InclusiveSum", "int32", cub_scan_time,
                      p3::judge_scan(ints, scanned.download()).empty(), scan_bytes, cub_scan_gbs);
      wb::MeasureSteps scan;
      scan.poison = [&] { scanned.fill(wb::poison_value<int>()); };
      scan.launch = [&] {
        scan_inclusive(ints_in.data(), scanned.data(), n, scan_workspace.data(), scan_workspace.size(), nullptr);
      };
      scan.verify = [&](const std::string& when) {
        const std::string verdict = p3::judge_scan(ints, scanned.download());
        if (!verdict.empty()) std::fprintf(stderr, "scan_inclusive%s: %s\n", when.c_str(), verdict.c_str());
        return verdict.empty();
      };
      scan.options = options;
      const wb::Measured m = wb::measure(scan);
      add_row_against("3.11", "solution", "scan_inclusive", "int32", m.time, m.pass, scan_bytes, cub_scan_gbs);
    }
    table.write(args.out);
    return table.all_pass() ? wb::kExitPass : wb::kExitFail;
  });
}
