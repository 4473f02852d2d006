// SPDX-License-Identifier: MIT
#include "tools/workbook/progress.h"

#include <cctype>
#include <cstdio>

#include "tools/workbook/text.h"

namespace wbcli {

const char* state_name(ExerciseState state) {
  switch (state) {
    case ExerciseState::Done:
      return "done";
    case ExerciseState::Failing:
      return "failing";
    default:
      return "not started";
  }
}

ExerciseProgress Progress::get(const std::string& id) const {
  const auto found = exercises.find(id);
  return found == exercises.end() ? ExerciseProgress{} : found->second;
}

void Progress::record_check(const std::string& id, bool passed, const std::string& when) {
  ExerciseProgress& entry = exercises[id];
  entry.state = passed ? ExerciseState::Done : ExerciseState::Failing;
  entry.checked_at = when;
}

void Progress::record_ungraded(const std::string& id) {
  const auto found = exercises.find(id);
  if (found != exercises.end() && found->second.state == ExerciseState::Failing)
    found->second.state = ExerciseState::NotStarted;
}

void Progress::record_speed(const std::string& id, const std::string& text, double score) {
  ExerciseProgress& entry = exercises[id];
  if (score > entry.best_score) {
    entry.best_score = score;
    entry.best = text;
  }
}

void Progress::forget(const std::string& id) {
  exercises.erase(id);
}

std::string serialize_progress(const Progress& progress) {
  std::string text =
      "# workbook progress, written by the workbook tool from your graded runs. Do not edit; delete this\n"
      "# file to start over. Columns: exercise id, state, last checked (UTC), best score, best speed.\n";
  for (const auto& [id, entry] : progress.exercises) {
    const char* state = entry.state == ExerciseState::Done      ? "done"
                        : entry.state == ExerciseState::Failing ? "failing"
                                                                : "";
    if (*state == '\0' && entry.best.empty()) continue;
    char score[32];
    std::snprintf(score, sizeof score, "%.2f", entry.best_score);
    text += "check\t" + id + "\t" + (*state ? state : "not-started") + "\t" + entry.checked_at + "\t" + score + "\t" +
            entry.best + "\n";
  }
  for (const auto& [id, shown] : progress.hints_shown) text += "hints\t" + id + "\t" + std::to_string(shown) + "\n";
  return text;
}

Progress parse_progress(const std::string& text) {
  Progress progress;
  for (const std::string& line : split_lines(text)) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> f = split(line, '\t');
    if (f[0] == "check" && f.size() >= 6) {
      ExerciseProgress entry;
      if (f[2] == "done")
        entry.state = ExerciseState::Done;
      else if (f[2] == "failing")
        entry.state = ExerciseState::Failing;
      entry.checked_at = f[3];
      entry.best_score = parse_number(f[4]).value_or(-1);
      entry.best = f[5];
      progress.exercises[f[1]] = entry;
    } else if (f[0] == "hints" && f.size() >= 3) {
      progress.hints_shown[f[1]] = static_cast<int>(parse_number(f[2]).value_or(0));
    }
  }
  return progress;
}

std::string state_dir(const std::string& build_dir) {
  return join_path(build_dir, "workbook-state");
}
std::string progress_path(const std::string& build_dir) {
  return join_path(state_dir(build_dir), "progress.tsv");
}

Progress load_progress(const std::string& build_dir) {
  const std::optional<std::string> text = read_file(progress_path(build_dir));
  return text ? parse_progress(*text) : Progress{};
}

bool save_progress(const std::string& build_dir, const Progress& progress) {
  return write_file(progress_path(build_dir), serialize_progress(progress));
}

const Exercise* next_exercise(const Manifest& manifest, const Progress& progress, int gpu_cc) {
  for (const Exercise& exercise : manifest.exercises)
    if (progress.get(exercise.id).state != ExerciseState::Done && exercise.runs_on(gpu_cc)) return &exercise;
  return nullptr;
}

std::vector<PhaseSummary> summarize_phases(const Manifest& manifest, const Progress& progress) {
  std::vector<PhaseSummary> summaries;
  for (int phase : manifest.phases()) {
    PhaseSummary summary;
    summary.phase = phase;
    double best_score = -1;
    for (const Exercise* exercise : manifest.in_phase(phase)) {
      const ExerciseProgress entry = progress.get(exercise->id);
      if (entry.state == ExerciseState::Done)
        ++summary.done;
      else if (entry.state == ExerciseState::Failing)
        ++summary.failing;
      else
        ++summary.not_started;
      if (entry.best_score > best_score && !entry.best.empty()) {
        best_score = entry.best_score;
        summary.best = exercise->id + " " + entry.best;
      }
    }
    summaries.push_back(summary);
  }
  return summaries;
}

std::vector<std::string> answers_held_from(const std::string& stub_text) {
  std::vector<std::string> ids;
  for (const std::string& line : split_lines(stub_text)) {
    if (line.rfind("// Holds ", 0) != 0) continue;
    const std::string named = line.substr(0, line.find(':'));
    // An id is a digit, a dot and two digits (1.11), followed by "'s".
    for (std::size_t at = named.find("'s"); at != std::string::npos; at = named.find("'s", at + 2))
      if (at >= 4 && std::isdigit(static_cast<unsigned char>(named[at - 4])) && named[at - 3] == '.' &&
          std::isdigit(static_cast<unsigned char>(named[at - 2])) &&
          std::isdigit(static_cast<unsigned char>(named[at - 1])))
        ids.push_back(named.substr(at - 4, 4));
    break;
  }
  return ids;
}

std::string held_answer_warning(const std::string& id, const std::string& stub_text, const Progress& progress) {
  std::string unsolved;
  for (const std::string& earlier : answers_held_from(stub_text))
    if (earlier != id && progress.get(earlier).state != ExerciseState::Done)
      unsolved += (unsolved.empty() ? "" : " and ") + earlier;
  if (unsolved.empty()) return "";
  return "Note: " + id + "'s file holds the answer to " + unsolved + ", not passed yet here. Solve " + unsolved +
         " first (./workbook check), or read on knowing that this file gives that answer away.";
}

}  // namespace wbcli
