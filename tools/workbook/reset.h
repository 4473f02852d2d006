// SPDX-License-Identifier: MIT
// Restoring an exercise file to its pristine stub. The pristine copy comes from the snapshot the
// build took when it was first configured (<build>/workbook-state/pristine/<path>), else from the
// committed file in git (git show HEAD:<path>), so reset never depends on the solution.
#pragma once

#include <optional>
#include <string>

namespace wbcli {

struct PristineSource {
  std::optional<std::string> content;
  std::string origin;  // "the snapshot taken at configure time" or "git HEAD"
  std::string error;
};

std::string snapshot_path(const std::string& build_dir, const std::string& relative_stub);
// Looks in the snapshot, then in git (when source_dir is a git checkout and the file is tracked).
PristineSource find_pristine(const std::string& source_dir, const std::string& build_dir,
                             const std::string& relative_stub);

enum class ResetOutcome { AlreadyPristine, Restored, Declined, Failed };

struct ResetPlan {
  std::string path;      // absolute path of the learner's file
  bool differs = false;  // the file exists and differs from the pristine copy
  PristineSource pristine;
};

ResetPlan plan_reset(const std::string& source_dir, const std::string& build_dir, const std::string& relative_stub);
// Writes the pristine copy when `confirmed` (the caller asked, or --yes); files that already match
// are left alone.
ResetOutcome apply_reset(const ResetPlan& plan, bool confirmed, std::string* error);

}  // namespace wbcli
