// SPDX-License-Identifier: MIT
// p3_bench: every phase 3 reference lesson on each --elements count (common/lesson_bench.h: the lessons
// the manifest lists for the phase, each verifying, timing with L2 flushed between repeats and reporting
// against its CUB yardstick measured in the same run), after CUB's own rows on the same counts. The
// ladder's rungs report GB/s, % of HBM peak and % of CUB DeviceReduce::Sum; the capstone, 3.11's
// scan_inclusive, against CUB's DeviceScan::InclusiveSum on as many ints (its bytes: every element read
// and written, 8 per element). Writes the result CSV (common/result_csv.h).
//   p3_bench [--elements 256M,16M] [--repeat N] [--out p3_bench.csv]
// The defaults are 1 GiB and 64 MiB of floats. Inputs are exactly summable (multiples of 1/256 with
// random signs), so every sum is checked to the last bit, on an output poisoned before each rung runs;
// the scans' inputs are random ints in [-1000, 1000], checked exactly against the CPU's scan.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common/args.h"
#include "common/bench_tool.h"
#include "common/buffer.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/lesson_bench.h"
#include "common/report.h"
#include "common/timer.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/harness/reference.h"

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

// The lessons' lines the benchmark leaves out: 3.11's lesson scans floats too, while CUB's row beside
// it scans ints.
bool bench_keeps(const wb::ResultRow& row, const wb::LessonShape&) {
  return row.launcher != "scan_inclusive_float";
}

// CUB's own rows on n elements, each the yardstick of its kind (100% of itself): its time, whether its
// result is right, and the bytes its rate counts.
struct LibraryRun {
  wb::TimingStats time;
  bool right = false;
  double bytes = 0;
};

struct LibraryRow {
  const char* launcher;
  const char* dtype;
  const char* yardstick;
  LibraryRun (*run)(std::size_t n, const wb::BenchOptions& options);
};

LibraryRun cub_reduce(std::size_t n, const wb::BenchOptions& options) {
  const std::vector<float> input = wb::random_dyadic_floats(n, wb::kDefaultSeed);
  wb::DeviceBuffer<float> din(input);
  float sum = 0;
  LibraryRun run;
  run.time = p3::time_cub_reduce(din.data(), n, options, &sum);
  run.right = p3::judge_sum(input, sum, 0.0).empty();
  run.bytes = 4.0 * static_cast<double>(n);
  return run;
}

LibraryRun cub_scan(std::size_t n, const wb::BenchOptions& options) {
  const std::vector<int> ints = wb::random_ints(n, wb::kDefaultSeed, -1000, 1000);
  wb::DeviceBuffer<int> in(ints), out(n);
  LibraryRun run;
  run.time = p3::time_cub_scan(in.data(), out.data(), n, options);
  run.right = p3::judge_scan(ints, out.download()).empty();
  run.bytes = 8.0 * static_cast<double>(n);  // every element read and written
  return run;
}

const LibraryRow kLibraryRows[] = {
    {"cub::DeviceReduce::Sum", "fp32", "CUB", cub_reduce},
    {"cub::DeviceScan::InclusiveSum", "int32", "CUB InclusiveSum", cub_scan},
};

void print_row(const wb::ResultRow& r) {
  std::printf("%-5s %-30s %-8s %9.3f ms %7.0f GB/s %4.0f%% %s %5.1f%% of %s  %s\n", r.id == "-" ? "cub" : r.id.c_str(),
              r.launcher.c_str(), r.shape.c_str(), r.median_ms, r.rate, r.peak_pct, r.peak_label.c_str(), r.ref_value,
              r.ref_label.c_str(), r.status.c_str());
}

void add_library_rows(std::size_t n, const wb::BenchOptions& options, const wb::DeviceInfo& device,
                      wb::BenchTable& table) {
  for (const LibraryRow& library : kLibraryRows) {
    const LibraryRun run = library.run(n, options);
    wb::ResultRow row = wb::bench_row("library", library.launcher, "n=" + wb::format_count(n), library.dtype, run.time);
    row.bytes = run.bytes;
    wb::set_rate(row, "GB/s", wb::dram_peak_gbs(device), wb::memory_peak_label(device));
    wb::set_reference(row, library.yardstick, 100.0);
    row.status = run.right ? "PASS" : "FAIL";
    print_row(table.add(row));
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> elements = {std::size_t(256) << 20, std::size_t(16) << 20};
  auto take_elements = [&elements](const std::string&, const std::string& value) -> std::string {
    return wb::parse_count_list(value, &elements, false) ? "" : "--elements needs counts like 256M,16M";
  };
  return wb::run_bench_tool(kTool, argc, argv, take_elements, [&elements](const wb::BenchToolArgs& args) {
    wb::PhaseBench run = wb::start_phase_bench(3, args);
    run.bench.keep = bench_keeps;
    run.bench.print = print_row;
    for (std::size_t n : elements) {
      add_library_rows(n, wb::BenchOptions{run.bench.warmup, run.bench.repeat, true}, run.device, run.table);
      run.run(wb::LessonShape{std::to_string(n), "n=" + wb::format_count(n), nullptr});
    }
    return run.finish(args.out);
  });
}
