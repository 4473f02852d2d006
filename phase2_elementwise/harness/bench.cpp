// SPDX-License-Identifier: MIT
// p2_bench: every phase 2 reference lesson at several sizes (common/lesson_bench.h: the lessons the
// manifest lists for the phase, each verifying its output before and after timing with an L2 flush
// between repeats, and reporting GB/s and % of the cudaMemcpy of the same bytes measured in the same run).
// Writes the result CSV (common/result_csv.h).
//   p2_bench [--elements 16M,64M] [--cols 1024,4096,16384] [--repeat N] [--out p2_bench.csv]
// The shapes: each --elements count, which the element-wise lessons read, and rows x cols holding the
// largest --elements count for each --cols, which the row-wise lessons read; each lesson runs on the
// shapes whose form it reads. A lesson's lines on shapes or data of its own (2.03's misaligned pointers,
// 2.09's rows four times longer) are left out: every row is on one of the benchmark's shapes.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "common/args.h"
#include "common/bench_tool.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/lesson_bench.h"
#include "common/report.h"

namespace {

const wb::BenchToolSpec kTool = {
    "p2_bench",
    "usage: p2_bench [--elements 16M,64M] [--cols 1024,4096,16384] [--repeat N] [--out p2_bench.csv]\n"
    "Times every phase 2 reference kernel (L2 flushed between repeats) against cudaMemcpy of the same\n"
    "bytes measured in the same run, checks each output, and writes the results as CSV.\n",
    {"--elements", "--cols"},
    10,
    "p2_bench.csv"};

// The shapes: each count, then rows x cols of the largest count for each cols (none where a row is
// longer than the count).
std::vector<wb::LessonShape> shapes(const std::vector<std::size_t>& elements, const std::vector<std::size_t>& cols) {
  std::vector<wb::LessonShape> all;
  for (std::size_t n : elements) all.push_back(wb::LessonShape{std::to_string(n), "n=" + wb::format_count(n), nullptr});
  const std::size_t largest = *std::max_element(elements.begin(), elements.end());
  for (std::size_t c : cols) {
    const std::size_t rows = largest / c;
    if (rows == 0) continue;
    const std::string shape = std::to_string(rows) + "x" + std::to_string(c);
    all.push_back(wb::LessonShape{shape, shape, nullptr});
  }
  return all;
}

// Only the lines on the shape asked for, including those that name the path they took on it after a
// dash (2.09's "4096x16384-fallback").
bool bench_keeps(const wb::ResultRow& row, const wb::LessonShape& shape) {
  return row.shape == shape.label || row.shape.rfind(shape.label + "-", 0) == 0;
}

void print_row(const wb::ResultRow& r) {
  std::printf("%-5s %-22s %-14s %9.3f ms %8.0f GB/s  %s\n", r.id.c_str(), r.launcher.c_str(), r.shape.c_str(),
              r.median_ms, r.rate, r.status.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::size_t> elements = {std::size_t(16) << 20, std::size_t(64) << 20};
  std::vector<std::size_t> cols_list = {1024, 4096, 16384};
  auto take_option = [&](const std::string& name, const std::string& value) -> std::string {
    if (name == "--elements")
      return wb::parse_count_list(value, &elements, false) ? "" : "--elements needs counts like 16M,64M";
    return wb::parse_count_list(value, &cols_list, false) ? "" : "--cols needs counts like 1024,4096";
  };
  return wb::run_bench_tool(kTool, argc, argv, take_option, [&](const wb::BenchToolArgs& args) {
    wb::PhaseBench run = wb::start_phase_bench(2, args);
    run.bench.keep = bench_keeps;
    run.bench.print = print_row;
    for (const wb::LessonShape& shape : shapes(elements, cols_list)) run.run(shape);
    return run.finish(args.out);
  });
}
