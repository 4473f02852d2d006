// SPDX-License-Identifier: MIT
// The one CSV of measured results. Every writer uses it: a lesson's --csv, every phase benchmark
// (p1_ladder, p2_bench ... p6_bench), `workbook bench` and tools/peer_pytorch.py (which reads the column
// list below from this file). Every reader finds its columns by name. Plain C++17, no CUDA: the
// `workbook` tool links it too.
//
// A row is one measured launcher on one shape. A field with nothing to say holds "-" (a FAIL or SKIP
// row has no rate; a GPU the peak tables lack has no peak percentage); a field holding a comma or a
// quote is quoted as RFC 4180 (and Python's csv module) quote it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace wb {

// The columns, in order. tools/peer_pytorch.py parses the names between the two marker lines.
// clang-format off
inline const std::vector<std::string>& result_columns() {
  static const std::vector<std::string> columns = {
      // result-columns begin
      "device",          // the GPU's name as CUDA reports it ("NVIDIA H100 80GB HBM3")
      "date",            // UTC, YYYY-MM-DD
      "gpus",            // how many GPUs the measured work ran on
      "id",              // the exercise ("2.05"); several separated by spaces; "-" for none
      "variant",         // learner, solution, library (cuBLAS, CUB, cuSPARSE, NCCL, a copy), or a peer
                         // and its version ("pytorch 2.5.1")
      "launcher",        // the launcher, library call or peer op as printed ("rmsnorm_warp", "cublasSgemm")
      "shape",           // the problem as the result line writes it ("n=64M", "M=N=K=4096", "16384x4096")
      "dtype",           // fp32, tf32, bf16, int32, ...
      "median_ms",       // over the timed repeats
      "min_ms",
      "spread_pct",      // half the interquartile range, in % of the median
      "bytes",           // the minimum traffic the rate counts (every input read once, output written once)
      "flop",            // the arithmetic the rate counts
      "rate",            // in rate_unit, over the median
      "rate_unit",       // GB/s or GFLOP/s
      "peak_pct",        // the rate in % of peak_label
      "peak_label",      // "HBM peak", "FP32 peak", "BF16 peak", ...
      "ref_label",       // the yardstick measured in the same run ("memcpy", "cuBLAS", "CUB", "5.02")
      "ref_value",       // the rate in % of the yardstick's (percent) or its time over ours (speedup)
      "ref_style",       // percent or speedup
      "cache_resident",  // 1: faster than a copy with a working set that fits in L2 (not a DRAM figure)
      "status",          // PASS, FAIL or SKIP (nothing timed: the note says why)
      "beside",          // peer rows: the course's launchers the row stands beside, separated by spaces
      "note",            // free text: a FAIL's cause, a SKIP's reason, the configuration
      // result-columns end
  };
  return columns;
}
// clang-format on

struct ResultRow {
  std::string device, date;
  int gpus = 1;
  std::string id = "-", variant, launcher, shape, dtype;
  bool timed = false;  // false: no times or rates in the row (a SKIP, or a FAIL before timing)
  double median_ms = 0, min_ms = 0, spread_pct = 0;
  double bytes = 0, flop = 0;  // 0: not counted
  double rate = 0;
  std::string rate_unit;  // "GB/s" or "GFLOP/s"; empty: no rate
  bool peak_known = false;
  double peak_pct = 0;
  std::string peak_label;
  std::string ref_label;  // empty: no yardstick
  double ref_value = 0;
  std::string ref_style = "percent";
  bool cache_resident = false;
  std::string status = "PASS";
  std::string beside, note;

  bool passed() const { return status == "PASS"; }
  // The exercise's phase from the id ("2.05" -> 2, "0" -> 0); -1 for "-".
  int phase() const;
  // Its rate in `unit` from the counted work: GB/s from bytes, GFLOP/s from flop; 0 when not counted.
  double rate_in(const std::string& unit) const;
};

// Fills rate and rate_unit from the row's bytes ("GB/s") or flop ("GFLOP/s") over median_ms, and
// peak_pct from `peak` in that unit (0: unknown, peak_known false).
void set_rate(ResultRow& row, const std::string& unit, double peak, const std::string& peak_label);
// The yardstick: `value` in `style` ("percent": our rate in % of its; "speedup": its time over ours).
void set_reference(ResultRow& row, const std::string& label, double value, const std::string& style = "percent");

std::string result_csv_header();
std::string format_result_csv(const ResultRow& row);  // one line, no newline

// One CSV line split into fields: commas inside double quotes stay, "" is a quote.
std::vector<std::string> split_csv_fields(const std::string& line);

// The rows under every header line of the schema in `text` (a lesson's output may hold messages between
// rows; columns are found by name, so a reader survives added columns). *error (when given) says why
// no row was found: no header, or a header without a needed column.
std::vector<ResultRow> parse_result_csv(const std::string& text, std::string* error = nullptr);

// Writes the header and `rows` to `path`; false when the file cannot be written.
bool write_result_csv(const std::string& path, const std::vector<ResultRow>& rows);

// Today's date in UTC as YYYY-MM-DD, the date column.
std::string utc_date();

}  // namespace wb
