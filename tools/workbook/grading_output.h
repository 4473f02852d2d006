// SPDX-License-Identifier: MIT
// Cutting build and test output down to what teaches: the compiler's errors without the build
// tool's noise, and the first failing Catch2 section with its message.
#pragma once

#include <string>

namespace wbcli {

// From a failed `cmake --build` (Ninja or Make): the compiler diagnostics, at most `max_lines`.
std::string extract_compile_errors(const std::string& build_output, int max_lines = 60);

// From a failed graded test: the first failed test case's header (name, sections), its failed
// assertion and message, and Catch2's totals line; at most `max_lines`.
std::string extract_test_failure(const std::string& test_output, int max_lines = 50);

}  // namespace wbcli
