// SPDX-License-Identifier: MIT
// The command line every phase benchmark (p1_ladder, p2_bench, p3_bench, p4_bench) shares, so each
// tool keeps only its own options and its measurements:
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

// Opens `path` for the tool's CSV; UsageError ("cannot write '<path>'") when it cannot.
std::FILE* open_bench_csv(const std::string& path);
// Today's date in UTC as YYYY-MM-DD, the date column of every benchmark CSV.
std::string utc_date();

}  // namespace wb
