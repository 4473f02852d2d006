// SPDX-License-Identifier: MIT
// The workbook command line: verbs, exercise ids, options. Parsing only; commands.cpp acts on it.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace wbcli {

enum class Verb { Status, List, Run, Check, Hint, Solution, Watch, Reset, Bench, Profile, Doctor, Help };

struct Command {
  Verb verb = Verb::Status;
  std::string exercise;                  // "0.01", or empty where the verb takes the current one
  int phase = -1;                        // bench phaseN
  bool all = false;                      // reset --all
  bool force = false;                    // solution --force
  bool yes = false;                      // reset --yes: no question asked
  bool fast = false;                     // check --fast: the graded test only, no compute-sanitizer runs
  std::string build_dir;                 // --build-dir DIR
  std::vector<std::string> passthrough;  // after `--`: lesson (run) or benchmark (bench) arguments
};

struct ParsedCommand {
  std::optional<Command> command;  // empty on a usage error
  std::string error;               // the usage error, one line
};

ParsedCommand parse_command_line(const std::vector<std::string>& arguments);

// "0.01" and "1.09" are exercise ids: one phase digit, a dot, two digits.
bool is_exercise_id(const std::string& text);
// "phase1", "phase 1" as one word, or "p1" -> 1.
std::optional<int> parse_phase(const std::string& text);

std::string usage_text();

}  // namespace wbcli
