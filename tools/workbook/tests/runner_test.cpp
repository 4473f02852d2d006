// SPDX-License-Identifier: MIT
// Process spawning with output capture, and cutting build and test output to what teaches.
#include "tools/workbook/runner.h"

#include "common/catch.h"
#include "tools/workbook/grading_output.h"

TEST_CASE("run_process captures stdout and stderr and the exit status", "[host][workbook]") {
  const wbcli::ProcessResult r = wbcli::run_process({"sh", "-c", "echo out; echo err >&2; exit 3"}, {});
  CHECK(r.started);
  CHECK(r.exit_code == 3);
  CHECK(r.output.find("out") != std::string::npos);
  CHECK(r.output.find("err") != std::string::npos);
  wbcli::RunOptions env;
  env.environment = {"WB_TEST_VALUE=42"};
  CHECK(wbcli::run_process({"sh", "-c", "echo $WB_TEST_VALUE"}, env).output == "42\n");
}

TEST_CASE("every process the tool starts runs with NVLink multicast off", "[host][workbook]") {
  CHECK(wbcli::run_process({"sh", "-c", "echo $NCCL_NVLS_ENABLE"}, {}).output == "0\n");
  wbcli::RunOptions asks_for_it;
  asks_for_it.environment = {"NCCL_NVLS_ENABLE=1"};
  CHECK(wbcli::run_process({"sh", "-c", "echo $NCCL_NVLS_ENABLE"}, asks_for_it).output == "0\n");
}

TEST_CASE("run_process reports programs that cannot start, crashes and timeouts", "[host][workbook]") {
  const wbcli::ProcessResult missing = wbcli::run_process({"/nonexistent/program"}, {});
  CHECK_FALSE(missing.started);
  CHECK(missing.output.find("cannot run /nonexistent/program") != std::string::npos);
  CHECK(wbcli::run_process({"sh", "-c", "kill -SEGV $$"}, {}).exit_code == 128 + 11);
  wbcli::RunOptions quick;
  quick.timeout_s = 1;
  const wbcli::ProcessResult slow = wbcli::run_process({"sh", "-c", "sleep 30"}, quick);
  CHECK(slow.timed_out);
  CHECK(slow.exit_code == 124);
}

TEST_CASE("find_program and shell quoting", "[host][workbook]") {
  CHECK_FALSE(wbcli::find_program("sh").empty());
  CHECK(wbcli::find_program("surely-not-a-program-xyz").empty());
  CHECK(wbcli::describe_command({"lesson", "--size", "16M"}) == "lesson --size 16M");
  CHECK(wbcli::shell_quote("it's") == "'it'\\''s'");
}

TEST_CASE("compile errors come without the build tool's noise", "[host][workbook]") {
  const std::string ninja =
      "[1/4] Building CUDA object phase0_basics/CMakeFiles/p0_02_vector_add_obj.dir/02_vector_add.cu.o\n"
      "FAILED: phase0_basics/CMakeFiles/p0_02_vector_add_obj.dir/02_vector_add.cu.o\n"
      "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DWB_EXERCISE_ID=... -c 02_vector_add.cu\n"
      "/src/phase0_basics/02_vector_add.cu(42): error: identifier \"idx\" is undefined\n"
      "      c[idx] = a[i] + b[i];\n"
      "        ^\n"
      "\n"
      "1 error detected in the compilation of \"/src/phase0_basics/02_vector_add.cu\".\n"
      "ninja: build stopped: subcommand failed.\n";
  const std::string errors = wbcli::extract_compile_errors(ninja);
  CHECK(errors.find("/src/phase0_basics/02_vector_add.cu(42): error: identifier \"idx\" is undefined") == 0);
  CHECK(errors.find("nvcc -forward") == std::string::npos);
  CHECK(errors.find("ninja:") == std::string::npos);
  CHECK(errors.find("[1/4]") == std::string::npos);
  CHECK(errors.find("1 error detected") != std::string::npos);
}

TEST_CASE("a build that stops outside the compiler does not blame the exercise", "[host][workbook]") {
  // A graded test's source deleted from the checkout: Ninja stops before any compiler runs.
  const std::string ninja =
      "ninja: error: '/src/phase3_reduction/tests/06_complete_unroll_test.cpp', needed by "
      "'phase3_reduction/CMakeFiles/p3_06_complete_unroll_test_obj.dir/tests/06_complete_unroll_test.cpp.o', "
      "missing and no known rule to make it\n";
  CHECK(wbcli::extract_compile_errors(ninja).empty());
  const std::string stub = "phase3_reduction/06_complete_unroll.cu";
  CHECK(wbcli::build_failure_heading(stub, true) == stub + " does not compile. The compiler says:");
  const std::string elsewhere = wbcli::build_failure_heading(stub, false);
  CHECK(elsewhere.find("does not compile") == std::string::npos);
  CHECK(elsewhere.find("no compiler error names it") != std::string::npos);
}

TEST_CASE("the first failing test case is cut out of Catch2's output", "[host][workbook]") {
  const std::string catch2 =
      "Randomness seeded to: 42\n"
      "\n"
      "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
      "p0_02_vector_add_test is a Catch2 v3.4.0 host application.\n"
      "-------------------------------------------------------------------------------\n"
      "vector_add writes every element of the sum\n"
      "  n = 1\n"
      "-------------------------------------------------------------------------------\n"
      "/src/phase0_basics/tests/02_vector_add_test.cpp:30\n"
      "...............................................................................\n"
      "\n"
      "/src/phase0_basics/tests/02_vector_add_test.cpp:41: FAILED:\n"
      "  REQUIRE( report.ok() )\n"
      "with message:\n"
      "  Output untouched: is the kernel implemented, and is it launched?\n"
      "\n"
      "-------------------------------------------------------------------------------\n"
      "vector_add_float4 writes every element\n"
      "-------------------------------------------------------------------------------\n"
      "/src/phase0_basics/tests/02_vector_add_test.cpp:60: FAILED:\n"
      "===============================================================================\n"
      "test cases: 2 | 2 failed\n"
      "assertions: 2 | 2 failed\n";
  const std::string failure = wbcli::extract_test_failure(catch2);
  INFO(failure);
  CHECK(failure.find("vector_add writes every element of the sum\n  n = 1\n") == 0);
  CHECK(failure.find("Output untouched: is the kernel implemented") != std::string::npos);
  CHECK(failure.find("vector_add_float4") == std::string::npos);
  CHECK(failure.find("test cases: 2 | 2 failed") != std::string::npos);
  CHECK(wbcli::extract_test_failure("SKIPPED: no GPU\n\n") == "SKIPPED: no GPU\n");
}
