// SPDX-License-Identifier: MIT
// Progress from graded runs: states, best speed, hints seen, the next exercise, the file format.
#include "tools/workbook/progress.h"

#include <unistd.h>

#include "common/catch.h"
#include "tools/workbook/text.h"

namespace {
wbcli::Manifest three_exercises() {
  wbcli::Manifest m;
  for (const char* id : {"0.01", "0.02", "1.01"}) {
    wbcli::Exercise e;
    e.id = id;
    e.name = "x";
    e.phase = id[0] - '0';
    m.exercises.push_back(e);
  }
  return m;
}
}  // namespace

TEST_CASE("graded runs move an exercise from not started to failing to done", "[host][workbook]") {
  wbcli::Progress p;
  CHECK(p.get("0.01").state == wbcli::ExerciseState::NotStarted);
  p.record_check("0.01", false, "t1");
  CHECK(p.get("0.01").state == wbcli::ExerciseState::Failing);
  p.record_check("0.01", true, "t2");
  CHECK(p.get("0.01").state == wbcli::ExerciseState::Done);
  CHECK(p.get("0.01").checked_at == "t2");
}

TEST_CASE("the best speed is kept across runs", "[host][workbook]") {
  wbcli::Progress p;
  p.record_check("0.02", true, "t");
  p.record_speed("0.02", "vector_add 2000 GB/s", 60);
  p.record_speed("0.02", "vector_add 2900 GB/s", 97);
  p.record_speed("0.02", "vector_add 1000 GB/s", 30);
  CHECK(p.get("0.02").best == "vector_add 2900 GB/s");
  CHECK(p.get("0.02").best_score == 97.0);
}

TEST_CASE("the next exercise is the first one not done; phases are summarized", "[host][workbook]") {
  const wbcli::Manifest m = three_exercises();
  wbcli::Progress p;
  CHECK(wbcli::next_exercise(m, p)->id == "0.01");
  p.record_check("0.01", true, "t");
  p.record_check("0.02", false, "t");
  CHECK(wbcli::next_exercise(m, p)->id == "0.02");
  p.record_speed("0.01", "indexing 3000 GB/s", 99);
  const std::vector<wbcli::PhaseSummary> phases = wbcli::summarize_phases(m, p);
  REQUIRE(phases.size() == 2);
  CHECK(phases[0].done == 1);
  CHECK(phases[0].failing == 1);
  CHECK(phases[1].not_started == 1);
  CHECK(phases[0].best == "0.01 indexing 3000 GB/s");
  p.record_check("0.02", true, "t");
  p.record_check("1.01", true, "t");
  CHECK(wbcli::next_exercise(m, p) == nullptr);
}

TEST_CASE("the next exercise passes over rungs this GPU cannot run, unless the GPU is unknown", "[host][workbook]") {
  wbcli::Manifest m;
  wbcli::Exercise mma, wgmma, after;
  mma.id = "1.10";
  mma.arch_requirement = "80";
  wgmma.id = "1.11";
  wgmma.arch_requirement = "90a";
  after.id = "2.01";
  m.exercises = {mma, wgmma, after};
  wbcli::Progress p;
  CHECK(wbcli::next_exercise(m, p)->id == "1.10");      // no GPU known: course order
  CHECK(wbcli::next_exercise(m, p, 89)->id == "1.10");  // an sm_89 runs mma.sync
  p.record_check("1.10", true, "t");
  CHECK(wbcli::next_exercise(m, p, 89)->id == "2.01");  // but not wgmma
  CHECK(wbcli::next_exercise(m, p, 90)->id == "1.11");
  CHECK(wbcli::next_exercise(m, p, 75)->id == "2.01");
  CHECK(wbcli::next_exercise(m, p)->id == "1.11");
}

TEST_CASE("progress survives a round trip through its file and forgets on reset", "[host][workbook]") {
  wbcli::Progress p;
  p.record_check("0.01", true, "2026-11-22T10:00:00Z");
  p.record_speed("0.01", "indexing 3252 GB/s, 97% HBM peak, 109% of memcpy", 109);
  p.record_check("0.02", false, "2026-11-22T11:00:00Z");
  p.hints_shown["0.02"] = 2;
  const std::string text = wbcli::serialize_progress(p);
  CHECK(text.find("Do not edit") != std::string::npos);
  const wbcli::Progress q = wbcli::parse_progress(text + "garbage line\ncheck\tshort\n");
  CHECK(q.get("0.01").state == wbcli::ExerciseState::Done);
  CHECK(q.get("0.01").best == "indexing 3252 GB/s, 97% HBM peak, 109% of memcpy");
  CHECK(q.get("0.01").best_score == 109.0);
  CHECK(q.get("0.02").state == wbcli::ExerciseState::Failing);
  CHECK(q.hints_shown.at("0.02") == 2);

  char dir[] = "/tmp/workbook-progress-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  REQUIRE(wbcli::save_progress(dir, p));
  CHECK(wbcli::file_exists(std::string(dir) + "/workbook-state/progress.tsv"));
  wbcli::Progress loaded = wbcli::load_progress(dir);
  CHECK(loaded.get("0.01").state == wbcli::ExerciseState::Done);
  loaded.forget("0.01");
  CHECK(loaded.get("0.01").state == wbcli::ExerciseState::NotStarted);
  loaded.forget("0.02");
  CHECK(loaded.get("0.02").state == wbcli::ExerciseState::NotStarted);
  CHECK(loaded.hints_shown.at("0.02") == 2);  // hints already read stay read
  CHECK(wbcli::load_progress("/nonexistent").exercises.empty());
}

TEST_CASE("a stub that holds earlier rungs' answers warns until those rungs are passed", "[host][workbook]") {
  const std::string stub =
      "// SPDX-License-Identifier: MIT\n// 1.13 demo: a title.\n//\n"
      "// Holds 1.11's and 1.12's answers: solve them first; 2.07's name after the colon is no id.\n// Run: x\n";
  CHECK(wbcli::answers_held_from(stub) == std::vector<std::string>{"1.11", "1.12"});
  CHECK(wbcli::answers_held_from("// 1.12 demo\n// Run: x\n  // Holds 1.11's answer: indented, no header\n").empty());
  wbcli::Progress p;
  const std::string warning = wbcli::held_answer_warning("1.13", stub, p);
  CHECK(warning.find("1.11 and 1.12") != std::string::npos);
  p.record_check("1.11", true, "t1");
  p.record_check("1.12", false, "t1");
  CHECK(wbcli::held_answer_warning("1.13", stub, p).find("1.12") != std::string::npos);  // failing is not passed
  CHECK(wbcli::held_answer_warning("1.13", stub, p).find("1.11") == std::string::npos);
  p.record_check("1.12", true, "t2");
  CHECK(wbcli::held_answer_warning("1.13", stub, p).empty());
  CHECK(wbcli::held_answer_warning("1.12", "// 1.12 demo\n", wbcli::Progress{}).empty());
}
