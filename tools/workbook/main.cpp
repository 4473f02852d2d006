// SPDX-License-Identifier: MIT
// workbook: the learner's entry point (see tools/README.md). Finds the build and its exercise
// registry, then runs one verb.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tools/workbook/args.h"
#include "tools/workbook/commands.h"
#include "tools/workbook/doctor_checks.h"
#include "tools/workbook/text.h"

#ifndef WB_CLI_BINARY_DIR
#define WB_CLI_BINARY_DIR ""
#endif
#ifndef WB_CLI_SOURCE_DIR
#define WB_CLI_SOURCE_DIR ""
#endif

namespace {

std::string from_environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// The source tree the build was configured from (CMakeCache.txt knows), unless overridden.
std::string find_source_dir(const std::string& build_dir) {
  std::string dir = from_environment("WORKBOOK_SOURCE_DIR");
  if (!dir.empty()) return dir;
  if (const std::optional<std::string> cache = wbcli::read_file(wbcli::join_path(build_dir, "CMakeCache.txt")))
    if (const std::optional<std::string> home = wbcli::cmake_cache_value(*cache, "CMAKE_HOME_DIRECTORY")) return *home;
  return WB_CLI_SOURCE_DIR;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace wbcli;
  const ParsedCommand parsed = parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
  if (!parsed.command) {
    std::fprintf(stderr, "workbook: %s\n(./workbook help lists every command.)\n", parsed.error.c_str());
    return kExitUsage;
  }
  const Command& command = *parsed.command;
  if (command.verb == Verb::Help) {
    std::printf("%s", usage_text().c_str());
    return kExitOk;
  }

  std::string build_dir = command.build_dir;
  if (build_dir.empty()) build_dir = from_environment("WORKBOOK_BUILD_DIR");
  if (build_dir.empty()) build_dir = WB_CLI_BINARY_DIR;
  const std::string source_dir = find_source_dir(build_dir);

  if (command.verb == Verb::Doctor) return command_doctor(source_dir, build_dir);

  if (!is_directory(build_dir)) {
    std::fprintf(stderr,
                 "workbook: no build directory at %s.\nRun ./workbook from the repository root (it configures the "
                 "build on first use), or pass --build-dir DIR.\n",
                 build_dir.c_str());
    return kExitFailed;
  }
  ManifestResult loaded = load_manifest(build_dir);
  if (!loaded.manifest) {
    std::fprintf(stderr, "workbook: %s\n", loaded.error.c_str());
    return kExitFailed;
  }

  Context ctx;
  ctx.source_dir = source_dir;
  ctx.build_dir = build_dir;
  ctx.manifest = std::move(*loaded.manifest);
  ctx.progress = load_progress(build_dir);
  ctx.colour = ::isatty(STDOUT_FILENO) && from_environment("NO_COLOR").empty();

  const Exercise* exercise = nullptr;
  if (!command.exercise.empty()) {
    exercise = ctx.manifest.find(command.exercise);
    if (exercise == nullptr) {
      std::fprintf(stderr, "workbook: there is no exercise %s in this build (./workbook list shows them all).\n",
                   command.exercise.c_str());
      return kExitUsage;
    }
  }
  if (command.verb == Verb::Bench && command.phase >= 0 && ctx.manifest.in_phase(command.phase).empty()) {
    std::fprintf(stderr, "workbook: phase %d has no exercises in this build (./workbook list shows them all).\n",
                 command.phase);
    return kExitUsage;
  }

  switch (command.verb) {
    case Verb::Status:
      return command_status(ctx);
    case Verb::List:
      return command_list(ctx);
    case Verb::Run:
      return command_run(ctx, *exercise, command.passthrough);
    case Verb::Check:
      return exercise ? command_check(ctx, *exercise, command.fast) : command_check_all(ctx, command.fast);
    case Verb::Hint: {
      const Exercise* target = exercise ? exercise : next_exercise_here(ctx);
      if (target == nullptr) {
        std::printf("Every exercise is done: no hints needed.\n");
        return kExitOk;
      }
      return command_hint(ctx, *target);
    }
    case Verb::Solution:
      return command_solution(ctx, *exercise, command.force);
    case Verb::Watch:
      return command_watch(ctx, exercise);
    case Verb::Reset:
      return command_reset(ctx, exercise, command.yes);
    case Verb::Bench:
      return command_bench(ctx, command.phase, exercise, command.passthrough);
    case Verb::Profile:
      return command_profile(ctx, *exercise);
    default:
      break;
  }
  return kExitUsage;
}
