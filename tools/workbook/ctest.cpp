// SPDX-License-Identifier: MIT
#include "tools/workbook/ctest.h"

#include <cctype>

#include "tools/workbook/text.h"

namespace wbcli {
namespace {

std::string escape_regex(const std::string& text) {
  std::string escaped;
  for (const char c : text) {
    if (std::string("\\^$.|?*+()[]{}").find(c) != std::string::npos) escaped += '\\';
    escaped += c;
  }
  return escaped;
}

// "12" -> 12; -1 unless the text is all digits.
int parse_index(const std::string& text) {
  if (text.empty() || text.size() > 9) return -1;
  for (const char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  return std::stoi(text);
}

// "    Start 12: 0.02.vector_add.learner" -> 12 and the name.
bool parse_start_line(const std::string& line, int* index, std::string* name) {
  const std::string text = trim(line);
  if (!starts_with(text, "Start ")) return false;
  const std::string::size_type colon = text.find(": ");
  if (colon == std::string::npos) return false;
  *index = parse_index(trim(text.substr(6, colon - 6)));
  *name = trim(text.substr(colon + 2));
  return *index >= 0 && !name->empty();
}

CTestStatus classify(const std::string& status_text) {
  if (contains(status_text, "Not Run")) return CTestStatus::NotRun;
  if (contains(status_text, "Skipped")) return CTestStatus::Skipped;
  if (contains(status_text, "Timeout")) return CTestStatus::Timeout;
  if (contains(status_text, "Exception") || contains(status_text, "aborted")) return CTestStatus::Crashed;
  if (contains(status_text, "Failed")) return CTestStatus::Failed;
  if (contains(status_text, "Passed")) return CTestStatus::Passed;
  return CTestStatus::Unknown;
}

// "1/1 Test #12: 0.02.vector_add.learner ......   Passed    0.31 sec" -> "Passed" (the words between
// the name's dots and the time).
std::string result_words(const std::string& line, const std::string& name) {
  std::string rest = line.substr(line.find(name) + name.size());
  const std::string::size_type words = rest.find_first_not_of(" .");
  rest = words == std::string::npos ? "" : rest.substr(words);
  const std::string::size_type sec = rest.rfind(" sec");
  if (sec != std::string::npos) {
    rest = trim(rest.substr(0, sec));
    const std::string::size_type time = rest.find_last_of(' ');
    rest = time == std::string::npos ? "" : rest.substr(0, time);
  }
  return trim(rest);
}

}  // namespace

std::vector<std::string> parse_ctest_listing(const std::string& text) {
  std::vector<std::string> names;
  for (const std::string& line : split_lines(text)) {
    // "  Test  #7: 0.02.vector_add.learner" (the number padded to the widest)
    const std::string entry = trim(line);
    if (!starts_with(entry, "Test ")) continue;
    const std::string number = trim(entry.substr(5));
    const std::string::size_type colon = number.find(": ");
    if (number.empty() || number[0] != '#' || colon == std::string::npos) continue;
    if (parse_index(number.substr(1, colon - 1)) >= 0) names.push_back(trim(number.substr(colon + 2)));
  }
  return names;
}

CTestRun parse_ctest_verbose(const std::string& text) {
  CTestRun run;
  int index = -1;
  bool header = true;        // ctest's own lines come first: command, directory, environment, limit
  bool environment = false;  // inside "Environment variables:", whose entries start with a space
  std::string output;
  for (const std::string& line : split_lines(text)) {
    if (index < 0) {
      parse_start_line(line, &index, &run.name);
      continue;
    }
    const std::string prefix = std::to_string(index) + ": ";
    const std::string bare_prefix = std::to_string(index) + ":";
    if (starts_with(line, prefix) || line == bare_prefix) {
      const std::string content = line.size() > prefix.size() ? line.substr(prefix.size()) : "";
      if (header) {
        if (starts_with(content, "Test command:") || starts_with(content, "Working Directory:")) continue;
        if (starts_with(content, "Environment variables:")) {
          environment = true;
          continue;
        }
        if (environment && starts_with(content, " ")) continue;
        if (starts_with(content, "Test timeout computed to be:")) {
          run.timeout_s = static_cast<int>(parse_number(trim(content.substr(28))).value_or(0));
          continue;
        }
        header = false;
      }
      output += content + "\n";
      continue;
    }
    // "1/1 Test  #7: 0.02.vector_add.learner ....   Passed    0.31 sec"
    const std::string result = trim(line);
    if (contains(result, "#" + std::to_string(index) + ": " + run.name + " ")) {
      run.status_text = result_words(result, run.name);
      run.status = classify(run.status_text);
      break;
    }
  }
  // A CTest limit this large (10^7 s) means none was set.
  if (run.timeout_s >= 10000000) run.timeout_s = 0;
  // Not run (its program is missing) or not found: ctest's own words say why.
  run.output = run.status == CTestStatus::Unknown || run.status == CTestStatus::NotRun ? text : output;
  return run;
}

std::string ctest_exact_regex(const std::string& name) {
  return "^" + escape_regex(name) + "$";
}

std::string grade_tests_regex(const std::string& id, const std::string& name) {
  return "^" + escape_regex(id + "." + name + ".learner") + "(\\.|$)";
}

}  // namespace wbcli
