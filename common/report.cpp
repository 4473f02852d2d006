// SPDX-License-Identifier: MIT
#include "common/report.h"

#include <cstdio>

namespace wb {
namespace {

std::string format_significant(double v) {
  char text[32];
  if (v >= 100) {
    std::snprintf(text, sizeof text, "%.0f", v);
  } else {
    std::snprintf(text, sizeof text, "%.3g", v);
  }
  return text;
}

// Whole percents, with one decimal below 10% so small ratios (a naive kernel at 0.9%) keep meaning.
std::string format_percent(double pct) {
  char text[32];
  std::snprintf(text, sizeof text, pct < 9.95 ? "%.1f" : "%.0f", pct);
  return text;
}

std::string format_rate(double rate, RateUnit unit) {
  if (unit == RateUnit::GBps) return format_significant(rate) + " GB/s";
  if (rate >= 1000) return format_significant(rate / 1000) + " TFLOP/s";
  return format_significant(rate) + " GFLOP/s";
}

std::string format_ref(const ResultLine& line) {
  char text[64];
  if (line.ref_style == RefStyle::Speedup) {
    std::snprintf(text, sizeof text, "%.2fx %s", line.ref_value, line.ref_label.c_str());
  } else {
    std::snprintf(text, sizeof text, "%s%% of %s", format_percent(line.ref_value).c_str(), line.ref_label.c_str());
  }
  return text;
}

}  // namespace

std::string format_count(std::size_t n) {
  static const char* const suffixes[] = {"K", "M", "G", "T"};
  if (n < 1024) return std::to_string(n);
  double value = static_cast<double>(n);
  int s = -1;
  while (value >= 1024 && s < 3) {
    value /= 1024;
    ++s;
  }
  char text[32];
  if (value == static_cast<double>(static_cast<long long>(value))) {
    std::snprintf(text, sizeof text, "%lld%s", static_cast<long long>(value), suffixes[s]);
  } else if (n % 1000 == 0 && n < 1000000) {
    return std::to_string(n);
  } else {
    std::snprintf(text, sizeof text, "%.3g%s", value, suffixes[s]);
  }
  return text;
}

void set_peak(ResultLine& line, double peak) {
  line.peak_known = peak > 0;
  line.peak_pct = line.peak_known ? 100.0 * line.rate / peak : 0.0;
}

std::string format_result_line(const ResultLine& line) {
  // A wrong answer has no speed worth printing: the rate and both percentages become dashes, in
  // the same columns, and the status says why.
  const char* const missing = "-";
  char time[48], peak[48];
  std::snprintf(time, sizeof time, "%s ms ±%.1f%%", format_significant(line.time.median_ms).c_str(),
                line.time.spread_pct);
  if (line.peak_known)
    std::snprintf(peak, sizeof peak, "%s%% %s", format_percent(line.peak_pct).c_str(), line.peak_label.c_str());
  else
    std::snprintf(peak, sizeof peak, "%s unknown", line.peak_label.c_str());
  const std::string rate = line.pass ? format_rate(line.rate, line.unit) : missing;
  const std::string ref = line.pass ? format_ref(line) : missing;
  std::string status = "PASS";
  if (!line.pass) status = line.failure.empty() ? "FAIL" : "FAIL " + line.failure;
  char text[600];
  std::snprintf(text, sizeof text, "%-5s %-26s %-20s %-16s %-14s %-18s %-16s %s%s", line.id.c_str(), line.name.c_str(),
                line.problem.c_str(), time, rate.c_str(), line.pass ? peak : missing, ref.c_str(),
                line.pass && line.cache_resident ? "cache-resident " : "", status.c_str());
  return text;
}

ResultRow result_row(const ResultLine& line) {
  ResultRow row;
  row.id = line.id;
  row.launcher = line.name;
  row.shape = line.problem;
  row.dtype = line.dtype;
  row.bytes = line.bytes;
  row.flop = line.flop;
  row.timed = line.time.samples > 0 || line.time.median_ms > 0;
  row.median_ms = line.time.median_ms;
  row.min_ms = line.time.min_ms;
  row.spread_pct = line.time.spread_pct;
  row.rate = line.rate;
  row.rate_unit = line.unit == RateUnit::GBps ? "GB/s" : "GFLOP/s";
  row.peak_known = line.peak_known;
  row.peak_pct = line.peak_pct;
  row.peak_label = line.peak_label;
  set_reference(row, line.ref_label, line.ref_value, line.ref_style == RefStyle::Percent ? "percent" : "speedup");
  row.cache_resident = line.cache_resident;
  row.status = line.pass ? "PASS" : "FAIL";
  if (!line.pass) row.note = line.failure;
  return row;
}

std::string failure_headline(const std::string& message) {
  std::string headline = message.substr(0, message.find('\n'));
  const std::size_t colon = headline.find(':');
  if (colon != std::string::npos) headline.resize(colon);
  if (!headline.empty() && headline[0] >= 'A' && headline[0] <= 'Z') headline[0] = char(headline[0] - 'A' + 'a');
  return headline;
}

}  // namespace wb
