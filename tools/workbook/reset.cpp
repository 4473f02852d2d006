// SPDX-License-Identifier: MIT
#include "tools/workbook/reset.h"

#include "tools/workbook/runner.h"
#include "tools/workbook/text.h"

namespace wbcli {

std::string snapshot_path(const std::string& build_dir, const std::string& relative_stub) {
  return join_path(build_dir, "workbook-state/pristine/" + relative_stub);
}

PristineSource find_pristine(const std::string& source_dir, const std::string& build_dir,
                             const std::string& relative_stub) {
  PristineSource source;
  if (std::optional<std::string> snapshot = read_file(snapshot_path(build_dir, relative_stub))) {
    source.content = std::move(snapshot);
    source.origin = "the snapshot taken when the build was first configured";
    return source;
  }
  if (is_directory(join_path(source_dir, ".git")) || file_exists(join_path(source_dir, ".git"))) {
    const ProcessResult shown = run_process({"git", "-C", source_dir, "show", "HEAD:" + relative_stub}, RunOptions{});
    if (shown.exit_code == 0) {
      source.content = shown.output;
      source.origin = "git HEAD";
      return source;
    }
  }
  source.error = "no pristine copy of " + relative_stub + ": neither a snapshot at " +
                 snapshot_path(build_dir, relative_stub) + " nor a committed version in git";
  return source;
}

ResetPlan plan_reset(const std::string& source_dir, const std::string& build_dir, const std::string& relative_stub) {
  ResetPlan plan;
  plan.path = join_path(source_dir, relative_stub);
  plan.pristine = find_pristine(source_dir, build_dir, relative_stub);
  if (plan.pristine.content) {
    const std::optional<std::string> current = read_file(plan.path);
    plan.differs = !current || *current != *plan.pristine.content;
  }
  return plan;
}

ResetOutcome apply_reset(const ResetPlan& plan, bool confirmed, std::string* error) {
  if (!plan.pristine.content) {
    *error = plan.pristine.error;
    return ResetOutcome::Failed;
  }
  if (!plan.differs) return ResetOutcome::AlreadyPristine;
  if (!confirmed) return ResetOutcome::Declined;
  if (!write_file(plan.path, *plan.pristine.content)) {
    *error = "cannot write " + plan.path;
    return ResetOutcome::Failed;
  }
  return ResetOutcome::Restored;
}

}  // namespace wbcli
