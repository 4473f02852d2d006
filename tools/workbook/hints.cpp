// SPDX-License-Identifier: MIT
#include "tools/workbook/hints.h"

#include <algorithm>

#include "tools/workbook/text.h"

namespace wbcli {

HintsResult parse_hints(const std::string& text) {
  HintsResult result;
  for (const std::string& line : split_lines(text)) {
    if (trim(line).empty() || line[0] == '#') continue;
    if ((line[0] == ' ' || line[0] == '\t') && !result.tiers.empty()) {
      result.tiers.back().text += " " + trim(line);
      continue;
    }
    const std::string::size_type colon = line.find(':');
    const std::string label = colon == std::string::npos ? "" : trim(line.substr(0, colon));
    if (label != "concept" && label != "where" && label != "near") {
      result.error = "a hint line must start with concept:, where: or near:, got '" + line.substr(0, 40) + "'";
      return result;
    }
    result.tiers.push_back(HintTier{label, trim(line.substr(colon + 1))});
  }
  if (result.tiers.empty() && result.error.empty()) result.error = "the hints file has no hints";
  return result;
}

HintStep next_hint(const std::vector<HintTier>& tiers, int shown_before) {
  HintStep step;
  const int total = static_cast<int>(tiers.size());
  const int before = std::clamp(shown_before, 0, total);
  step.all_shown = before >= total;
  step.shown_after = step.all_shown ? total : before + 1;
  step.to_show.assign(tiers.begin(), tiers.begin() + step.shown_after);
  return step;
}

std::string tier_title(const std::string& label) {
  if (label == "concept") return "the idea";
  if (label == "where") return "where to look";
  if (label == "near") return "nearly the answer";
  return label;
}

}  // namespace wbcli
