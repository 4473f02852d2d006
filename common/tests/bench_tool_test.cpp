// SPDX-License-Identifier: MIT
// The shared command line of the phase benchmarks: defaults, --repeat and --out, the tool's own
// options through its callback, and the exit codes of --help (0) and bad input (2). None of these
// reach the GPU probe, so they run anywhere.
#include "common/bench_tool.h"

#include <string>
#include <vector>

#include "common/gpu.h"
#include "common/testing.h"

namespace {

const wb::BenchToolSpec kSpec = {
    "p9_bench", "usage: p9_bench [--sizes 1,2] [--repeat N] [--out p9_bench.csv]\n", {"--sizes"}, 7, "p9_bench.csv"};

// Collects what the callback saw; refuses the value "bad".
struct ToolOptions {
  std::vector<std::string> seen;
  wb::BenchOptionFn callback() {
    return [this](const std::string& name, const std::string& value) -> std::string {
      seen.push_back(name + "=" + value);
      return value == "bad" ? "--sizes needs sizes like 1,2, got 'bad'" : "";
    };
  }
};

wb::BenchParseResult parse(const std::vector<std::string>& words, ToolOptions* tool = nullptr) {
  std::vector<const char*> argv = {"p9_bench"};
  for (const std::string& w : words) argv.push_back(w.c_str());
  ToolOptions unused;
  return wb::parse_bench_args(kSpec, static_cast<int>(argv.size()), argv.data(),
                              (tool != nullptr ? tool : &unused)->callback());
}

// run_bench_tool as a tool's main() calls it; `body_ran` tells whether parsing let it through.
int run(const std::vector<std::string>& words, bool* body_ran) {
  std::vector<std::string> storage = {"p9_bench"};
  storage.insert(storage.end(), words.begin(), words.end());
  std::vector<char*> argv;
  for (std::string& w : storage) argv.push_back(&w[0]);
  ToolOptions tool;
  *body_ran = false;
  return wb::run_bench_tool(kSpec, static_cast<int>(argv.size()), argv.data(), tool.callback(),
                            [body_ran](const wb::BenchToolArgs&) {
                              *body_ran = true;
                              return wb::kExitPass;
                            });
}

}  // namespace

TEST_CASE("bench tool: no arguments keeps the tool's defaults", "[host][bench_tool]") {
  ToolOptions tool;
  const wb::BenchParseResult r = parse({}, &tool);
  REQUIRE(r.status == wb::ParseStatus::Ok);
  CHECK(r.args.repeat == 7);
  CHECK(r.args.out == "p9_bench.csv");
  CHECK(tool.seen.empty());
}

TEST_CASE("bench tool: --repeat and --out replace the defaults; tool options reach the callback in order",
          "[host][bench_tool]") {
  ToolOptions tool;
  const wb::BenchParseResult r =
      parse({"--sizes", "1,2", "--repeat", "1000", "--out", "x.csv", "--sizes", "4K"}, &tool);
  REQUIRE(r.status == wb::ParseStatus::Ok);
  CHECK(r.args.repeat == 1000);
  CHECK(r.args.out == "x.csv");
  CHECK(tool.seen == std::vector<std::string>{"--sizes=1,2", "--sizes=4K"});
  CHECK(parse({"--repeat", "1"}).args.repeat == 1);
}

TEST_CASE("bench tool: --help and -h ask for the usage, wherever they stand", "[host][bench_tool]") {
  CHECK(parse({"--help"}).status == wb::ParseStatus::Help);
  CHECK(parse({"--repeat", "3", "-h"}).status == wb::ParseStatus::Help);
}

TEST_CASE("bench tool: bad arguments are errors that name the problem", "[host][bench_tool]") {
  struct Case {
    std::vector<std::string> words;
    const char* reason;
  };
  const std::vector<Case> cases = {
      {{"--bogus", "1"}, "unknown option '--bogus'"},
      {{"--bogus"}, "unknown option '--bogus'"},
      {{"extra"}, "unknown option 'extra'"},
      {{"--repeat"}, "--repeat needs a value"},
      {{"--out"}, "--out needs a value"},
      {{"--sizes"}, "--sizes needs a value"},
      {{"--repeat", "0"}, "--repeat needs 1 to 1000"},
      {{"--repeat", "1001"}, "--repeat needs 1 to 1000"},
      {{"--repeat", "-3"}, "--repeat needs 1 to 1000"},
      {{"--repeat", "ten"}, "--repeat needs 1 to 1000"},
      {{"--sizes", "bad"}, "--sizes needs sizes like 1,2, got 'bad'"},
  };
  for (const Case& c : cases) {
    const wb::BenchParseResult r = parse(c.words);
    INFO("arguments: " << c.words[0] << (c.words.size() > 1 ? " " + c.words[1] : std::string()));
    CHECK(r.status == wb::ParseStatus::Error);
    CHECK(r.error == c.reason);
  }
}

TEST_CASE("bench tool: a tool without options of its own refuses every other name", "[host][bench_tool]") {
  const wb::BenchToolSpec bare = {"p9_bare", "usage: p9_bare\n", {}, 10, "p9_bare.csv"};
  const char* argv[] = {"p9_bare", "--sizes", "1"};
  const wb::BenchParseResult r = wb::parse_bench_args(bare, 3, argv, nullptr);
  CHECK(r.status == wb::ParseStatus::Error);
  CHECK(r.error == "unknown option '--sizes'");
}

TEST_CASE("bench tool: run_bench_tool exits 0 on --help and 2 on bad input, without running the body",
          "[host][bench_tool]") {
  bool body_ran = true;
  CHECK(run({"--help"}, &body_ran) == wb::kExitPass);
  CHECK_FALSE(body_ran);
  CHECK(run({"-h"}, &body_ran) == wb::kExitPass);
  CHECK_FALSE(body_ran);
  for (const std::vector<std::string>& words : std::vector<std::vector<std::string>>{
           {"--repeat", "0"}, {"--repeat", "1001"}, {"--bogus", "1"}, {"--out"}, {"--sizes", "bad"}}) {
    INFO("arguments: " << words[0]);
    CHECK(run(words, &body_ran) == wb::kExitUsage);
    CHECK_FALSE(body_ran);
  }
}

TEST_CASE("bench tool: the table: an unwritable path is a usage error, the date is YYYY-MM-DD", "[host][bench_tool]") {
  CHECK_THROWS_AS(wb::BenchTable::check_writable("/nonexistent-directory/p9_bench.csv"), wb::UsageError);
  wb::BenchTable table("NVIDIA H100 80GB HBM3");
  wb::ResultRow failed;
  failed.status = "FAIL";
  CHECK(table.all_pass());
  table.add(wb::ResultRow{});
  CHECK(table.all_pass());
  CHECK(table.add(failed).device == "NVIDIA H100 80GB HBM3");
  CHECK_FALSE(table.all_pass());
  CHECK_THROWS_AS(table.write("/nonexistent-directory/p9_bench.csv"), wb::UsageError);
  const std::string date = wb::utc_date();
  REQUIRE(date.size() == 10);
  CHECK(date[4] == '-');
  CHECK(date[7] == '-');
}
