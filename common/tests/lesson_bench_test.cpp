// SPDX-License-Identifier: MIT
// The phase benchmarks' driver (common/lesson_bench.h) with stand-in lessons that report lines without a
// GPU: which lesson takes which shape, what becomes a SKIP or FAIL row, the benchmark's filter, the
// requirement of a lesson's exercise, and the registry's order.
#include "common/lesson_bench.h"

#include <string>
#include <vector>

#include "common/gpu.h"
#include "common/testing.h"

namespace {

wb::ResultLine line_for(const wb::Lesson& lesson, const std::string& launcher, bool pass) {
  wb::ResultLine line;
  line.id = lesson.id();
  line.name = launcher;
  line.problem = lesson.options().size;
  line.time.median_ms = 1.0;
  line.time.samples = lesson.options().repeat;
  line.rate = 100;
  line.bytes = 1e8;
  line.pass = pass;
  return line;
}

// Reads a count: "16M" is its, "4x4" is not.
int count_lesson(wb::Lesson& lesson) {
  lesson.size_or(1);
  lesson.report(line_for(lesson, "count_kernel", true));
  lesson.report(line_for(lesson, "count_kernel_extra", true));
  return wb::kExitPass;
}

// Reads RxC, and names its dtype.
int matrix_lesson(wb::Lesson& lesson) {
  lesson.dims_or({1, 1});
  wb::ResultLine line = line_for(lesson, "matrix_kernel", true);
  line.dtype = "bf16";
  lesson.report(line);
  return wb::kExitPass;
}

// Refuses every shape with a reason of its own.
int refusing_lesson(wb::Lesson& lesson) {
  throw wb::UsageError("matrix_ell cannot run on " + lesson.options().size + ": the padding explodes");
}

// Fails on a count without a FAIL line (its yardstick was wrong), and with one on RxC.
int failing_lesson(wb::Lesson& lesson) {
  if (lesson.options().size.find('x') == std::string::npos) {
    lesson.report(line_for(lesson, "failing_kernel", true));
  } else {
    lesson.report(line_for(lesson, "failing_kernel", false));
  }
  return wb::kExitFail;
}

// Notes a check failure, then refuses the shape before any result line.
int noting_then_refusing_lesson(wb::Lesson& lesson) {
  wb::note_check_failure("stale_kernel", "element 7 differs");
  throw wb::UsageError("stale cannot run on " + lesson.options().size);
}

wb::LessonRegistration lesson(wb::LessonFn fn, const char* id, const char* name, const char* arch = "") {
  return wb::LessonRegistration{fn, id, name, "solution", "a stand-in", arch};
}

struct Ran {
  wb::BenchTable table{"stand-in GPU"};
  std::vector<std::string> printed;
};

void run(Ran& ran, const std::vector<wb::LessonRegistration>& lessons, const std::string& size) {
  wb::LessonBench bench;
  bench.repeat = 7;
  bench.keep = [](const wb::ResultRow& row, const wb::LessonShape&) { return row.launcher != "count_kernel_extra"; };
  bench.print = [&ran](const wb::ResultRow& row) { ran.printed.push_back(row.id + " " + row.launcher); };
  wb::run_lessons(bench, lessons, wb::LessonShape{size, "", nullptr}, wb::DeviceInfo{}, ran.table);
}

}  // namespace

TEST_CASE("each shape goes to the lessons that read its form, and their rows become the table's",
          "[host][lesson-bench]") {
  const std::vector<wb::LessonRegistration> lessons = {lesson(count_lesson, "9.01", "counts"),
                                                       lesson(matrix_lesson, "9.02", "matrices")};
  Ran ran;
  run(ran, lessons, "16M");
  run(ran, lessons, "4x4");
  const std::vector<wb::ResultRow>& rows = ran.table.rows();
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].id == "9.01");
  CHECK(rows[0].launcher == "count_kernel");  // count_kernel_extra: left out by the benchmark's filter
  CHECK(rows[0].shape == "16M");
  CHECK(rows[0].dtype == "fp32");  // the benchmark's, where the lesson names none
  CHECK(rows[0].variant == "solution");
  CHECK(rows[0].device == "stand-in GPU");
  CHECK(rows[0].bytes == 1e8);
  CHECK(rows[0].status == "PASS");
  CHECK(rows[1].id == "9.02");
  CHECK(rows[1].shape == "4x4");
  CHECK(rows[1].dtype == "bf16");
  CHECK(ran.printed == std::vector<std::string>{"9.01 count_kernel", "9.02 matrix_kernel"});
  CHECK(ran.table.all_pass());
}

TEST_CASE("a lesson that refuses a shape gets a SKIP row with its reason, one that fails silently a FAIL row",
          "[host][lesson-bench]") {
  const std::vector<wb::LessonRegistration> lessons = {lesson(refusing_lesson, "9.03", "ell"),
                                                       lesson(failing_lesson, "9.04", "failing")};
  Ran ran;
  run(ran, lessons, "16M");
  const std::vector<wb::ResultRow>& rows = ran.table.rows();
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].id == "9.03");
  CHECK(rows[0].status == "SKIP");
  CHECK(rows[0].launcher == "ell");
  CHECK(rows[0].note == "matrix_ell cannot run on 16M: the padding explodes");
  CHECK_FALSE(rows[0].timed);
  CHECK(rows[1].status == "PASS");  // its line passed ...
  CHECK(rows[2].status == "FAIL");  // ... and the lesson did not: the table says so
  CHECK(rows[2].note.find("exit 1") != std::string::npos);
  CHECK_FALSE(ran.table.all_pass());

  Ran with_line;
  run(with_line, {lesson(failing_lesson, "9.04", "failing")}, "4x4");
  REQUIRE(with_line.table.rows().size() == 1);  // its own FAIL line says it all
  CHECK(with_line.table.rows()[0].status == "FAIL");
}

TEST_CASE("a benchmark runs the lessons of its phase that the GPU can run", "[host][lesson-bench]") {
  const std::vector<wb::LessonRegistration> lessons = {
      lesson(count_lesson, "8.01", "other_phase"), lesson(count_lesson, "9.01", "plain"),
      lesson(count_lesson, "9.02", "ampere", "80"), lesson(count_lesson, "9.03", "hopper", "90a")};
  auto ids = [](const std::vector<wb::LessonRegistration>& runnable) {
    std::vector<std::string> out;
    for (const wb::LessonRegistration& l : runnable) out.push_back(l.id);
    return out;
  };
  CHECK(ids(wb::runnable_phase_lessons(lessons, 9, 90)) == std::vector<std::string>{"9.01", "9.02", "9.03"});
  CHECK(ids(wb::runnable_phase_lessons(lessons, 9, 89)) == std::vector<std::string>{"9.01", "9.02"});
  CHECK(ids(wb::runnable_phase_lessons(lessons, 9, 75)) == std::vector<std::string>{"9.01"});
  CHECK_THROWS(wb::runnable_phase_lessons(lessons, 7, 90));  // none of the phase linked in
}

namespace {
// Registered out of order, as object files may be linked.
const wb::LessonRegistrar later(count_lesson, "9.12", "later", "solution", "registered first", "");
const wb::LessonRegistrar earlier(matrix_lesson, "9.11", "earlier", "solution", "registered second", "90a");
}  // namespace

TEST_CASE("the registry lists every linked lesson in id order, with its exercise's requirement",
          "[host][lesson-bench]") {
  std::vector<wb::LessonRegistration> mine;
  for (const wb::LessonRegistration& l : wb::registered_lessons())
    if (l.id == "9.11" || l.id == "9.12") mine.push_back(l);
  REQUIRE(mine.size() == 2);
  CHECK(mine[0].id == "9.11");
  CHECK(mine[0].requires_arch == "90a");
  CHECK(mine[1].id == "9.12");
  CHECK(mine[1].fn == count_lesson);
}

TEST_CASE("a check failure one lesson noted does not become the next lesson's failure", "[host][lesson-bench]") {
  Ran ran;
  run(ran, {lesson(noting_then_refusing_lesson, "9.05", "stale"), lesson(failing_lesson, "9.06", "failing")}, "4x4");
  const std::vector<wb::ResultRow>& rows = ran.table.rows();
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].status == "SKIP");
  CHECK(rows[1].status == "FAIL");
  CHECK(rows[1].note.find("stale_kernel") == std::string::npos);
}
