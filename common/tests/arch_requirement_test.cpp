// SPDX-License-Identifier: MIT
// Which GPUs run which rungs: a wrong answer either fails a learner on hardware that cannot run a rung
// or launches sm_90a code where it cannot run.
#include "common/arch_requirement.h"

#include "common/testing.h"

TEST_CASE("arch requirements: 80 is sm_80 and newer, 90a is Hopper only", "[host][common]") {
  for (int cc : {75, 80, 86, 89, 90, 100, 120}) {
    CAPTURE(cc);
    CHECK(wb::arch_requirement_met("", cc));
    CHECK(wb::arch_requirement_met("80", cc) == (cc >= 80));
    CHECK(wb::arch_requirement_met("90a", cc) == (cc == 90));
  }
  CHECK(wb::is_arch_requirement(""));
  CHECK(wb::is_arch_requirement("90a"));
  CHECK_FALSE(wb::is_arch_requirement("90"));
}

TEST_CASE("an unmet requirement is one line naming the rung, the need and the GPU", "[host][common]") {
  CHECK(wb::arch_requirement_unmet("1.11", "wgmma", "90a", 89) ==
        "1.11 wgmma needs a Hopper GPU (sm_90); this is sm_89");
  CHECK(wb::arch_requirement_unmet("1.10", "mma_sync", "80", 75) ==
        "1.10 mma_sync needs sm_80 or newer; this is sm_75");
  const std::string newer = wb::arch_requirement_unmet("1.12", "tma", "90a", 100);
  CHECK(newer.find("runs on Hopper only") != std::string::npos);
  CHECK(newer.find('\n') == std::string::npos);
  CHECK(wb::arch_requirement_short("90a") == "sm_90");
  CHECK(wb::arch_requirement_short("80") == "sm_80+");
}
