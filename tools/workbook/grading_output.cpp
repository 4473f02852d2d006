// SPDX-License-Identifier: MIT
#include "tools/workbook/grading_output.h"

#include <vector>

#include "tools/workbook/text.h"

namespace wbcli {
namespace {

bool is_rule(const std::string& line, char c) {
  return line.size() >= 20 && line.find_first_not_of(c) == std::string::npos;
}

std::string first_lines(const std::vector<std::string>& lines, int max_lines) {
  std::string text;
  int count = 0;
  for (const std::string& line : lines) {
    if (count++ == max_lines) {
      text += "... (" + std::to_string(lines.size() - static_cast<std::size_t>(max_lines)) + " more lines)\n";
      break;
    }
    text += line + "\n";
  }
  return text;
}

}  // namespace

std::string extract_compile_errors(const std::string& build_output, int max_lines) {
  std::vector<std::string> kept;
  bool skip_command = false;
  for (const std::string& line : split_lines(build_output)) {
    if (starts_with(line, "FAILED:")) {
      skip_command = true;  // Ninja prints the failed command on the next line
      continue;
    }
    if (skip_command) {
      skip_command = false;
      continue;
    }
    if (starts_with(line, "ninja:") || starts_with(line, "gmake") || starts_with(line, "make") ||
        (starts_with(line, "[") && (contains(line, "Building") || contains(line, "Linking"))) ||
        starts_with(line, "Scanning dependencies") || contains(line, "Error 1") ||
        (line.size() > 2 && line[0] == '[' && contains(line, "/") && contains(line, "] ")))
      continue;
    if (trim(line).empty() && kept.empty()) continue;
    kept.push_back(line);
  }
  return first_lines(kept, max_lines);
}

std::string build_failure_heading(const std::string& subject, bool compiler_errors) {
  if (compiler_errors) return subject + " does not compile. The compiler says:";
  return subject +
         " could not be built, though no compiler error names it: a file the build needs is missing, "
         "or a link or configure step failed (reconfigure with `cmake --preset default`, or restore the "
         "file it names). The build tool says:";
}

std::string extract_test_failure(const std::string& test_output, int max_lines) {
  const std::vector<std::string> lines = split_lines(test_output);
  std::size_t failed = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (contains(lines[i], "FAILED:") || contains(lines[i], "due to unexpected exception") ||
        contains(lines[i], "due to a fatal error")) {
      failed = i;
      break;
    }
  std::vector<std::string> kept;
  if (failed == lines.size()) {
    // No Catch2 assertion: keep everything but blank lines (a crash, a message from main).
    for (const std::string& line : lines)
      if (!trim(line).empty()) kept.push_back(line);
    return first_lines(kept, max_lines);
  }
  // Back to the test case header: the second '-' rule above the failure starts it.
  std::size_t start = failed;
  int rules = 0;
  while (start > 0) {
    if (is_rule(lines[start - 1], '-') && ++rules == 2) break;
    --start;
  }
  std::size_t end = failed;
  while (end < lines.size() && !is_rule(lines[end], '-') && !is_rule(lines[end], '=')) ++end;
  for (std::size_t i = start; i < end; ++i)
    if (!is_rule(lines[i], '.') && !is_rule(lines[i], '-')) kept.push_back(lines[i]);
  while (!kept.empty() && trim(kept.back()).empty()) kept.pop_back();
  for (const std::string& line : lines)
    if (starts_with(line, "test cases:")) kept.push_back(line);
  return first_lines(kept, max_lines);
}

}  // namespace wbcli
