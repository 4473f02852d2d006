// SPDX-License-Identifier: MIT
// 6.04's part of the phase 6 grader's self-test: each planted step must fail the overlap grader with the
// sentence that names its bug, on virtual ranks (any GPU) and on real GPUs where there are two or more;
// the right and the serial step must pass.
#include <string>
#include <vector>

#include "common/testing.h"
#include "phase6_multi_gpu/tests/overlap_grading.h"
#include "phase6_multi_gpu/tests/overlap_wrong.h"

TEST_CASE("the phase 6 grader accepts a right gradient-bucket step and names every planted bug", "[gpu][grader][p6]") {
  const struct {
    const char* what;
    p6::test::OverlapLauncher launch;
    const char* diagnosis;  // "" = the grader must accept it
  } plants[] = {
      {"a right step", planted_overlap_correct, ""},
      {"the serial step", planted_overlap_serial, ""},
      {"a bucket all-reduced without waiting for its layers", planted_overlap_no_wait,
       "all-reduced before its gradient was written"},
      {"a bucket waiting for its first layer, not its last", planted_overlap_waits_first_layer,
       "all-reduced before its gradient was written"},
      {"the last bucket forgotten", planted_overlap_forgets_last_bucket, "never all-reduced"},
      {"the last bucket reduced twice", planted_overlap_reduces_twice, "reduced twice"},
      {"the step returning before its last all-reduce", planted_overlap_no_join,
       "returned before the last all-reduce finished"},
  };
  const std::vector<std::size_t> layers = {1000, 70000, 4096, 5, 65537, 2048, 30000, 1, 12345, 8192, 50000, 777};
  for (const p6::test::GroupSpec& spec : p6::test::group_specs(true, 5)) {
    p6::RankGroup group = p6::test::make_group(spec);
    for (const auto& p : plants) {
      INFO("planted: " << p.what << " on " << spec.describe());
      const std::string verdict = p6::test::grade_overlap("planted", p.launch, group, layers, 0, 1);
      INFO("grader said: " << verdict);
      if (std::string(p.diagnosis).empty()) {
        CHECK(verdict.empty());
      } else {
        CHECK(verdict.find(p.diagnosis) != std::string::npos);
      }
    }
  }
}
