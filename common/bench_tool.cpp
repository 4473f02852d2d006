// SPDX-License-Identifier: MIT
#include "common/bench_tool.h"

#include <algorithm>
#include <utility>

#include "common/gpu.h"

namespace wb {
namespace {

int usage_error(const BenchToolSpec& spec, const std::string& why) {
  std::fprintf(stderr, "%s: %s\n%s", spec.name.c_str(), why.c_str(), spec.usage.c_str());
  return kExitUsage;
}

}  // namespace

BenchParseResult parse_bench_args(const BenchToolSpec& spec, int argc, const char* const* argv,
                                  const BenchOptionFn& on_tool_option) {
  BenchParseResult result;
  result.args.repeat = spec.default_repeat;
  result.args.out = spec.default_out;
  auto fail = [&result](const std::string& why) {
    result.status = ParseStatus::Error;
    result.error = why;
    return result;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      result.status = ParseStatus::Help;
      return result;
    }
    const bool is_tool_option =
        std::find(spec.tool_options.begin(), spec.tool_options.end(), arg) != spec.tool_options.end();
    // Every option takes a value, so a name we do not know is refused before its value is looked at.
    if (arg != "--repeat" && arg != "--out" && !is_tool_option) return fail("unknown option '" + arg + "'");
    if (i + 1 >= argc) return fail(arg + " needs a value");
    const std::string value = argv[++i];
    if (arg == "--repeat") {
      std::size_t n = 0;
      if (!parse_count(value, &n, false) || n > 1000) return fail("--repeat needs 1 to 1000");
      result.args.repeat = static_cast<int>(n);
    } else if (arg == "--out") {
      result.args.out = value;
    } else {
      const std::string refusal = on_tool_option ? on_tool_option(arg, value) : "unknown option '" + arg + "'";
      if (!refusal.empty()) return fail(refusal);
    }
  }
  return result;
}

int run_bench_tool(const BenchToolSpec& spec, int argc, char** argv, const BenchOptionFn& on_tool_option,
                   const BenchBodyFn& body) {
  const BenchParseResult parsed = parse_bench_args(spec, argc, argv, on_tool_option);
  if (parsed.status == ParseStatus::Help) {
    std::printf("%s", spec.usage.c_str());
    return kExitPass;
  }
  if (parsed.status == ParseStatus::Error) return usage_error(spec, parsed.error);
  return run_on_gpu(spec.name, spec.usage, [&] { return body(parsed.args); });
}

std::string memory_kind_label(const DeviceInfo& device);  // common/lesson.cpp

ResultRow bench_row(const std::string& variant, const std::string& launcher, const std::string& shape,
                    const std::string& dtype, const TimingStats& time) {
  ResultRow row;
  row.variant = variant;
  row.launcher = launcher;
  row.shape = shape;
  row.dtype = dtype;
  set_times(row, time);
  return row;
}

void set_times(ResultRow& row, const TimingStats& time) {
  row.timed = time.samples > 0;
  row.median_ms = time.median_ms;
  row.min_ms = time.min_ms;
  row.spread_pct = time.spread_pct;
}

std::string memory_peak_label(const DeviceInfo& device) {
  return memory_kind_label(device) + " peak";
}

BenchTable::BenchTable(std::string device) : device_(std::move(device)), date_(utc_date()) {}

void BenchTable::check_writable(const std::string& path) {
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (file == nullptr) throw UsageError("cannot write '" + path + "'");
  std::fclose(file);
}

ResultRow& BenchTable::add(ResultRow row) {
  row.device = device_;
  row.date = date_;
  rows_.push_back(std::move(row));
  return rows_.back();
}

bool BenchTable::all_pass() const {
  for (const ResultRow& row : rows_)
    if (row.status == "FAIL") return false;
  return true;
}

void BenchTable::write(const std::string& path) const {
  if (!write_result_csv(path, rows_)) throw UsageError("cannot write '" + path + "'");
  std::printf("CSV written to %s\n", path.c_str());
}

}  // namespace wb
