// SPDX-License-Identifier: MIT
// 6.03's rank worker: the program each rank process runs (one process per GPU), or the one process that
// drives every GPU, started by the 6.03 lesson and tests (collectives.h: RankProcesses). Built twice,
// with the exercise file and with its solution: p6_03_nccl_collectives(_solution)_rank.
#include "phase6_multi_gpu/multi_gpu.cuh"

int main(int argc, char** argv) {
  p6::disable_nvls();
  const p6::CollectiveEngine engine{nccl_comms_one_process, nccl_collective, nccl_join_as_rank, nccl_issue};
  return p6::serve_collectives(argc, argv, engine);
}
