// SPDX-License-Identifier: MIT
// The result line: one shape for every lesson, with units, and its CSV twin.
#include "common/report.h"

#include <algorithm>
#include <string>

#include "common/testing.h"

namespace {

wb::ResultLine sample_line() {
  wb::ResultLine line;
  line.id = "0.02";
  line.name = "vector_add_float4";
  line.problem = "n=64M";
  line.time.median_ms = 0.2734;
  line.time.min_ms = 0.27;
  line.time.spread_pct = 0.43;
  line.rate = 2945.6;
  line.peak_pct = 87.9;
  line.ref_value = 98.6;
  line.pass = true;
  return line;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("the result line has every DESIGN.md column with units", "[host][report]") {
  const std::string text = wb::format_result_line(sample_line());
  INFO(text);
  CHECK(text.rfind("0.02 ", 0) == 0);
  CHECK(contains(text, "vector_add_float4"));
  CHECK(contains(text, "n=64M"));
  CHECK(contains(text, "0.273 ms ±0.4%"));
  CHECK(contains(text, "2946 GB/s"));
  CHECK(contains(text, "88% DRAM peak"));
  CHECK(contains(text, "99% of memcpy"));
  CHECK(text.size() >= 4);
  CHECK(text.substr(text.size() - 4) == "PASS");
}

TEST_CASE("compute-bound lines switch to TFLOP/s, speedups print as a factor, failures say FAIL", "[host][report]") {
  wb::ResultLine line = sample_line();
  line.unit = wb::RateUnit::GFLOPs;
  line.rate = 9200;
  line.peak_label = "FP32 peak";
  line.ref_style = wb::RefStyle::Speedup;
  line.ref_value = 1.923;
  line.ref_label = "serial";
  line.pass = false;
  const std::string text = wb::format_result_line(line);
  INFO(text);
  CHECK(contains(text, "9.2 TFLOP/s"));
  CHECK(contains(text, "FP32 peak"));
  CHECK(contains(text, "1.92x serial"));
  CHECK(text.substr(text.size() - 4) == "FAIL");
  line.rate = 512;
  CHECK(contains(wb::format_result_line(line), "512 GFLOP/s"));
}

TEST_CASE("a rate above the measured memcpy bandwidth is labelled cache-resident", "[host][report]") {
  wb::ResultLine line = sample_line();
  line.cache_resident = true;
  CHECK(contains(wb::format_result_line(line), "cache-resident PASS"));
}

TEST_CASE("the CSV row has as many fields as its header, in the same order", "[host][report]") {
  const std::string header = wb::csv_header();
  const std::string row = wb::format_csv_row(sample_line(), "NVIDIA H100 80GB HBM3");
  auto fields = [](const std::string& s) { return std::count(s.begin(), s.end(), ',') + 1; };
  CHECK(fields(header) == fields(row));
  CHECK(header.rfind("id,name,problem,median_ms", 0) == 0);
  CHECK(row.rfind("0.02,vector_add_float4,n=64M,0.273400", 0) == 0);
  CHECK(contains(row, ",PASS,NVIDIA H100 80GB HBM3"));
}

TEST_CASE("format_count writes binary suffixes for round sizes", "[host][report]") {
  CHECK(wb::format_count(0) == "0");
  CHECK(wb::format_count(1000) == "1000");
  CHECK(wb::format_count(1023) == "1023");
  CHECK(wb::format_count(1024) == "1K");
  CHECK(wb::format_count(std::size_t(64) << 20) == "64M");
  CHECK(wb::format_count(std::size_t(1) << 30) == "1G");
  CHECK(wb::format_count(1536) == "1.5K");
  CHECK(wb::format_count(100000) == "100000");
}

TEST_CASE("rates come from bytes or FLOPs over milliseconds", "[host][report]") {
  CHECK(wb::gb_per_s(3e9, 1.0) == 3000.0);
  CHECK(wb::gflop_per_s(2e9, 2.0) == 1000.0);
  CHECK(wb::gb_per_s(1e9, 0.0) == 0.0);
}

TEST_CASE("percentages below 10 keep one decimal", "[host][report]") {
  wb::ResultLine line = sample_line();
  line.ref_value = 0.94;
  line.peak_pct = 5.6;
  const std::string text = wb::format_result_line(line);
  INFO(text);
  CHECK(contains(text, "0.9% of memcpy"));
  CHECK(contains(text, "5.6% DRAM peak"));
}
