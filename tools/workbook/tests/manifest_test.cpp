// SPDX-License-Identifier: MIT
// Reading the exercise registry (workbook_exercises.tsv): columns found by the header row's names.
#include "tools/workbook/manifest.h"

#include <algorithm>
#include <map>

#include "common/catch.h"

namespace {
using Row = std::map<std::string, std::string>;

// A registry row of exercise `id` `name` in phase1_matmul, every column filled; `changes` replace some.
Row row(const std::string& id, const std::string& name, const Row& changes = {}) {
  const std::string file = id.substr(2) + "_" + name;
  const std::string target = "p" + id.substr(0, 1) + "_" + file;
  Row r = {{"id", id},
           {"name", name},
           {"title", ""},
           {"stub", "phase1_matmul/" + file + ".cu"},
           {"solution", "solutions/phase1_matmul/" + file + ".cu"},
           {"learner_test", "/b/phase1_matmul/" + target + "_test"},
           {"learner_lesson", "/b/phase1_matmul/" + target},
           {"fails_with", "Output untouched"},
           {"smoke_args", "--size 256 --repeat 3"},
           {"phase", id.substr(0, 1)},
           {"target", target},
           {"solution_lesson", "/b/phase1_matmul/" + target + "_solution"},
           {"solution_test", "/b/phase1_matmul/" + target + "_solution_test"},
           {"hints", "phase1_matmul/hints/" + file + ".txt"},
           {"readme", "phase1_matmul/README.md"},
           {"bench_target", ""},
           {"bench", ""},
           {"sanitizers", "memcheck"},
           {"requires", ""}};
  for (const auto& [column, value] : changes) r[column] = value;
  return r;
}

// The columns as workbook_finalize() writes them today.
const std::vector<std::string> kColumns = {
    "id",         "name",         "title", "stub",       "solution",        "learner_test",  "learner_lesson",
    "fails_with", "smoke_args",   "phase", "target",     "solution_lesson", "solution_test", "hints",
    "readme",     "bench_target", "bench", "sanitizers", "requires"};

// The registry text: a header row of `columns`, then each row's values in that order.
std::string registry(const std::vector<std::string>& columns, const std::vector<Row>& rows) {
  auto line = [&columns](const Row& values) {
    std::string text;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      const auto found = values.find(columns[i]);
      text += (i ? "\t" : "") + (found == values.end() ? std::string() : found->second);
    }
    return text + "\n";
  };
  Row header;
  for (const std::string& column : columns) header[column] = column;
  std::string text = line(header);
  for (const Row& r : rows) text += line(r);
  return text;
}

const std::vector<Row> kRows = {
    row("1.01", "naive",
        {{"title", "the first kernel"},
         {"bench_target", "p1_ladder"},
         {"bench", "/b/phase1_matmul/p1_ladder"},
         {"sanitizers", "memcheck racecheck synccheck"}}),
    row("0.02", "vector_add", {{"stub", "phase0_basics/02_vector_add.cu"}, {"readme", "phase0_basics/README.md"}}),
    row("0.01", "indexing", {{"stub", "phase0_basics/01_indexing.cu"}, {"sanitizers", "none"}, {"smoke_args", ""}})};

wbcli::Manifest parsed(const std::string& text) {
  const wbcli::ManifestResult result = wbcli::parse_manifest(text);
  INFO(result.error);
  REQUIRE(result.manifest.has_value());
  return *result.manifest;
}
}  // namespace

TEST_CASE("the registry lists exercises in course order with every column", "[host][workbook]") {
  const wbcli::Manifest m = parsed(registry(kColumns, kRows));
  REQUIRE(m.exercises.size() == 3);
  CHECK(m.exercises[0].id == "0.01");  // sorted, whatever order CMake wrote
  CHECK(m.exercises[2].id == "1.01");
  const wbcli::Exercise* naive = m.find("1.01");
  REQUIRE(naive != nullptr);
  CHECK(naive->name == "naive");
  CHECK(naive->title == "the first kernel");
  CHECK(naive->phase == 1);
  CHECK(naive->stub == "phase1_matmul/01_naive.cu");
  CHECK(naive->solution == "solutions/phase1_matmul/01_naive.cu");
  CHECK(naive->learner_test == "/b/phase1_matmul/p1_01_naive_test");
  CHECK(naive->learner_lesson == "/b/phase1_matmul/p1_01_naive");
  CHECK(naive->solution_lesson == "/b/phase1_matmul/p1_01_naive_solution");
  CHECK(naive->solution_test == "/b/phase1_matmul/p1_01_naive_solution_test");
  CHECK(naive->fails_with == "Output untouched");
  CHECK(naive->target == "p1_01_naive");
  CHECK(naive->test_target() == "p1_01_naive_test");
  CHECK(naive->solution_target() == "p1_01_naive_solution");
  CHECK(naive->bench_target == "p1_ladder");
  CHECK(naive->bench == "/b/phase1_matmul/p1_ladder");
  CHECK(naive->hints == "phase1_matmul/hints/01_naive.txt");
  CHECK(naive->readme == "phase1_matmul/README.md");
  CHECK(naive->phase_dir() == "phase1_matmul");
  CHECK(naive->smoke_args == "--size 256 --repeat 3");
  CHECK(m.find("0.02")->bench.empty());
  CHECK(m.find("0.02")->title.empty());
  CHECK(m.find("0.01")->smoke_args.empty());
  CHECK(m.find("9.99") == nullptr);
  CHECK(m.phases() == std::vector<int>{0, 1});
  CHECK(m.in_phase(0).size() == 2);
}

TEST_CASE("columns are found by name: another order, or more columns, reads the same", "[host][workbook]") {
  const wbcli::Manifest written = parsed(registry(kColumns, kRows));
  std::vector<std::string> reordered(kColumns.rbegin(), kColumns.rend());
  std::rotate(reordered.begin(), reordered.begin() + 7, reordered.end());
  reordered.insert(reordered.begin() + 3, "a_column_from_later");  // unknown columns are ignored
  REQUIRE(reordered.front() != "id");
  const wbcli::Manifest shuffled = parsed(registry(reordered, kRows));
  REQUIRE(shuffled.exercises.size() == written.exercises.size());
  for (std::size_t i = 0; i < written.exercises.size(); ++i) {
    const wbcli::Exercise& a = written.exercises[i];
    const wbcli::Exercise& b = shuffled.exercises[i];
    INFO(a.id);
    CHECK(b.id == a.id);
    CHECK(b.name == a.name);
    CHECK(b.title == a.title);
    CHECK(b.stub == a.stub);
    CHECK(b.solution == a.solution);
    CHECK(b.learner_test == a.learner_test);
    CHECK(b.learner_lesson == a.learner_lesson);
    CHECK(b.solution_lesson == a.solution_lesson);
    CHECK(b.solution_test == a.solution_test);
    CHECK(b.fails_with == a.fails_with);
    CHECK(b.smoke_args == a.smoke_args);
    CHECK(b.phase == a.phase);
    CHECK(b.target == a.target);
    CHECK(b.hints == a.hints);
    CHECK(b.readme == a.readme);
    CHECK(b.bench_target == a.bench_target);
    CHECK(b.bench == a.bench);
    CHECK(b.arch_requirement == a.arch_requirement);
  }
  CHECK(shuffled.find("1.01")->title == "the first kernel");
  CHECK(shuffled.find("1.01")->bench_target == "p1_ladder");
}

TEST_CASE("a registry without a column the tool reads is an error that names it", "[host][workbook]") {
  std::vector<std::string> without_title = kColumns;
  without_title.erase(std::find(without_title.begin(), without_title.end(), "title"));
  const std::string error = wbcli::parse_manifest(registry(without_title, kRows)).error;
  CHECK(error.find("no column 'title'") != std::string::npos);
  CHECK(error.find("reconfigure") != std::string::npos);
  // A registry of before the header row named its columns ("# id\tname..."): reconfiguring writes it anew.
  std::vector<std::string> commented = kColumns;
  commented.front() = "# id";
  CHECK(wbcli::parse_manifest(registry(commented, kRows)).error.find("no column 'id'") != std::string::npos);
  std::vector<std::string> twice = kColumns;
  twice.push_back("name");
  CHECK(wbcli::parse_manifest(registry(twice, kRows)).error.find("'name' is named twice") != std::string::npos);
}

TEST_CASE("a broken registry is reported with its line", "[host][workbook]") {
  const std::string header = registry(kColumns, {});
  CHECK(wbcli::parse_manifest(header + "0.01\tonly\tthree\n").error.find("line 2: expected 19") != std::string::npos);
  CHECK(wbcli::parse_manifest(registry(kColumns, {row("x.yz", "a")})).error.find("not an exercise id") !=
        std::string::npos);
  CHECK(wbcli::parse_manifest(header).error.find("no exercises") != std::string::npos);
  CHECK(wbcli::parse_manifest(registry(kColumns, {row("0.01", "a"), row("0.01", "a")})).error.find("twice") !=
        std::string::npos);
  CHECK(wbcli::load_manifest("/nonexistent/build").error.find("not configured") != std::string::npos);
}

TEST_CASE("the requires column: which GPU an exercise needs", "[host][workbook]") {
  const wbcli::Manifest m = parsed(
      registry(kColumns, {row("1.09", "tensor_cores"), row("1.10", "mma_sync", {{"requires", "80"}}),
                          row("1.11", "wgmma", {{"requires", "90a"}}), row("1.12", "tma", {{"requires", "90a"}})}));
  CHECK(m.find("1.09")->arch_requirement.empty());
  CHECK(m.find("1.10")->arch_requirement == "80");
  CHECK(m.find("1.12")->arch_requirement == "90a");
  CHECK(m.find("1.09")->runs_on(75));
  CHECK_FALSE(m.find("1.10")->runs_on(75));
  CHECK(m.find("1.10")->runs_on(89));
  CHECK_FALSE(m.find("1.11")->runs_on(89));
  CHECK(m.find("1.11")->runs_on(90));
  CHECK_FALSE(m.find("1.11")->runs_on(100));
  CHECK(m.find("1.11")->runs_on(0));  // unknown GPU: not marked

  CHECK(wbcli::unsupported_exercises(m, 90).empty());
  CHECK(wbcli::unsupported_exercises(m, 89) ==
        std::vector<std::string>{"sm_89 cannot run 1.11 wgmma and 1.12 tma: they need a Hopper GPU (sm_90)."});
  const std::vector<std::string> turing = wbcli::unsupported_exercises(m, 75);
  REQUIRE(turing.size() == 2);
  CHECK(turing[0] == "sm_75 cannot run 1.10 mma_sync: it needs sm_80 or newer.");

  // A value the tool does not know is an error.
  CHECK(wbcli::parse_manifest(registry(kColumns, {row("1.11", "wgmma", {{"requires", "95"}})}))
            .error.find("unknown GPU requirement") != std::string::npos);
}
