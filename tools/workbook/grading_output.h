// SPDX-License-Identifier: MIT
// Cutting build and test output down to what teaches: the compiler's errors without the build
// tool's noise, and the first failing Catch2 section with its message.
#pragma once

#include <string>

namespace wbcli {

// From a failed `cmake --build` (Ninja or Make): the compiler diagnostics, at most `max_lines`.
std::string extract_compile_errors(const std::string& build_output, int max_lines = 60);

// Why a build failed, in the learner's words. With compiler diagnostics, `subject` does not compile;
// without any (a file the build needs is missing, a link or configure step failed) the build stopped
// outside the compiler, and blaming the learner's code would send them to the wrong place.
std::string build_failure_heading(const std::string& subject, bool compiler_errors);

// From a failed graded test: the first failed test case's header (name, sections), its failed
// assertion and message, and Catch2's totals line; at most `max_lines`.
std::string extract_test_failure(const std::string& test_output, int max_lines = 50);

}  // namespace wbcli
