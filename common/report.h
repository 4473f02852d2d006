// SPDX-License-Identifier: MIT
// The one result line every lesson prints (its CSV twin, for tools, is a row of common/result_csv.h):
//   0.02 vector_add        n=64M        0.272 ms ±0.4%   2960 GB/s   88% DRAM peak   99% of memcpy  PASS
//   0.02 vector_add        n=64M        0.003 ms ±0.4%   -           -               -              FAIL output
//   untouched
// A failed line prints no rate and no percentages (a kernel that wrote nothing "runs" at any speed),
// a dash in each of those columns instead, and the cause in words after FAIL.
#pragma once

#include <cstddef>
#include <string>

#include "common/result_csv.h"
#include "common/timer.h"

namespace wb {

enum class RateUnit { GBps, GFLOPs };
enum class RefStyle { Percent, Speedup };  // "95% of memcpy" or "1.92x serial"

struct ResultLine {
  std::string id;       // "0.02"
  std::string name;     // the launcher: "vector_add_float4"
  std::string problem;  // "n=64M", "4096x4096"
  TimingStats time;
  double rate = 0;  // in GB/s or GFLOP/s
  RateUnit unit = RateUnit::GBps;
  double peak_pct = 0;
  std::string peak_label = "DRAM peak";
  // false: this GPU has no peak the tables know (a new architecture): the line says "<peak_label>
  // unknown" where the percentage goes, and the CSV row has "-" for it, never a silent 0% (set_peak).
  bool peak_known = true;
  double ref_value = 0;  // percent, or a speedup factor
  std::string ref_label = "memcpy";
  RefStyle ref_style = RefStyle::Percent;
  bool cache_resident = false;  // rate above the measured memcpy bandwidth: not a DRAM figure
  bool pass = false;
  std::string failure;  // FAIL only: the cause in a few words ("global_index: output untouched")
  // The CSV row's bytes, flop and dtype columns (not on the printed line); 0 or empty: not counted or
  // not said. memory_bound_line fills bytes.
  double bytes = 0, flop = 0;
  std::string dtype;  // "fp32", "bf16", "int32"
};

// Sets peak_pct to the line's rate as a percentage of `peak` (in the rate's unit), or, for a peak of
// 0 (unknown: device.h's tables lack the architecture, or an attribute read 0), peak_known to false.
void set_peak(ResultLine& line, double peak);

std::string format_result_line(const ResultLine& line);
// The line as a row of the result CSV (device, date, gpus and variant left for the caller); a FAIL
// row keeps its status exactly "FAIL" and its cause in the note, and writes "-" for the rate and the
// two percentages; a row whose peak is unknown has "-" for peak_pct alone.
ResultRow result_row(const ResultLine& line);

// The headline of a verifier's message: the words before its first colon, lower-cased first letter
// ("Output untouched: the sum of ..." -> "output untouched"); the whole first line when it has none.
std::string failure_headline(const std::string& message);

// 67108864 -> "64M", 1000 -> "1000", 1536 -> "1.5K": binary suffixes, as lessons take them.
std::string format_count(std::size_t n);

// GB/s from bytes moved and milliseconds; GFLOP/s likewise.
inline double gb_per_s(double bytes, double ms) {
  return ms > 0 ? bytes / (ms * 1e6) : 0.0;
}
inline double gflop_per_s(double flop, double ms) {
  return ms > 0 ? flop / (ms * 1e6) : 0.0;
}

}  // namespace wb
