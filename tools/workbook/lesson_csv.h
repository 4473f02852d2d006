// SPDX-License-Identifier: MIT
// Reading measured speeds: a lesson's `--csv` rows (common/report.h csv_header) and the CSV files
// the phase benchmarks write (p1_ladder, p2_bench), whose columns are found by name.
#pragma once

#include <string>
#include <vector>

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

// Rows under the `id,name,problem,...` header; other lines (messages) are skipped.
std::vector<LessonRow> parse_lesson_csv(const std::string& text);

// A benchmark CSV reduced to what the plot needs.
struct BenchRow {
  std::string id;        // exercise id, "-" or empty for the library row
  std::string launcher;  // launcher or kernel name
  std::string size;      // size or shape column as written
  double pct_of_library = 0;
  std::string library;  // from the pct_of_<library> column name: "cublas", "memcpy"
  double pct_of_peak = 0;
  // As the benchmark wrote it: PASS, FAIL, SKIP (a kernel that cannot run on this input or GPU, with
  // no time) or REF (a library row); empty when the CSV has no status column.
  std::string status;
  // Nothing failed: PASS, REF or no status (a SKIP row neither passed nor failed).
  bool passed() const { return status.empty() || status == "PASS" || status == "REF"; }
};
std::vector<BenchRow> parse_bench_csv(const std::string& text, std::string* error);

std::string format_number(double value);  // 3 significant digits, no exponent: 2900, 97.4, 0.272

}  // namespace wbcli
