// SPDX-License-Identifier: MIT
// The result line: one shape for every lesson, with units, and its CSV twin.
#include "common/report.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "common/gpus_used.h"
#include "common/lesson.h"
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

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE(
    "the result line has its columns with units: id and launcher; size; time and spread; rate; % of peak; "
    "% of the yardstick; verdict",
    "[host][report]") {
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

TEST_CASE("compute-bound lines switch to TFLOP/s, speedups print as a factor", "[host][report]") {
  wb::ResultLine line = sample_line();
  line.unit = wb::RateUnit::GFLOPs;
  line.rate = 9200;
  line.peak_label = "FP32 peak";
  line.ref_style = wb::RefStyle::Speedup;
  line.ref_value = 1.923;
  line.ref_label = "serial";
  const std::string text = wb::format_result_line(line);
  INFO(text);
  CHECK(contains(text, "9.2 TFLOP/s"));
  CHECK(contains(text, "FP32 peak"));
  CHECK(contains(text, "1.92x serial"));
  line.rate = 512;
  CHECK(contains(wb::format_result_line(line), "512 GFLOP/s"));
}

// Splits a result line at runs of spaces: the columns a reader (or an eye) sees.
std::vector<std::string> columns(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t start = text.find_first_not_of(' ', i);
    if (start == std::string::npos) break;
    std::size_t end = text.find("  ", start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    i = end;
  }
  return out;
}

TEST_CASE("a failed line prints dashes for the rate and percentages, and the cause after FAIL", "[host][report]") {
  // The untouched 0.01 stub once printed "236299 GB/s 7049% HBM peak 7916% of memcpy FAIL".
  wb::ResultLine line = sample_line();
  line.rate = 236299;
  line.peak_pct = 7049;
  line.ref_value = 7916;
  line.cache_resident = true;
  line.pass = false;
  line.failure = "global_index: output untouched";
  const std::string text = wb::format_result_line(line);
  INFO(text);
  CHECK_FALSE(contains(text, "GB/s"));
  CHECK_FALSE(contains(text, "peak"));
  CHECK_FALSE(contains(text, "memcpy"));
  CHECK_FALSE(contains(text, "cache-resident"));
  CHECK(contains(text, "0.273 ms ±0.4%"));  // the time was measured; it is the rates that mean nothing
  const std::string tail = "FAIL global_index: output untouched";
  CHECK(text.substr(text.size() - tail.size()) == tail);
  // The same columns as a passing line: dashes hold the places of rate, peak and reference.
  const std::vector<std::string> failed = columns(text), passed = columns(wb::format_result_line(sample_line()));
  REQUIRE(failed.size() == passed.size());
  CHECK(failed[4] == "-");
  CHECK(failed[5] == "-");
  CHECK(failed[6] == "-");

  line.failure.clear();  // a lesson that gives no cause still says FAIL
  CHECK(wb::format_result_line(line).substr(wb::format_result_line(line).size() - 4) == "FAIL");
}

TEST_CASE("a failed CSV row keeps the header's columns, with dashes for the numbers that mean nothing",
          "[host][report]") {
  wb::ResultLine line = sample_line();
  line.pass = false;
  line.failure = "output untouched";
  wb::ResultRow result = wb::result_row(line);
  result.device = "NVIDIA H100 80GB HBM3";
  result.date = "2026-11-26";
  result.variant = "learner";
  const std::string row = wb::format_result_csv(result);
  INFO(row);
  CHECK(wb::split_csv_fields(row).size() == wb::result_columns().size());
  CHECK(row ==
        "NVIDIA H100 80GB HBM3,2026-11-26,1,0.02,learner,vector_add_float4,n=64M,-,0.273400,0.270000,0.43,-,-,-,GB/s,"
        "-,DRAM peak,memcpy,-,percent,0,FAIL,-,output untouched");
}

TEST_CASE("a peak the tables lack is said to be unknown, never printed as 0%", "[host][report]") {
  wb::ResultLine line = sample_line();
  line.unit = wb::RateUnit::GFLOPs;
  line.rate = 500000;
  line.peak_label = "BF16 peak";
  wb::set_peak(line, 1000000);
  CHECK(line.peak_known);
  CHECK(line.peak_pct == 50.0);
  CHECK(contains(wb::format_result_line(line), "50% BF16 peak"));

  wb::set_peak(line, 0);  // bf16_peak_gflops of an architecture device.h does not know
  CHECK_FALSE(line.peak_known);
  const std::string text = wb::format_result_line(line);
  INFO(text);
  CHECK(contains(text, "BF16 peak unknown"));
  CHECK_FALSE(contains(text, "0% BF16"));
  CHECK(contains(text, "500 TFLOP/s"));  // the rate and the yardstick still print
  CHECK(contains(text, "99% of memcpy"));
  CHECK(columns(text).size() == columns(wb::format_result_line(sample_line())).size());
  const std::string row = wb::format_result_csv(wb::result_row(line));
  INFO(row);
  CHECK(contains(row, ",500000.000,GFLOP/s,-,BF16 peak,memcpy,98.6000,"));  // peak_pct "-": a missing number
  CHECK(contains(row, ",PASS,"));
}

TEST_CASE("a memory-bound line on a GPU whose DRAM peak reads 0 says the peak is unknown", "[host][report]") {
  wb::DeviceInfo device;
  device.name = "no memory clock";
  device.l2_bytes = std::size_t(50) << 20;
  wb::Lesson lesson("0.02", "vector_add", "solution", wb::LessonOptions{}, device);
  wb::TimingStats time;
  time.median_ms = 0.4;
  const double bytes = 4.0 * double(std::size_t(1) << 28);
  const wb::ResultLine line =
      lesson.memory_bound_line("vector_add", "n=256M", time, bytes, true, wb::MeasuredReference{"memcpy", 3000.0});
  CHECK_FALSE(line.peak_known);
  CHECK(contains(wb::format_result_line(line), "peak unknown"));
  CHECK(line.bytes == bytes);  // the CSV row's bytes column
  CHECK(wb::result_row(line).bytes == bytes);
}

TEST_CASE("failure_headline keeps the words before a verifier's first colon", "[host][report]") {
  CHECK(wb::failure_headline("Output untouched: the sum of n = 5 elements still holds the poison value.") ==
        "output untouched");
  CHECK(wb::failure_headline("Wrong sum: the sum of n = 5 elements (expected 1, got 2)") == "wrong sum");
  CHECK(wb::failure_headline("no colon here\nsecond line") == "no colon here");
  CHECK(wb::failure_headline("").empty());
}

TEST_CASE("a rate above the measured memcpy bandwidth is labelled cache-resident", "[host][report]") {
  wb::ResultLine line = sample_line();
  line.cache_resident = true;
  CHECK(contains(wb::format_result_line(line), "cache-resident PASS"));
}

TEST_CASE("the CSV row has as many fields as its header, in the same order, and reads back", "[host][report]") {
  const std::string header = wb::result_csv_header();
  wb::ResultRow result = wb::result_row(sample_line());
  result.device = "NVIDIA H100 80GB HBM3, PCIe";  // a comma: the field is quoted
  result.variant = "solution";
  const std::string row = wb::format_result_csv(result);
  INFO(row);
  CHECK(wb::split_csv_fields(header).size() == wb::split_csv_fields(row).size());
  CHECK(header.rfind("device,date,gpus,id,variant,launcher,shape,", 0) == 0);
  CHECK(row.rfind("\"NVIDIA H100 80GB HBM3, PCIe\",,1,0.02,solution,vector_add_float4,n=64M,-,0.273400,", 0) == 0);
  std::string error;
  const std::vector<wb::ResultRow> back =
      wb::parse_result_csv("a message\n" + header + "\n" + row + "\nanother message\n", &error);
  CHECK(error.empty());
  REQUIRE(back.size() == 1);
  CHECK(back[0].device == result.device);
  CHECK(back[0].launcher == "vector_add_float4");
  CHECK(std::fabs(back[0].rate - result.rate) < 1e-3);
  CHECK(std::fabs(back[0].ref_value - result.ref_value) < 1e-3);
  CHECK(back[0].peak_known);
  CHECK(back[0].passed());
  CHECK(back[0].phase() == 0);
  CHECK(wb::parse_result_csv("id,name\n1,2\n", &error).empty());
  CHECK_FALSE(error.empty());
}

TEST_CASE("the gpus column counts the largest GPU group a harness noted, 1 by default", "[host][report]") {
  CHECK(wb::gpus_used() == 1);
  wb::note_gpus_used(4);
  wb::note_gpus_used(2);  // a one-GPU yardstick made after the group does not shrink the count
  CHECK(wb::gpus_used() == 4);
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

TEST_CASE("a lesson's line against a library measured in the run carries that library's column from the start",
          "[host][report]") {
  // An H100-like device: no GPU is touched, since a working set beyond twice the L2 needs no copy
  // measurement for the cache-resident label.
  wb::DeviceInfo device;
  device.name = "H100-like";
  device.mem_clock_khz = 2619000;
  device.bus_width_bits = 5120;
  device.l2_bytes = std::size_t(50) << 20;
  wb::Lesson lesson("3.08", "shuffle", "solution", wb::LessonOptions{}, device);
  wb::TimingStats time;
  time.median_ms = 0.4;
  const double bytes = 4.0 * double(std::size_t(1) << 28);  // 1 GiB read
  const wb::ResultLine line =
      lesson.memory_bound_line("reduce_shuffle", "n=256M", time, bytes, true, wb::MeasuredReference{"CUB", 3000.0});
  CHECK(line.ref_label == "CUB");
  CHECK(std::fabs(line.ref_value - 100.0 * wb::gb_per_s(bytes, 0.4) / 3000.0) < 1e-9);
  CHECK_FALSE(line.cache_resident);
  CHECK(line.peak_label == "HBM peak");
  CHECK(contains(wb::format_result_line(line), "% of CUB"));
}
