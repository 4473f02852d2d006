// SPDX-License-Identifier: MIT
// Reset: the pristine copy comes from the configure-time snapshot (or git), never the solution;
// an unchanged file is left alone, a declined reset changes nothing.
#include "tools/workbook/reset.h"

#include <unistd.h>

#include <cstdlib>

#include "common/catch.h"
#include "tools/workbook/text.h"

TEST_CASE("reset restores the snapshot only when confirmed", "[host][workbook]") {
  char dir[] = "/tmp/workbook-reset-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string source = std::string(dir) + "/src", build = std::string(dir) + "/build";
  const std::string stub = "phase0_basics/02_vector_add.cu";
  REQUIRE(wbcli::write_file(wbcli::snapshot_path(build, stub), "// TODO(0.02): write the kernel\n"));
  REQUIRE(wbcli::write_file(source + "/" + stub, "// my answer\n"));

  wbcli::ResetPlan plan = wbcli::plan_reset(source, build, stub);
  REQUIRE(plan.pristine.content.has_value());
  CHECK(plan.pristine.origin.find("snapshot") != std::string::npos);
  CHECK(plan.differs);
  std::string error;
  CHECK(wbcli::apply_reset(plan, false, &error) == wbcli::ResetOutcome::Declined);
  CHECK(*wbcli::read_file(source + "/" + stub) == "// my answer\n");
  CHECK(wbcli::apply_reset(plan, true, &error) == wbcli::ResetOutcome::Restored);
  CHECK(*wbcli::read_file(source + "/" + stub) == "// TODO(0.02): write the kernel\n");

  plan = wbcli::plan_reset(source, build, stub);
  CHECK_FALSE(plan.differs);
  CHECK(wbcli::apply_reset(plan, true, &error) == wbcli::ResetOutcome::AlreadyPristine);
}

TEST_CASE("a deleted exercise file is restored too", "[host][workbook]") {
  char dir[] = "/tmp/workbook-reset-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string source = std::string(dir) + "/src", build = std::string(dir) + "/build";
  REQUIRE(wbcli::write_file(wbcli::snapshot_path(build, "p/01_x.cu"), "stub\n"));
  const wbcli::ResetPlan plan = wbcli::plan_reset(source, build, "p/01_x.cu");
  CHECK(plan.differs);
  std::string error;
  CHECK(wbcli::apply_reset(plan, true, &error) == wbcli::ResetOutcome::Restored);
  CHECK(*wbcli::read_file(source + "/p/01_x.cu") == "stub\n");
}

TEST_CASE("without a snapshot or git, reset says where it looked", "[host][workbook]") {
  char dir[] = "/tmp/workbook-reset-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const wbcli::ResetPlan plan = wbcli::plan_reset(dir, dir, "p/01_x.cu");
  CHECK_FALSE(plan.pristine.content.has_value());
  CHECK(plan.pristine.error.find("no pristine copy of p/01_x.cu") != std::string::npos);
  std::string error;
  CHECK(wbcli::apply_reset(plan, true, &error) == wbcli::ResetOutcome::Failed);
  CHECK_FALSE(error.empty());
}

TEST_CASE("in a git checkout without a snapshot, reset uses the committed file", "[host][workbook]") {
  char dir[] = "/tmp/workbook-reset-git-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string source = dir;
  REQUIRE(wbcli::write_file(source + "/p/01_x.cu", "committed stub\n"));
  const std::string git = "git -C " + source + " -c user.name=t -c user.email=t@t ";
  if (std::system((git + "init -q && " + git + "add p/01_x.cu && " + git + "commit -qm stub").c_str()) != 0) {
    WARN("git is not usable here: the git fallback is not tested");
    return;
  }
  REQUIRE(wbcli::write_file(source + "/p/01_x.cu", "edited\n"));
  const wbcli::ResetPlan plan = wbcli::plan_reset(source, source + "/no-build", "p/01_x.cu");
  REQUIRE(plan.pristine.content.has_value());
  CHECK(plan.pristine.origin == "git HEAD");
  CHECK(*plan.pristine.content == "committed stub\n");
  CHECK(plan.differs);
}
