// SPDX-License-Identifier: MIT
// workbook: the learner's entry point (see tools/README.md). Finds the build and its exercise
// registry, then runs one verb.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
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

using namespace wbcli;

std::string from_environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

// The source tree the build was configured from (CMakeCache.txt knows), unless overridden.
std::string find_source_dir(const std::string& build_dir) {
  std::string dir = from_environment("WORKBOOK_SOURCE_DIR");
  if (!dir.empty()) return dir;
  if (const std::optional<std::string> cache = read_file(join_path(build_dir, "CMakeCache.txt")))
    if (const std::optional<std::string> home = cmake_cache_value(*cache, "CMAKE_HOME_DIRECTORY")) return *home;
  return WB_CLI_SOURCE_DIR;
}

// The build directory: --build-dir, else WORKBOOK_BUILD_DIR, else the build this tool was built in.
std::string choose_build_dir(const Command& command) {
  std::string build_dir = command.build_dir;
  if (build_dir.empty()) build_dir = from_environment("WORKBOOK_BUILD_DIR");
  if (build_dir.empty()) build_dir = WB_CLI_BINARY_DIR;
  return build_dir;
}

// The build and its exercise registry, the learner's progress and whether to colour: what every verb
// but help and doctor needs. Nothing, after saying why, when the build is not there.
std::optional<Context> load_context(const std::string& source_dir, const std::string& build_dir) {
  if (!is_directory(build_dir)) {
    std::fprintf(stderr,
                 "workbook: no build directory at %s.\nRun ./workbook from the repository root (it configures the "
                 "build on first use), or pass --build-dir DIR.\n",
                 build_dir.c_str());
    return std::nullopt;
  }
  ManifestResult loaded = load_manifest(build_dir);
  if (!loaded.manifest) {
    std::fprintf(stderr, "workbook: %s\n", loaded.error.c_str());
    return std::nullopt;
  }
  Context ctx;
  ctx.source_dir = source_dir;
  ctx.build_dir = build_dir;
  ctx.manifest = std::move(*loaded.manifest);
  ctx.progress = load_progress(build_dir);
  ctx.colour = ::isatty(STDOUT_FILENO) && from_environment("NO_COLOR").empty();
  return ctx;
}

// The usage errors only the registry can find: an exercise id or a bench phase this build does not have.
// Returns the exit status for such an error (after saying it), or nothing when the command names what exists.
std::optional<int> check_named_exercise(const Context& ctx, const Command& command, const Exercise** exercise) {
  *exercise = nullptr;
  if (!command.exercise.empty()) {
    *exercise = ctx.manifest.find(command.exercise);
    if (*exercise == nullptr) {
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
  return std::nullopt;
}

// hint without an id: the next exercise's hints, or a word that none is left.
int hint_verb(Context& ctx, const Exercise* exercise) {
  const Exercise* target = exercise ? exercise : next_exercise_here(ctx);
  if (target == nullptr) {
    std::printf("Every exercise is done: no hints needed.\n");
    return kExitOk;
  }
  return command_hint(ctx, *target);
}

// The verbs that act on the loaded registry, and what each runs (commands.h). `exercise` is the one the
// command names, or null where its id is optional and was left out (parse_command_line requires it
// where a verb needs it).
struct VerbAction {
  Verb verb;
  int (*act)(Context& ctx, const Command& command, const Exercise* exercise);
};

constexpr VerbAction kVerbActions[] = {
    {Verb::Status, [](Context& ctx, const Command&, const Exercise*) { return command_status(ctx); }},
    {Verb::List, [](Context& ctx, const Command&, const Exercise*) { return command_list(ctx); }},
    {Verb::Run, [](Context& ctx, const Command& command,
                   const Exercise* exercise) { return command_run(ctx, *exercise, command.passthrough); }},
    {Verb::Check,
     [](Context& ctx, const Command& command, const Exercise* exercise) {
       return exercise ? command_check(ctx, *exercise, command.fast) : command_check_all(ctx, command.fast);
     }},
    {Verb::Hint, [](Context& ctx, const Command&, const Exercise* exercise) { return hint_verb(ctx, exercise); }},
    {Verb::Solution, [](Context& ctx, const Command& command,
                        const Exercise* exercise) { return command_solution(ctx, *exercise, command.force); }},
    {Verb::Watch, [](Context& ctx, const Command&, const Exercise* exercise) { return command_watch(ctx, exercise); }},
    {Verb::Reset, [](Context& ctx, const Command& command,
                     const Exercise* exercise) { return command_reset(ctx, exercise, command.yes); }},
    {Verb::Bench,
     [](Context& ctx, const Command& command, const Exercise* exercise) {
       return command_bench(ctx, command.phase, exercise, command.passthrough);
     }},
    {Verb::Profile,
     [](Context& ctx, const Command&, const Exercise* exercise) { return command_profile(ctx, *exercise); }},
};

}  // namespace

int main(int argc, char** argv) {
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
  const std::string build_dir = choose_build_dir(command);
  const std::string source_dir = find_source_dir(build_dir);
  if (command.verb == Verb::Doctor) return command_doctor(source_dir, build_dir);  // works on a broken build too

  std::optional<Context> ctx = load_context(source_dir, build_dir);
  if (!ctx) return kExitFailed;
  const Exercise* exercise = nullptr;
  if (const std::optional<int> usage_error = check_named_exercise(*ctx, command, &exercise)) return *usage_error;
  for (const VerbAction& action : kVerbActions)
    if (action.verb == command.verb) return action.act(*ctx, command, exercise);
  return kExitUsage;
}
