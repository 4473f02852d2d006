// SPDX-License-Identifier: MIT
#include "tools/workbook/manifest.h"

#include <algorithm>

#include "common/arch_requirement.h"
#include "tools/workbook/args.h"
#include "tools/workbook/text.h"

namespace wbcli {

std::string Exercise::phase_dir() const {
  return parent_directory(stub);
}

bool Exercise::runs_on(int cc) const {
  return cc <= 0 || wb::arch_requirement_met(arch_requirement, cc);
}

std::vector<std::string> unsupported_exercises(const Manifest& manifest, int cc) {
  std::vector<std::string> sentences;
  for (const char* requirement : {"80", "90a"}) {
    std::vector<std::string> names;
    for (const Exercise& exercise : manifest.exercises)
      if (exercise.arch_requirement == requirement && !exercise.runs_on(cc))
        names.push_back(exercise.id + " " + exercise.name);
    if (names.empty()) continue;
    std::string list = names.front();
    for (std::size_t i = 1; i < names.size(); ++i) list += (i + 1 == names.size() ? " and " : ", ") + names[i];
    sentences.push_back("sm_" + std::to_string(cc) + " cannot run " + list + ": " +
                        (names.size() == 1 ? "it needs " : "they need ") + wb::arch_requirement_text(requirement) +
                        ".");
  }
  return sentences;
}

const Exercise* Manifest::find(const std::string& id) const {
  for (const Exercise& exercise : exercises)
    if (exercise.id == id) return &exercise;
  return nullptr;
}

std::vector<int> Manifest::phases() const {
  std::vector<int> phases;
  for (const Exercise& exercise : exercises)
    if (std::find(phases.begin(), phases.end(), exercise.phase) == phases.end()) phases.push_back(exercise.phase);
  std::sort(phases.begin(), phases.end());
  return phases;
}

std::vector<const Exercise*> Manifest::in_phase(int phase) const {
  std::vector<const Exercise*> found;
  for (const Exercise& exercise : exercises)
    if (exercise.phase == phase) found.push_back(&exercise);
  return found;
}

std::string manifest_path(const std::string& build_dir) {
  return join_path(build_dir, "workbook_exercises.tsv");
}

const std::vector<std::string> kRegistryColumns = {"id",         "name",         "title",           "stub",
                                                   "solution",   "learner_test", "learner_lesson",  "fails_with",
                                                   "smoke_args", "target",       "solution_lesson", "solution_test",
                                                   "hints",      "readme",       "bench_target",    "bench",
                                                   "requires"};

namespace {

// What is wrong with the registry's header row: a column named twice, or one the tool reads missing; "" if
// nothing.
std::string header_error(const std::vector<std::string>& header) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (std::find(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(i), header[i]) !=
        header.begin() + static_cast<std::ptrdiff_t>(i))
      return "column '" + header[i] + "' is named twice";
  for (const std::string& name : kRegistryColumns)
    if (std::find(header.begin(), header.end(), name) == header.end())
      return "the header row has no column '" + name + "' (reconfigure the build to write the registry again)";
  return "";
}

}  // namespace

ManifestResult parse_manifest(const std::string& text) {
  Manifest manifest;
  std::vector<std::string> header;  // the column names, in the file's order
  int line_number = 0;
  for (const std::string& line : split_lines(text)) {
    ++line_number;
    if (line.empty()) continue;
    const std::vector<std::string> f = split(line, '\t');
    const std::string where = "registry line " + std::to_string(line_number) + ": ";
    if (header.empty()) {
      header = f;
      if (const std::string error = header_error(header); !error.empty()) return {std::nullopt, where + error};
      continue;
    }
    if (f.size() != header.size())
      return {std::nullopt, where + "expected " + std::to_string(header.size()) + " tab-separated columns, got " +
                                std::to_string(f.size())};
    auto column = [&f, &header](const std::string& name) {
      return f[static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin())];
    };
    Exercise e;
    e.id = column("id");
    if (!is_exercise_id(e.id)) return {std::nullopt, where + "'" + e.id + "' is not an exercise id"};
    if (manifest.find(e.id) != nullptr) return {std::nullopt, where + "exercise " + e.id + " is listed twice"};
    e.name = column("name");
    e.title = column("title");
    e.stub = column("stub");
    e.solution = column("solution");
    e.learner_test = column("learner_test");
    e.learner_lesson = column("learner_lesson");
    e.fails_with = column("fails_with");
    e.smoke_args = column("smoke_args");
    e.phase = e.id[0] - '0';
    e.target = column("target");
    e.solution_lesson = column("solution_lesson");
    e.solution_test = column("solution_test");
    e.hints = column("hints");
    e.readme = column("readme");
    e.bench_target = column("bench_target");
    e.bench = column("bench");
    e.arch_requirement = column("requires");
    if (!wb::is_arch_requirement(e.arch_requirement))
      return {std::nullopt, where + "unknown GPU requirement '" + e.arch_requirement + "' (expected 80 or 90a)"};
    manifest.exercises.push_back(e);
  }
  if (manifest.exercises.empty()) return {std::nullopt, "the exercise registry lists no exercises"};
  std::stable_sort(manifest.exercises.begin(), manifest.exercises.end(),
                   [](const Exercise& a, const Exercise& b) { return a.id < b.id; });
  return {manifest, ""};
}

ManifestResult load_manifest(const std::string& build_dir) {
  const std::string path = manifest_path(build_dir);
  const std::optional<std::string> text = read_file(path);
  if (!text)
    return {std::nullopt, "no exercise registry at " + path +
                              ": the build is not configured there (run ./workbook from the repository root, "
                              "or pass --build-dir)"};
  ManifestResult result = parse_manifest(*text);
  if (!result.manifest) result.error = path + ": " + result.error;
  return result;
}

}  // namespace wbcli
