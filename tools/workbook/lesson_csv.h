// SPDX-License-Identifier: MIT
// Reading measured speeds: a lesson's `--csv` rows and the CSV files the phase benchmarks write, both
// in the one schema of common/result_csv.h, whose columns are found by name.
#pragma once

#include <string>
#include <vector>

#include "common/result_csv.h"

namespace wbcli {

struct LessonRow {
  std::string id, name, problem;
  double median_ms = 0, rate = 0, peak_pct = 0, ref_value = 0;
  std::string rate_unit, peak_label, ref_style, ref_label, device;
  bool cache_resident = false, pass = false;
  // false when the row's peak_pct is "-": the lesson knew no peak for this GPU (a new architecture), or
  // the row failed.
  bool peak_known = true;

  // What plots and "best speed" compare: % of the same-run library reference when the lesson
  // reports one as a percentage, else % of the peak.
  double score() const;
  bool has_score() const;           // false: the score would be the % of a peak nobody knows
  std::string score_label() const;  // "% of memcpy", "% of cuBLAS", "% HBM peak"
  std::string summary() const;      // "vector_add_float4 2900 GB/s, 86% HBM peak, 97% of memcpy"
};

// A result row as the lesson printed it.
LessonRow lesson_row(const wb::ResultRow& row);
// Rows under the result header (device,date,gpus,...); other lines (messages) are skipped.
std::vector<LessonRow> parse_lesson_csv(const std::string& text);

std::string format_number(double value);  // 3 significant digits, no exponent: 2900, 97.4, 0.272

}  // namespace wbcli
