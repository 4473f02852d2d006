// SPDX-License-Identifier: MIT
// The grade runs as CTest tests: `workbook check` asks ctest for an exercise's grade tests
// (N.NN.name.learner, .learner.source, .learner.<tool>), runs each through ctest, and reads back what
// ctest said, so the tool and `ctest --preset learner` run the same commands under the same limits.
#pragma once

#include <string>
#include <vector>

namespace wbcli {

enum class CTestStatus { Passed, Failed, Skipped, Timeout, Crashed, NotRun, Unknown };

// What `ctest -V` reported for one test.
struct CTestRun {
  std::string name;                           // 0.02.vector_add.learner
  CTestStatus status = CTestStatus::Unknown;  // Unknown: ctest reported no such test (see output)
  std::string status_text;                    // ctest's words for it: "***Exception: SegFault"
  int timeout_s = 0;                          // the limit ctest gave the test (its TIMEOUT), 0 if not said
  std::string output;                         // the test's own output; all of ctest's when Unknown
};

// The test names of `ctest -N` output, in ctest's order.
std::vector<std::string> parse_ctest_listing(const std::string& text);
// The run of one test from `ctest -V` output: its status, limit and output without ctest's prefixes.
CTestRun parse_ctest_verbose(const std::string& text);
// A regular expression (ctest -R) that matches exactly `name`.
std::string ctest_exact_regex(const std::string& name);
// The tests of an exercise's grade: ^0\.02\.vector_add\.learner(\.|$)
std::string grade_tests_regex(const std::string& id, const std::string& name);

}  // namespace wbcli
