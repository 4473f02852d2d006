// SPDX-License-Identifier: MIT
// Reading the exercise registry (workbook_exercises.tsv), current and older column sets.
#include "tools/workbook/manifest.h"

#include "common/catch.h"

namespace {
const char* kRegistry =
    "# id\tname\tstub\tsolution\tlearner_test\tlearner_lesson\tfails_with\tsmoke_args\tphase\ttarget\tsolution_lesson"
    "\tsolution_test\thints\treadme\tbench_target\tbench\tsanitizers\n"
    "1.01\tnaive\tphase1_matmul/01_naive.cu\tsolutions/phase1_matmul/01_naive.cu\t/b/phase1_matmul/p1_01_naive_test\t"
    "/b/phase1_matmul/p1_01_naive\tOutput untouched\t--size 256 --repeat 3\t1\tp1_01_naive\t"
    "/b/phase1_matmul/p1_01_naive_solution\t/b/phase1_matmul/p1_01_naive_solution_test\t"
    "phase1_matmul/hints/01_naive.txt\tphase1_matmul/README.md\tp1_ladder\t/b/phase1_matmul/p1_ladder\tmemcheck "
    "racecheck synccheck\n"
    "0.02\tvector_add\tphase0_basics/02_vector_add.cu\tsolutions/phase0_basics/02_vector_add.cu\t"
    "/b/phase0_basics/p0_02_vector_add_test\t/b/phase0_basics/p0_02_vector_add\tOutput untouched\t--size 1M\t0\t"
    "p0_02_vector_add\t/b/phase0_basics/p0_02_vector_add_solution\t/b/phase0_basics/p0_02_vector_add_solution_test\t"
    "phase0_basics/hints/02_vector_add.txt\tphase0_basics/README.md\t\t\tmemcheck\n"
    "0.01\tindexing\tphase0_basics/01_indexing.cu\tsolutions/phase0_basics/01_indexing.cu\t"
    "/b/phase0_basics/p0_01_indexing_test\t/b/phase0_basics/p0_01_indexing\tOutput untouched\t\t0\tp0_01_indexing\t"
    "/b/phase0_basics/p0_01_indexing_solution\t/b/phase0_basics/p0_01_indexing_solution_test\t"
    "phase0_basics/hints/01_indexing.txt\tphase0_basics/README.md\t\t\tnone\n";
}  // namespace

TEST_CASE("the registry lists exercises in course order with every column", "[host][workbook]") {
  const wbcli::ManifestResult result = wbcli::parse_manifest(kRegistry);
  INFO(result.error);
  REQUIRE(result.manifest.has_value());
  const wbcli::Manifest& m = *result.manifest;
  REQUIRE(m.exercises.size() == 3);
  CHECK(m.exercises[0].id == "0.01");  // sorted, whatever order CMake wrote
  CHECK(m.exercises[2].id == "1.01");
  const wbcli::Exercise* naive = m.find("1.01");
  REQUIRE(naive != nullptr);
  CHECK(naive->phase == 1);
  CHECK(naive->target == "p1_01_naive");
  CHECK(naive->test_target() == "p1_01_naive_test");
  CHECK(naive->solution_target() == "p1_01_naive_solution");
  CHECK(naive->bench_target == "p1_ladder");
  CHECK(naive->bench == "/b/phase1_matmul/p1_ladder");
  CHECK(naive->hints == "phase1_matmul/hints/01_naive.txt");
  CHECK(naive->phase_dir() == "phase1_matmul");
  CHECK(naive->smoke_args == "--size 256 --repeat 3");
  CHECK(m.find("0.02")->bench.empty());
  // The grade's sanitizer tools: the list, one tool, or none (the empty bench columns before them kept).
  CHECK(naive->sanitizers == std::vector<std::string>{"memcheck", "racecheck", "synccheck"});
  CHECK(m.find("0.02")->sanitizers == std::vector<std::string>{"memcheck"});
  CHECK(m.find("0.01")->sanitizers.empty());
  CHECK(m.find("9.99") == nullptr);
  CHECK(m.phases() == std::vector<int>{0, 1});
  CHECK(m.in_phase(0).size() == 2);
}

TEST_CASE("an 8-column registry (before the tool's columns) still loads", "[host][workbook]") {
  const wbcli::ManifestResult result = wbcli::parse_manifest(
      "# id\tname\tstub\tsolution\tlearner_test\tlearner_lesson\tfails_with\tsmoke_args\n"
      "0.02\tvector_add\tphase0_basics/02_vector_add.cu\tsolutions/phase0_basics/02_vector_add.cu\t/b/t\t/b/p0_02\t"
      "Output untouched\t--size 1M\n");
  REQUIRE(result.manifest.has_value());
  const wbcli::Exercise& e = result.manifest->exercises.front();
  CHECK(e.target == "p0_02_vector_add");
  CHECK(e.hints == "phase0_basics/hints/02_vector_add.txt");
  CHECK(e.readme == "phase0_basics/README.md");
  CHECK(e.solution_lesson == "/b/p0_02_solution");
  CHECK(e.sanitizers == std::vector<std::string>{"memcheck"});  // before the sanitizers column: memcheck
}

TEST_CASE("a broken registry is reported with its line", "[host][workbook]") {
  CHECK(wbcli::parse_manifest("0.01\tonly\tthree\n").error.find("line 1") != std::string::npos);
  CHECK(wbcli::parse_manifest("x.yz\ta\tb\tc\td\te\tf\tg\n").error.find("not an exercise id") != std::string::npos);
  CHECK(wbcli::parse_manifest("# header only\n").error.find("no exercises") != std::string::npos);
  const std::string twice = "0.01\ta\tb\tc\td\te\tf\tg\n0.01\ta\tb\tc\td\te\tf\tg\n";
  CHECK(wbcli::parse_manifest(twice).error.find("twice") != std::string::npos);
  CHECK(wbcli::load_manifest("/nonexistent/build").error.find("not configured") != std::string::npos);
}

TEST_CASE("the requires and test_timeout columns: which GPU an exercise needs, its own time limit",
          "[host][workbook]") {
  const std::string row =
      "\tphase1_matmul/%s.cu\tsolutions/phase1_matmul/%s.cu\t/b/t\t/b/l\tOutput untouched\t--size 256\t1\tp1_x\t"
      "/b/ls\t/b/ts\tphase1_matmul/hints/x.txt\tphase1_matmul/README.md\tp1_ladder\t/b/p1_ladder\tnone\t";
  auto line = [&row](const std::string& id, const std::string& name, const std::string& requires_and_timeout) {
    std::string r = row;
    for (std::size_t at; (at = r.find("%s")) != std::string::npos;) r.replace(at, 2, name);
    return id + "\t" + name + r + requires_and_timeout + "\n";
  };
  const wbcli::ManifestResult result =
      wbcli::parse_manifest(line("1.09", "tensor_cores", "\t") + line("1.10", "mma_sync", "80\t") +
                            line("1.11", "wgmma", "90a\t") + line("1.12", "tma", "90a\t90"));
  INFO(result.error);
  REQUIRE(result.manifest.has_value());
  const wbcli::Manifest& m = *result.manifest;
  CHECK(m.find("1.09")->arch_requirement.empty());
  CHECK(m.find("1.10")->arch_requirement == "80");
  CHECK(m.find("1.12")->arch_requirement == "90a");
  CHECK(m.find("1.11")->test_timeout_s == 0);
  CHECK(m.find("1.12")->test_timeout_s == 90);
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

  // An older registry (17 columns) has no requirements; a value the tool does not know is an error.
  CHECK(wbcli::parse_manifest(line("1.11", "wgmma", "").substr(0, line("1.11", "wgmma", "").size() - 2) + "\n")
            .manifest->exercises.front()
            .arch_requirement.empty());
  CHECK(wbcli::parse_manifest(line("1.11", "wgmma", "95\t")).error.find("unknown GPU requirement") !=
        std::string::npos);
}
