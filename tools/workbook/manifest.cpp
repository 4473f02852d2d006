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

ManifestResult parse_manifest(const std::string& text) {
  Manifest manifest;
  int line_number = 0;
  for (const std::string& line : split_lines(text)) {
    ++line_number;
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split(line, '\t');
    const std::string where = "registry line " + std::to_string(line_number) + ": ";
    if (f.size() < 8)
      return {std::nullopt, where + "expected at least 8 tab-separated columns, got " + std::to_string(f.size())};
    Exercise e;
    e.id = f[0];
    if (!is_exercise_id(e.id)) return {std::nullopt, where + "'" + e.id + "' is not an exercise id"};
    if (manifest.find(e.id) != nullptr) return {std::nullopt, where + "exercise " + e.id + " is listed twice"};
    e.name = f[1];
    e.stub = f[2];
    e.solution = f[3];
    e.learner_test = f[4];
    e.learner_lesson = f[5];
    e.fails_with = f[6];
    e.smoke_args = f[7];
    e.phase = e.id[0] - '0';
    // The columns after the 8th were appended later; derive what an older registry lacks.
    auto column = [&f](std::size_t i) { return i < f.size() ? f[i] : std::string(); };
    e.target = column(9);
    if (e.target.empty())
      e.target = "p" + std::to_string(e.phase) + "_" + base_name(e.stub).substr(0, base_name(e.stub).size() - 3);
    e.solution_lesson = column(10).empty() ? e.learner_lesson + "_solution" : column(10);
    e.solution_test = column(11);
    if (e.solution_test.empty()) e.solution_test = e.learner_lesson + "_solution_test";
    e.hints = column(12);
    if (e.hints.empty())
      e.hints = join_path(e.phase_dir(), "hints/" + base_name(e.stub).substr(0, base_name(e.stub).size() - 3) + ".txt");
    e.readme = column(13).empty() ? join_path(e.phase_dir(), "README.md") : column(13);
    e.bench_target = column(14);
    e.bench = column(15);
    if (f.size() <= 16) {
      e.sanitizers = {"memcheck"};
    } else {
      for (const std::string& tool : split(column(16), ' '))
        if (!tool.empty() && tool != "none") e.sanitizers.push_back(tool);
    }
    e.arch_requirement = column(17);
    if (!wb::is_arch_requirement(e.arch_requirement))
      return {std::nullopt, where + "unknown GPU requirement '" + e.arch_requirement + "' (expected 80 or 90a)"};
    e.test_timeout_s = static_cast<int>(parse_number(column(18)).value_or(0));
    e.source_check = column(19);
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
