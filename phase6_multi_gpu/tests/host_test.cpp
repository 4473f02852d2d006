// SPDX-License-Identifier: MIT
// The pure halves of the phase 6 harness, no GPU needed: the `nvidia-smi topo -m` parser and the
// all-reduce grader's judging on host models of right and wrong results.
#include <string>
#include <vector>

#include "common/testing.h"
#include "phase6_multi_gpu/harness/topology.h"
#include "phase6_multi_gpu/tests/grading.h"

TEST_CASE("parse_topo_cell reads the link between two GPUs from nvidia-smi topo -m", "[host][p6]") {
  const std::string topo =
      "\tGPU0\tGPU1\tGPU2\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tNV18\tSYS\t0-63\t0\t\tN/A\n"
      "GPU1\tNV18\t X \tPIX\t0-63\t0\t\tN/A\n"
      "GPU2\tSYS\tPIX\t X \t64-127\t1\t\tN/A\n"
      "\nLegend:\n  X    = Self\n  NV#  = Connection traversing a bonded set of # NVLinks\n";
  CHECK(p6::parse_topo_cell(topo, 0, 1) == "NV18");
  CHECK(p6::parse_topo_cell(topo, 1, 0) == "NV18");
  CHECK(p6::parse_topo_cell(topo, 1, 2) == "PIX");
  CHECK(p6::parse_topo_cell(topo, 2, 0) == "SYS");
  CHECK(p6::parse_topo_cell(topo, 0, 7).empty());
  CHECK(p6::parse_topo_cell("", 0, 1).empty());
  CHECK(p6::nvlink_count_of_cell("NV18") == 18);
  CHECK(p6::nvlink_count_of_cell("NV4") == 4);
  CHECK(p6::nvlink_count_of_cell("PIX") == 0);
  CHECK(p6::nvlink_count_of_cell("NVx") == 0);
  CHECK(p6::nvlink_gbs_per_link(9, 0) * 18 == 478.125);  // exact in binary
  CHECK(p6::nvlink_gbs_per_link(7, 5) == 0.0);
}

TEST_CASE("judge_allreduce names lost, doubled, stale and foreign contributions", "[host][p6]") {
  const int n = 3;
  const std::size_t count = 10;
  std::vector<std::vector<float>> inputs;
  for (int r = 0; r < n; ++r) inputs.push_back(p6::test::allreduce_input(r, count, 5));
  std::vector<float> sum(count, 0.0f);
  for (const auto& in : inputs)
    for (std::size_t i = 0; i < count; ++i) sum[i] += in[i];
  CHECK(p6::test::judge_allreduce(inputs, 1, sum).empty());

  std::vector<float> lost = sum;
  lost[4] -= inputs[2][4];
  CHECK(p6::test::judge_allreduce(inputs, 1, lost).find("Rank 2's contribution is missing") != std::string::npos);
  std::vector<float> doubled = sum;
  doubled[7] += inputs[0][7];
  CHECK(p6::test::judge_allreduce(inputs, 1, doubled).find("Rank 0's contribution was counted twice") !=
        std::string::npos);
  std::vector<float> stale = sum;
  stale[2] = p6::test::recv_poison(2);
  CHECK(p6::test::judge_allreduce(inputs, 1, stale).find("missing wait") != std::string::npos);
  std::vector<float> late = sum;
  late[2] = p6::test::send_poison(0);
  CHECK(p6::test::judge_allreduce(inputs, 1, late).find("Rank 0's input was read before") != std::string::npos);
  std::vector<float> foreign = sum;
  foreign[3] = 0.5f;
  CHECK(p6::test::judge_allreduce(inputs, 1, foreign).find("wrong chunk offset") != std::string::npos);
  std::vector<float> tail = sum;
  tail[9] = p6::test::recv_poison(1);
  CHECK(p6::test::judge_allreduce(inputs, 1, tail).find("tail was dropped") != std::string::npos);
  std::vector<float> gathered = sum;
  for (std::size_t i = 0; i < 4; ++i) gathered[i] = p6::test::recv_poison(1);
  CHECK(p6::test::judge_allreduce(inputs, 1, gathered).find("all-gather") != std::string::npos);
}
