// SPDX-License-Identifier: MIT
// Hint files and their sequencing: concept, then where, then near, then nothing new.
#include "tools/workbook/hints.h"

#include "common/catch.h"

namespace {
const char* kHints =
    "# 0.02 vector_add: hints from the idea to the place to the near-answer\n"
    "concept: A grid-stride loop lets a fixed grid cover any n.\n"
    "where: In vector_add_kernel, loop from the global index\n"
    "  in steps of the whole grid.\n"
    "near: for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)\n";
}

TEST_CASE("a hints file gives three tiers in order; indented lines continue a tier", "[host][workbook]") {
  const wbcli::HintsResult hints = wbcli::parse_hints(kHints);
  REQUIRE(hints.error.empty());
  REQUIRE(hints.tiers.size() == 3);
  CHECK(hints.tiers[0].label == "concept");
  CHECK(hints.tiers[1].text == "In vector_add_kernel, loop from the global index in steps of the whole grid.");
  CHECK(hints.tiers[2].label == "near");
  CHECK(wbcli::tier_title("where") == "where to look");
}

TEST_CASE("each call reveals one more tier, and the last call says so", "[host][workbook]") {
  const std::vector<wbcli::HintTier> tiers = wbcli::parse_hints(kHints).tiers;
  wbcli::HintStep step = wbcli::next_hint(tiers, 0);
  CHECK(step.to_show.size() == 1);
  CHECK(step.to_show.back().label == "concept");
  CHECK_FALSE(step.all_shown);
  step = wbcli::next_hint(tiers, step.shown_after);
  CHECK(step.to_show.back().label == "where");
  step = wbcli::next_hint(tiers, step.shown_after);
  CHECK(step.to_show.back().label == "near");
  CHECK_FALSE(step.all_shown);
  CHECK(step.shown_after == 3);
  step = wbcli::next_hint(tiers, step.shown_after);
  CHECK(step.all_shown);
  CHECK(step.to_show.size() == 3);
  CHECK(wbcli::next_hint(tiers, -4).to_show.size() == 1);  // a damaged counter starts over
}

TEST_CASE("malformed hints files are reported", "[host][workbook]") {
  CHECK(wbcli::parse_hints("answer: just do it\n").error.find("concept:") != std::string::npos);
  CHECK(wbcli::parse_hints("# only a comment\n").error.find("no hints") != std::string::npos);
}
