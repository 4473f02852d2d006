// SPDX-License-Identifier: MIT
// Progress derived from test results: each graded run the tool makes is recorded under the build
// directory (workbook-state/progress.tsv), never in a source file. Delete the file to start over.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tools/workbook/manifest.h"

namespace wbcli {

enum class ExerciseState { NotStarted, Failing, Done };

struct ExerciseProgress {
  ExerciseState state = ExerciseState::NotStarted;
  std::string checked_at;  // UTC time of the last graded run
  std::string best;        // best measured speed, e.g. "vector_add_float4 2900 GB/s, 97% of memcpy"
  double best_score = -1;  // what "best" compares: % of the library (or of peak); -1 = none yet
};

struct Progress {
  std::map<std::string, ExerciseProgress> exercises;
  std::map<std::string, int> hints_shown;  // how many hint tiers each exercise has revealed

  ExerciseProgress get(const std::string& id) const;
  // Records a graded run. A pass keeps the best speed seen so far; a failure keeps it too (the
  // exercise was solved once) but the state says failing until the next pass.
  void record_check(const std::string& id, bool passed, const std::string& when);
  // The file compiles but could not be graded here (no GPU): an earlier failure is no longer known
  // to hold, so the exercise is "not started" again (a pass stays a pass).
  void record_ungraded(const std::string& id);
  void record_speed(const std::string& id, const std::string& text, double score);
  // Drops the graded results (after a reset they describe a file that no longer exists); hints
  // already read stay read.
  void forget(const std::string& id);
};

std::string serialize_progress(const Progress& progress);
Progress parse_progress(const std::string& text);  // tolerant: unknown or broken lines are skipped

std::string state_dir(const std::string& build_dir);  // <build>/workbook-state
std::string progress_path(const std::string& build_dir);
Progress load_progress(const std::string& build_dir);
bool save_progress(const std::string& build_dir, const Progress& progress);

// The first exercise, in course order, that is not done and that a GPU of compute capability gpu_cc
// (major * 10 + minor) can run: 1.11-1.14 are passed over on an sm_89. gpu_cc 0: the GPU is unknown,
// nothing is passed over. nullptr when all are done.
const Exercise* next_exercise(const Manifest& manifest, const Progress& progress, int gpu_cc = 0);

struct PhaseSummary {
  int phase = 0;
  int done = 0, failing = 0, not_started = 0;
  std::string best;  // the best speed recorded in this phase, with its exercise id
};
std::vector<PhaseSummary> summarize_phases(const Manifest& manifest, const Progress& progress);

const char* state_name(ExerciseState state);

// A stub may carry earlier rungs' answers as given code; its header then says so in one line that
// starts "// Holds", names the rungs before its colon and says to solve them first, e.g.
// "// Holds 1.11's and 1.12's answers: solve them first ...". The ids it names, or none.
std::vector<std::string> answers_held_from(const std::string& stub_text);
// The warning to print before running, watching or hinting an exercise whose stub holds the answer of a
// rung that progress does not show as passed; empty when there is nothing to warn about.
std::string held_answer_warning(const std::string& id, const std::string& stub_text, const Progress& progress);

}  // namespace wbcli
