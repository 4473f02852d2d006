// SPDX-License-Identifier: MIT
#include "tools/workbook/runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tools/workbook/text.h"

namespace wbcli {
namespace {

std::vector<char*> c_arguments(const std::vector<std::string>& argv) {
  std::vector<char*> pointers;
  for (const std::string& arg : argv) pointers.push_back(const_cast<char*>(arg.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// In the child before exec: the extra entries, then NCCL_NVLS_ENABLE=0 whatever they say (phase 6:
// NVLink multicast stays off in every process the tool starts; phase6_multi_gpu/README.md says why).
void set_environment(const std::vector<std::string>& environment) {
  for (const std::string& entry : environment) {
    const std::string::size_type equals = entry.find('=');
    if (equals != std::string::npos) ::setenv(entry.substr(0, equals).c_str(), entry.substr(equals + 1).c_str(), 1);
  }
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// In the forked child: output to the pipe, stdin from /dev/null, then the program. A failed exec is
// reported through `exec_error_fd` (close-on-exec, so the parent reads nothing when exec succeeds).
[[noreturn]] void exec_child(const std::vector<std::string>& argv, const RunOptions& options, const int output_fds[2],
                             int exec_error_read_fd, int exec_error_fd) {
  ::setpgid(0, 0);  // its own process group, so a timeout kills its children too
  ::dup2(output_fds[1], STDOUT_FILENO);
  ::dup2(output_fds[1], STDERR_FILENO);
  ::close(output_fds[0]);
  ::close(output_fds[1]);
  ::close(exec_error_read_fd);
  const int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
  set_environment(options.environment);
  if (!options.working_directory.empty() && ::chdir(options.working_directory.c_str()) != 0) ::_exit(127);
  std::vector<char*> args = c_arguments(argv);
  ::execvp(args[0], args.data());
  const int error = errno;
  (void)!::write(exec_error_fd, &error, sizeof error);
  ::_exit(127);
}

// In the parent: the child's output until it closes the pipe, or until the time limit, when its whole
// process group is killed and the result marked timed out; echoed as it comes with options.echo.
void collect_output(int fd, pid_t pid, const RunOptions& options, ProcessResult* result) {
  const auto start = std::chrono::steady_clock::now();
  char buffer[4096];
  while (true) {
    int wait_ms = -1;
    if (options.timeout_s > 0) {
      const auto elapsed = std::chrono::steady_clock::now() - start;
      const long long left =
          options.timeout_s * 1000LL - std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count();
      if (left <= 0) {
        result->timed_out = true;
        ::kill(-pid, SIGKILL);
        break;
      }
      wait_ms = static_cast<int>(left);
    }
    pollfd poll_fd{fd, POLLIN, 0};
    const int ready = ::poll(&poll_fd, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // the deadline check above ends it
    const ssize_t count = ::read(fd, buffer, sizeof buffer);
    if (count <= 0) break;
    result->output.append(buffer, static_cast<std::size_t>(count));
    if (options.echo) {
      std::fwrite(buffer, 1, static_cast<std::size_t>(count), stdout);
      std::fflush(stdout);
    }
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const RunOptions& options) {
  ProcessResult result;
  if (argv.empty()) return result;
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) {
    result.output = std::string("cannot create a pipe: ") + std::strerror(errno);
    return result;
  }
  // The child reports a failed exec through this close-on-exec pipe.
  int exec_fds[2];
  if (::pipe2(exec_fds, O_CLOEXEC) != 0) {
    result.output = std::string("cannot create a pipe: ") + std::strerror(errno);
    return result;
  }
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid == 0) exec_child(argv, options, pipe_fds, exec_fds[0], exec_fds[1]);
  ::close(pipe_fds[1]);
  ::close(exec_fds[1]);
  if (pid < 0) {
    ::close(pipe_fds[0]);
    ::close(exec_fds[0]);
    result.output = std::string("cannot fork: ") + std::strerror(errno);
    return result;
  }
  int exec_error = 0;
  const bool exec_failed =
      ::read(exec_fds[0], &exec_error, sizeof exec_error) == static_cast<ssize_t>(sizeof exec_error);
  ::close(exec_fds[0]);
  collect_output(pipe_fds[0], pid, options, &result);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (exec_failed) {
    result.output = "cannot run " + argv[0] + ": " + std::strerror(exec_error);
    return result;
  }
  result.started = true;
  result.exit_code = result.timed_out ? 124 : decode_status(status);
  return result;
}

int run_attached(const std::vector<std::string>& argv, const std::vector<std::string>& environment) {
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid == 0) {
    set_environment(environment);
    std::vector<char*> args = c_arguments(argv);
    ::execvp(args[0], args.data());
    std::fprintf(stderr, "cannot run %s: %s\n", argv[0].c_str(), std::strerror(errno));
    ::_exit(127);
  }
  if (pid < 0) return -1;
  int status = 0;
  ::waitpid(pid, &status, 0);
  return decode_status(status);
}

std::string find_program(const std::string& program, const std::vector<std::string>& extra_directories) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0 ? program : "";
  std::vector<std::string> directories;
  if (const char* path = std::getenv("PATH")) directories = split(path, ':');
  directories.insert(directories.end(), extra_directories.begin(), extra_directories.end());
  for (const std::string& directory : directories) {
    if (directory.empty()) continue;
    const std::string candidate = join_path(directory, program);
    if (::access(candidate.c_str(), X_OK) == 0 && !is_directory(candidate)) return candidate;
  }
  return "";
}

std::string shell_quote(const std::string& argument) {
  if (!argument.empty() && argument.find_first_of(" \t\n'\"\\$`*?[]{}()<>|&;#~!") == std::string::npos) return argument;
  std::string quoted = "'";
  for (char c : argument) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string describe_command(const std::vector<std::string>& argv) {
  std::vector<std::string> quoted;
  for (const std::string& arg : argv) quoted.push_back(shell_quote(arg));
  return join(quoted, " ");
}

}  // namespace wbcli
