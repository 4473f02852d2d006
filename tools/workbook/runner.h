// SPDX-License-Identifier: MIT
// Spawning processes: the build, graded tests, lessons, compute-sanitizer, ncu. Output (stdout
// and stderr together) is captured, and optionally echoed live for visible progress.
#pragma once

#include <string>
#include <vector>

namespace wbcli {

struct RunOptions {
  std::vector<std::string> environment;  // extra NAME=value entries
  int timeout_s = 0;                     // 0: no limit
  bool echo = false;                     // copy the output to our stdout as it arrives
  std::string working_directory;
};

struct ProcessResult {
  bool started = false;  // false: the program could not be executed (output holds why)
  int exit_code = -1;    // the exit status, or 128 + signal when killed by one
  bool timed_out = false;
  std::string output;
};

ProcessResult run_process(const std::vector<std::string>& argv, const RunOptions& options);
// Runs with our terminal (stdin, stdout, stderr inherited), for lessons the learner watches.
int run_attached(const std::vector<std::string>& argv, const std::vector<std::string>& environment);

// The full path of `program` found on PATH or in the extra directories, or "" when absent.
std::string find_program(const std::string& program, const std::vector<std::string>& extra_directories = {});

// Quotes an argument for display in a shell command line.
std::string shell_quote(const std::string& argument);
std::string describe_command(const std::vector<std::string>& argv);

}  // namespace wbcli
