// SPDX-License-Identifier: MIT
#include "tools/workbook/lesson_csv.h"

#include <cmath>
#include <cstdio>
#include <optional>

#include "tools/workbook/text.h"

namespace wbcli {

std::string format_number(double value) {
  char text[32];
  const double magnitude = std::fabs(value);
  if (magnitude >= 100 || magnitude == 0)
    std::snprintf(text, sizeof text, "%.0f", value);
  else if (magnitude >= 10)
    std::snprintf(text, sizeof text, "%.1f", value);
  else if (magnitude >= 1)
    std::snprintf(text, sizeof text, "%.2f", value);
  else
    std::snprintf(text, sizeof text, "%.3g", value);
  // 86.0 -> 86, 2.50 -> 2.5: trailing zeros carry no information here.
  std::string result = text;
  if (result.find('.') != std::string::npos && result.find('e') == std::string::npos) {
    while (result.back() == '0') result.pop_back();
    if (result.back() == '.') result.pop_back();
  }
  return result;
}

double LessonRow::score() const {
  return ref_style == "percent" ? ref_value : peak_pct;
}

bool LessonRow::has_score() const {
  return ref_style == "percent" || peak_known;
}

std::string LessonRow::score_label() const {
  return ref_style == "percent" ? "% of " + ref_label : "% " + peak_label;
}

std::string LessonRow::summary() const {
  std::string text = name + " " + format_number(rate) + " " + rate_unit + ", " +
                     (peak_known ? format_number(peak_pct) + "% " + peak_label : peak_label + " unknown");
  if (ref_style == "percent")
    text += ", " + format_number(ref_value) + "% of " + ref_label;
  else if (ref_style == "speedup")
    text += ", " + format_number(ref_value) + "x " + ref_label;
  return text;
}

std::vector<LessonRow> parse_lesson_csv(const std::string& text) {
  std::vector<LessonRow> rows;
  bool in_table = false;
  for (const std::string& line : split_lines(text)) {
    if (starts_with(line, "id,name,problem,")) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    const std::vector<std::string> f = split(line, ',');
    if (f.size() < 16) continue;  // a message between rows
    LessonRow row;
    row.id = f[0];
    row.name = f[1];
    row.problem = f[2];
    row.median_ms = parse_number(f[3]).value_or(0);
    row.rate = parse_number(f[6]).value_or(0);
    row.rate_unit = f[7];
    const std::optional<double> peak_pct = parse_number(f[8]);
    row.peak_pct = peak_pct.value_or(0);
    row.peak_known = peak_pct.has_value();
    row.peak_label = f[9];
    row.ref_value = parse_number(f[10]).value_or(0);
    row.ref_style = f[11];
    row.ref_label = f[12];
    row.cache_resident = f[13] == "1";
    row.pass = f[14] == "PASS";
    // The device name may itself hold commas.
    std::vector<std::string> device(f.begin() + 15, f.end());
    row.device = join(device, ",");
    rows.push_back(row);
  }
  return rows;
}

std::vector<BenchRow> parse_bench_csv(const std::string& text, std::string* error) {
  std::vector<BenchRow> rows;
  const std::vector<std::string> lines = split_lines(text);
  if (lines.empty()) {
    *error = "the benchmark CSV is empty";
    return rows;
  }
  const std::vector<std::string> header = split(lines[0], ',');
  int id = -1, launcher = -1, size = -1, library = -1, peak = -1, status = -1;
  std::string library_name;
  for (int i = 0; i < static_cast<int>(header.size()); ++i) {
    const std::string& h = header[static_cast<std::size_t>(i)];
    if (h == "id") id = i;
    if (h == "launcher" || h == "kernel") launcher = i;
    if (h == "size" || h == "shape") size = i;
    if (h == "pct_of_peak" || h == "peak_pct") peak = i;
    if (h == "status") status = i;
    if (starts_with(h, "pct_of_") && h != "pct_of_peak") {
      library = i;
      library_name = h.substr(7);
    }
  }
  if (launcher < 0 || library < 0) {
    *error = "the benchmark CSV has no launcher/kernel column or no pct_of_<library> column";
    return rows;
  }
  for (std::size_t n = 1; n < lines.size(); ++n) {
    const std::vector<std::string> f = split(lines[n], ',');
    if (f.size() != header.size()) continue;
    BenchRow row;
    auto at = [&f](int i) { return i < 0 ? std::string() : f[static_cast<std::size_t>(i)]; };
    row.id = at(id);
    row.launcher = at(launcher);
    row.size = at(size);
    row.pct_of_library = parse_number(at(library)).value_or(0);
    row.library = library_name;
    row.pct_of_peak = parse_number(at(peak)).value_or(0);
    row.status = at(status);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace wbcli
