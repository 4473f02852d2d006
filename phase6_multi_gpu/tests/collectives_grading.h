// SPDX-License-Identifier: MIT
// The grader's half for NCCL's collectives (6.03): every rank's result judged exactly (inputs a x 8^rank,
// so a value says whose input it is), outputs poisoned per rank, counts with tails, in and out of place;
// runs happen in worker processes (harness/collectives.h), so a deadlock is a diagnosis after a timeout, never a
// hang; and the bus bandwidth formulas checked on the host.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "phase6_multi_gpu/harness/collectives.h"

namespace p6 {
namespace test {

// 1, 7 and 1M + 3 (1, 7 and 4099 under WB_SANITIZE): a count of one, one short of 8, and a large odd one.
std::vector<std::size_t> collective_counts();

// Rank `rank`'s whole recv buffer after `job` on `ranks` ranks: "" when its result is exact and nothing
// else changed, else the report with a sentence naming the likely bug.
std::string judge_collective(const CollectiveJob& job, int ranks, int rank, const std::vector<float>& recv);

// Runs `job` on the workers and judges every rank; "" when right. `setup` names the set-up in the report.
std::string run_and_judge(CollectiveWorkers& workers, const CollectiveJob& job, const std::string& setup);

// Every job of the grade (each collective, every count, out of place and in place, broadcast from the last
// rank) on workers of `program` over `ranks` GPUs, one process for all or one per GPU (`share` hands the
// unique id to the rank processes); the first failure's report, or "".
using ShareId = void (*)(RankProcesses& processes);
std::string grade_collectives(const std::string& program, int ranks, bool per_process, ShareId share,
                              double timeout_s = 90.0);

// `busbw(op, bytes, ms, ranks)` against nccl-tests' conventions for every collective and 2 to 8 ranks; "" or
// the report.
using BusbwFormula = double (*)(Collective op, double bytes, double ms, int ranks);
std::string judge_busbw(BusbwFormula busbw);

}  // namespace test
}  // namespace p6
