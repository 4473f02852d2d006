// SPDX-License-Identifier: MIT
// The exercise registry build/<preset>/workbook_exercises.tsv, written by workbook_finalize() in
// cmake/WorkbookExercise.cmake from the manifest cmake/exercises.json: a header row of column names, then
// one row per exercise. Columns are found by their header name, never by position.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace wbcli {

struct Exercise {
  std::string id;            // 0.02
  std::string name;          // vector_add
  std::string title;         // the grid-stride loop and float4 (the phase README heading's), or empty
  std::string stub;          // phase0_basics/02_vector_add.cu (relative to the source directory)
  std::string solution;      // solutions/phase0_basics/02_vector_add.cu
  std::string learner_test;  // absolute paths of the four executables
  std::string learner_lesson;
  std::string solution_lesson;
  std::string solution_test;
  std::string fails_with;  // the stub's expected failure text
  std::string smoke_args;  // short lesson arguments
  int phase = -1;
  std::string target;        // p0_02_vector_add: lesson target; _test, _solution, _solution_test follow
  std::string hints;         // phase0_basics/hints/02_vector_add.txt
  std::string readme;        // phase0_basics/README.md
  std::string bench_target;  // the phase benchmark (p1_ladder) or empty
  std::string bench;         // its executable, or empty
  // What the GPU must be (common/arch_requirement.h): "" any the workbook runs on, "80" sm_80 or newer,
  // "90a" Hopper. Its lessons and tests skip elsewhere.
  std::string arch_requirement;

  // Whether a GPU of compute capability `cc` (major * 10 + minor) runs it; cc <= 0 (unknown): true.
  bool runs_on(int cc) const;

  std::string test_target() const { return target + "_test"; }
  std::string solution_target() const { return target + "_solution"; }
  std::string phase_dir() const;  // phase0_basics
};

struct Manifest {
  std::vector<Exercise> exercises;  // in registry order: phases, then numbers

  const Exercise* find(const std::string& id) const;
  std::vector<int> phases() const;
  std::vector<const Exercise*> in_phase(int phase) const;
};

// The columns parse_manifest reads.
extern const std::vector<std::string> kRegistryColumns;

struct ManifestResult {
  std::optional<Manifest> manifest;
  std::string error;
};

// One sentence per requirement this GPU does not meet, e.g. "sm_89 cannot run 1.11 wgmma, 1.12 tma and
// 1.13 warp_specialized: they need a Hopper GPU (sm_90)."; empty when it runs every exercise.
std::vector<std::string> unsupported_exercises(const Manifest& manifest, int cc);

// Parses registry text: the header row names the columns (in any order; unknown ones are ignored), and
// every column the tool reads must be there (kRegistryColumns).
ManifestResult parse_manifest(const std::string& text);
ManifestResult load_manifest(const std::string& build_dir);
std::string manifest_path(const std::string& build_dir);  // the file load_manifest reads

}  // namespace wbcli
