// SPDX-License-Identifier: MIT
// Reading ctest back: the listing of an exercise's grade tests and the verbose run of one test, on
// captured ctest output (CMake 3.25; 4.x prints the same lines).
#include "tools/workbook/ctest.h"

#include "common/catch.h"

namespace {

const char* kListing = R"(Internal ctest changing into directory: /b
Test project /b
  Test #41: 0.02.vector_add.learner
  Test #44: 0.02.vector_add.learner.memcheck
  Test #45: 0.02.vector_add.learner.source

Total Tests: 3
)";

const char* kPassed = R"(UpdateCTestConfiguration  from :/b/DartConfiguration.tcl
Test project /b
Constructing a list of tests
Checking test dependency graph end
test 41
    Start 41: 0.02.vector_add.learner

41: Test command: /b/phase0_basics/p0_02_vector_add_test
41: Working Directory: /b/phase0_basics
41: Test timeout computed to be: 300
41: Randomness seeded to: 1
41: ===============================================================================
41: All tests passed (120 assertions in 9 test cases)
41: 
1/1 Test #41: 0.02.vector_add.learner ..........   Passed    0.91 sec

100% tests passed, 0 tests failed out of 1
)";

const char* kFailed = R"(test 7
    Start  7: 0.02.vector_add.learner

7: Test command: /b/p0_02_vector_add_test
7: Working Directory: /b
7: Environment variables: 
7:  WB_SANITIZE=1
7: Test timeout computed to be: 300
7: line1
7: 
7:   indented
1/1 Test  #7: 0.02.vector_add.learner ...........***Failed    0.00 sec

0% tests passed, 1 tests failed out of 1
The following tests FAILED:
	  7 - 0.02.vector_add.learner (Failed)
)";

std::string one_run(const std::string& status, const std::string& output = "7: out\n",
                    const std::string& limit = "300") {
  return "test 7\n    Start 7: 1.12.tma.learner\n\n7: Test command: /b/t\n7: Working Directory: /b\n"
         "7: Test timeout computed to be: " +
         limit + "\n" + output + "1/1 Test #7: 1.12.tma.learner ....................." + status + "  90.01 sec\n";
}

}  // namespace

TEST_CASE("ctest -N: the names of the grade tests, in ctest's order", "[host][workbook]") {
  const std::vector<std::string> names = wbcli::parse_ctest_listing(kListing);
  REQUIRE(names.size() == 3);
  CHECK(names[0] == "0.02.vector_add.learner");
  CHECK(names[2] == "0.02.vector_add.learner.source");
  CHECK(wbcli::parse_ctest_listing("Test project /b\nTotal Tests: 0\n").empty());
}

TEST_CASE("ctest -V: a passing test, its limit and its own output", "[host][workbook]") {
  const wbcli::CTestRun run = wbcli::parse_ctest_verbose(kPassed);
  CHECK(run.name == "0.02.vector_add.learner");
  CHECK(run.status == wbcli::CTestStatus::Passed);
  CHECK(run.timeout_s == 300);
  CHECK(run.output.find("All tests passed") != std::string::npos);
  CHECK(run.output.find("Test command") == std::string::npos);
  CHECK(run.output.find("41:") == std::string::npos);
}

TEST_CASE("ctest -V: a failing test keeps its lines, blank and indented ones too", "[host][workbook]") {
  const wbcli::CTestRun run = wbcli::parse_ctest_verbose(kFailed);
  CHECK(run.status == wbcli::CTestStatus::Failed);
  CHECK(run.output == "line1\n\n  indented\n");  // the environment block is ctest's, not the test's
}

TEST_CASE("ctest -V: skipped, timed out, crashed, not run", "[host][workbook]") {
  CHECK(wbcli::parse_ctest_verbose(one_run("***Skipped ")).status == wbcli::CTestStatus::Skipped);
  const wbcli::CTestRun hung = wbcli::parse_ctest_verbose(one_run("***Timeout ", "7: case 3\n", "90"));
  CHECK(hung.status == wbcli::CTestStatus::Timeout);
  CHECK(hung.timeout_s == 90);
  CHECK(hung.output == "case 3\n");
  const wbcli::CTestRun crash = wbcli::parse_ctest_verbose(one_run("***Exception: SegFault"));
  CHECK(crash.status == wbcli::CTestStatus::Crashed);
  CHECK(crash.status_text == "***Exception: SegFault");
  CHECK(wbcli::parse_ctest_verbose(one_run("Subprocess aborted***Exception: ")).status == wbcli::CTestStatus::Crashed);
  const wbcli::CTestRun missing = wbcli::parse_ctest_verbose(one_run("***Not Run "));
  CHECK(missing.status == wbcli::CTestStatus::NotRun);
  CHECK(missing.output.find("Test command") != std::string::npos);  // ctest's own words say why
  CHECK(wbcli::parse_ctest_verbose(one_run("   Passed ", "7: x\n", "10000000")).timeout_s == 0);  // no limit
}

TEST_CASE("ctest -V: no such test leaves the status unknown, with ctest's text", "[host][workbook]") {
  const wbcli::CTestRun run = wbcli::parse_ctest_verbose("Test project /b\nNo tests were found!!!\n");
  CHECK(run.status == wbcli::CTestStatus::Unknown);
  CHECK(run.output.find("No tests were found") != std::string::npos);
}

TEST_CASE("ctest -R patterns match one test, or an exercise's grade", "[host][workbook]") {
  CHECK(wbcli::ctest_exact_regex("0.02.vector_add.learner") == "^0\\.02\\.vector_add\\.learner$");
  CHECK(wbcli::grade_tests_regex("0.02", "vector_add") == "^0\\.02\\.vector_add\\.learner(\\.|$)");
}
