// SPDX-License-Identifier: MIT
// The workbook command line: verbs, ids, options, and the usage errors that must exit 2.
#include "tools/workbook/args.h"

#include "common/catch.h"

using wbcli::Command;
using wbcli::parse_command_line;
using wbcli::Verb;

namespace {
Command parsed(const std::vector<std::string>& args) {
  const wbcli::ParsedCommand result = parse_command_line(args);
  INFO("error: " << result.error);
  REQUIRE(result.command.has_value());
  return *result.command;
}
std::string error_of(const std::vector<std::string>& args) {
  const wbcli::ParsedCommand result = parse_command_line(args);
  REQUIRE_FALSE(result.command.has_value());
  REQUIRE_FALSE(result.error.empty());
  return result.error;
}
}  // namespace

TEST_CASE("no verb shows the status; help and -h print the usage", "[host][workbook]") {
  CHECK(parsed({}).verb == Verb::Status);
  CHECK(parsed({"help"}).verb == Verb::Help);
  CHECK(parsed({"-h"}).verb == Verb::Help);
  CHECK(parsed({"check", "--help"}).verb == Verb::Help);
  CHECK(wbcli::usage_text().find("check [N.NN] [--fast]") != std::string::npos);
}

TEST_CASE("verbs take exercise ids and their own options", "[host][workbook]") {
  const Command check = parsed({"check", "0.02", "--fast"});
  CHECK(check.verb == Verb::Check);
  CHECK(check.exercise == "0.02");
  CHECK(check.fast);
  CHECK_FALSE(parsed({"check", "0.02"}).fast);  // the sanitizer runs are part of the default check
  CHECK(parsed({"check", "--fast"}).fast);      // every exercise, graded tests only
  CHECK(parsed({"check"}).exercise.empty());
  CHECK(parsed({"solution", "1.03", "--force"}).force);
  const Command reset_all = parsed({"reset", "--all", "--yes"});
  CHECK(reset_all.all);
  CHECK(reset_all.yes);
  CHECK(parsed({"hint"}).verb == Verb::Hint);
  CHECK(parsed({"watch", "0.10"}).exercise == "0.10");
  CHECK(parsed({"profile", "1.07"}).verb == Verb::Profile);
  CHECK(parsed({"doctor"}).verb == Verb::Doctor);
}

TEST_CASE("run and bench pass everything after -- through", "[host][workbook]") {
  const Command run = parsed({"run", "0.02", "--", "--size", "16M", "--help"});
  CHECK(run.verb == Verb::Run);
  REQUIRE(run.passthrough.size() == 3);
  CHECK(run.passthrough[0] == "--size");
  CHECK(run.passthrough[2] == "--help");  // the lesson's --help, not ours
  const Command bench = parsed({"bench", "phase1", "--", "--sizes", "1024"});
  CHECK(bench.phase == 1);
  CHECK(bench.passthrough.size() == 2);
  CHECK(parsed({"bench", "1.03"}).exercise == "1.03");
  CHECK(parsed({"bench", "p2"}).phase == 2);
}

TEST_CASE("--build-dir is accepted anywhere", "[host][workbook]") {
  CHECK(parsed({"--build-dir", "/tmp/b", "list"}).build_dir == "/tmp/b");
  CHECK(parsed({"list", "--build-dir=/tmp/c"}).build_dir == "/tmp/c");
  CHECK(error_of({"list", "--build-dir"}).find("needs a directory") != std::string::npos);
}

TEST_CASE("usage errors name what is wrong", "[host][workbook]") {
  CHECK(error_of({"frobnicate"}).find("unknown command 'frobnicate'") != std::string::npos);
  CHECK(error_of({"frobnicate"}).find("did you mean") == std::string::npos);  // nothing close
  CHECK(error_of({"chek"}).find("did you mean ./workbook check?") != std::string::npos);
  CHECK(error_of({"hnit"}).find("did you mean ./workbook hint?") != std::string::npos);
  CHECK(error_of({"run", "0.01", "--size"}).find("./workbook run 0.01 -- --size 16M") != std::string::npos);
  CHECK(error_of({"run"}).find("needs an exercise id") != std::string::npos);
  CHECK(error_of({"check", "2"}).find("not an exercise id") != std::string::npos);
  CHECK(error_of({"check", "0.1"}).find("not an exercise id") != std::string::npos);
  CHECK(error_of({"check", "0.01", "0.02"}).find("one exercise") != std::string::npos);
  CHECK(error_of({"list", "0.01"}).find("takes no exercise") != std::string::npos);
  CHECK(error_of({"check", "--force"}).find("no option --force") != std::string::npos);
  CHECK(error_of({"check", "0.02", "--sanitize"}).find("no option --sanitize") != std::string::npos);
  CHECK(error_of({"reset"}).find("--all") != std::string::npos);
  CHECK(error_of({"reset", "0.01", "--all"}).find("not both") != std::string::npos);
  CHECK(error_of({"bench"}).find("needs a phase") != std::string::npos);
  CHECK(error_of({"bench", "phaseX"}).find("needs a phase") != std::string::npos);
  CHECK(error_of({"run", "0.02", "--fast"}).find("no option --fast") != std::string::npos);
  CHECK(error_of({"check", "0.01", "--", "x"}).find("no arguments after --") != std::string::npos);
}

TEST_CASE("exercise ids and phase names", "[host][workbook]") {
  CHECK(wbcli::is_exercise_id("0.01"));
  CHECK(wbcli::is_exercise_id("4.12"));
  CHECK_FALSE(wbcli::is_exercise_id("10.01"));
  CHECK_FALSE(wbcli::is_exercise_id("0.1"));
  CHECK_FALSE(wbcli::is_exercise_id("a.bc"));
  CHECK(wbcli::parse_phase("phase3") == 3);
  CHECK(wbcli::parse_phase("p0") == 0);
  CHECK_FALSE(wbcli::parse_phase("phase").has_value());
  CHECK_FALSE(wbcli::parse_phase("phase12").has_value());
}
