// SPDX-License-Identifier: MIT
#include "tools/workbook/lesson_csv.h"

#include <cmath>
#include <cstdio>

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

LessonRow lesson_row(const wb::ResultRow& r) {
  LessonRow row;
  row.id = r.id;
  row.name = r.launcher;
  row.problem = r.shape;
  row.median_ms = r.median_ms;
  row.rate = r.rate;
  row.peak_pct = r.peak_pct;
  row.peak_known = r.peak_known;
  row.ref_value = r.ref_value;
  row.rate_unit = r.rate_unit;
  row.peak_label = r.peak_label;
  row.ref_style = r.ref_label.empty() ? "" : r.ref_style;
  row.ref_label = r.ref_label;
  row.device = r.device;
  row.cache_resident = r.cache_resident;
  row.pass = r.passed();
  return row;
}

std::vector<LessonRow> parse_lesson_csv(const std::string& text) {
  std::vector<LessonRow> rows;
  for (const wb::ResultRow& r : wb::parse_result_csv(text)) rows.push_back(lesson_row(r));
  return rows;
}

}  // namespace wbcli
