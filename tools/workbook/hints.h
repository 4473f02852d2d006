// SPDX-License-Identifier: MIT
// Progressive hints: phaseN_x/hints/NN_name.txt holds three tiers, `concept:` (the idea),
// `where:` (where to look) and `near:` (nearly the answer, never the answer). Each
// `workbook hint` shows one more tier.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace wbcli {

struct HintTier {
  std::string label;  // concept, where, near
  std::string text;
};

struct HintsResult {
  std::vector<HintTier> tiers;  // in file order, which is concept, where, near
  std::string error;
};

// Lines `label: text`; `#` lines are comments; a line that starts with spaces continues the tier above.
HintsResult parse_hints(const std::string& text);

struct HintStep {
  std::vector<HintTier> to_show;  // every tier revealed so far, the new one last
  int shown_after = 0;            // the count to store
  bool all_shown = false;         // no new tier was left
};
// `shown_before` tiers were revealed by earlier calls; this call reveals one more.
HintStep next_hint(const std::vector<HintTier>& tiers, int shown_before);

std::string tier_title(const std::string& label);  // "the idea", "where to look", "nearly the answer"

}  // namespace wbcli
