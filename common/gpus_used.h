// SPDX-License-Identifier: MIT
// How many GPUs this process's measured work runs on, for the gpus column of the result CSV
// (common/result_csv.h) that a lesson's --csv prints: 1 unless a multi-GPU harness says more (phase 6's
// RankGroup::real notes the size of each group it makes; the largest counts).
#pragma once

namespace wb {

void note_gpus_used(int gpus);
int gpus_used();

}  // namespace wb
