// SPDX-License-Identifier: MIT
// The command line every phase benchmark (p1_ladder, p2_bench ... p6_bench) shares, so each tool keeps
// only its own options and its measurements, and the table of rows each writes (common/result_csv.h):
//   <tool> [tool options] [--repeat N] [--out FILE]
// --help/-h prints the usage (exit 0); bad input prints "<tool>: <why>" and the usage to stderr
// (exit 2); no usable GPU prints the probe's reason (exit 77, or 1 when the binary has no code for
// it); an exception from the measurements prints "<tool>: error: <what>" (exit 1): wb::run_on_gpu,
// the same tail as the lessons' main.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common/args.h"
#include "common/device.h"
#include "common/result_csv.h"
#include "common/timer.h"

namespace wb {

struct BenchToolSpec {
  std::string name;                       // "p2_bench": starts every message
  std::string usage;                      // the whole usage text, ending in a newline
  std::vector<std::string> tool_options;  // the tool's own "--name value" options, e.g. {"--sizes"}
  int default_repeat = 10;
  std::string default_out;  // the CSV written when --out is not given, e.g. "p2_bench.csv"
};

// The shared options, after parsing.
struct BenchToolArgs {
  int repeat = 10;  // 1 to 1000
  std::string out;  // the CSV path
};

// Takes one of spec.tool_options with its value; returns "" when it accepts the value, else the reason
// it refuses it (one line, e.g. "--rows needs 1 to 64M"). Called in command-line order.
using BenchOptionFn = std::function<std::string(const std::string& name, const std::string& value)>;
// The measurements: returns the exit code (kExitPass or kExitFail). May throw UsageError (exit 2).
using BenchBodyFn = std::function<int(const BenchToolArgs& args)>;

struct BenchParseResult {
  ParseStatus status = ParseStatus::Ok;
  std::string error;  // for ParseStatus::Error: what was wrong, in one line
  BenchToolArgs args;
};

// Parses argv without printing anything (run_bench_tool prints); tool options go to `on_tool_option`,
// which may be empty when spec.tool_options is.
BenchParseResult parse_bench_args(const BenchToolSpec& spec, int argc, const char* const* argv,
                                  const BenchOptionFn& on_tool_option);

// The whole main() of a benchmark: parse, answer --help or bad input, probe the GPU, then run `body`
// and turn its exceptions into exit codes.
int run_bench_tool(const BenchToolSpec& spec, int argc, char** argv, const BenchOptionFn& on_tool_option,
                   const BenchBodyFn& body);

// A benchmark's row: who ran (variant: "solution" for the reference kernels, "library"), what, on what,
// with the times of `time` (the row counts as timed when `time` holds samples).
ResultRow bench_row(const std::string& variant, const std::string& launcher, const std::string& shape,
                    const std::string& dtype, const TimingStats& time);
// The row's times from `time`.
void set_times(ResultRow& row, const TimingStats& time);
// "HBM peak" or "DRAM peak", as the lessons' result lines say it.
std::string memory_peak_label(const DeviceInfo& device);

// What a benchmark measured: rows of the result CSV, each stamped with the table's device and date
// (the GPU count is the row's own: 1 unless it says otherwise).
class BenchTable {
 public:
  explicit BenchTable(std::string device);
  // Refuses (UsageError "cannot write '<path>'") a --out that cannot be written, before anything is
  // measured.
  static void check_writable(const std::string& path);
  ResultRow& add(ResultRow row);
  const std::vector<ResultRow>& rows() const { return rows_; }
  bool all_pass() const;  // no FAIL row (a SKIP neither passes nor fails)
  // Writes the CSV to `path` and says so on stdout; UsageError when it cannot.
  void write(const std::string& path) const;

 private:
  std::string device_, date_;
  std::vector<ResultRow> rows_;
};

}  // namespace wb
