// SPDX-License-Identifier: MIT
// A rank worker (harness/collectives.h) with NCCL's collectives right, or with one planted bug, chosen by the
// environment variable P6_PLANTED_BUG (set by the grader's self-test before it starts the workers):
//   none            right
//   no_group        one thread issues each rank's collective and waits for it before the next rank's, with
//                   no ncclGroupStart/End: rank 0 waits for peers that are never called (a deadlock)
//   rs_total_count  ncclReduceScatter given count / n, as if the count were the send buffer's length
//   ag_no_offset    an in-place all-gather whose input is the buffer's start, not the rank's own block
//   bc_root_zero    a broadcast always from rank 0
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/check.h"
#include "phase6_multi_gpu/harness/collectives.h"
#include "phase6_multi_gpu/harness/nccl_support.h"

namespace {

std::string bug() {
  const char* value = std::getenv("P6_PLANTED_BUG");
  return value ? value : "none";
}

std::vector<ncclComm_t> comms_one_process(const p6::RankGroup& group) {
  std::vector<int> devices;
  for (int r = 0; r < group.size(); ++r) devices.push_back(group.device(r));
  std::vector<ncclComm_t> comms(devices.size());
  NCCL_CHECK(ncclCommInitAll(comms.data(), group.size(), devices.data()));
  return comms;
}

void issue(p6::Collective op, const float* send, float* recv, std::size_t count, int root, ncclComm_t comm,
           cudaStream_t stream) {
  const bool in_place = send == recv;
  int rank = 0, ranks = 1;
  NCCL_CHECK(ncclCommUserRank(comm, &rank));
  NCCL_CHECK(ncclCommCount(comm, &ranks));
  const std::size_t block = count * static_cast<std::size_t>(rank);
  switch (op) {
    case p6::Collective::AllReduce:
      NCCL_CHECK(ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream));
      break;
    case p6::Collective::ReduceScatter: {
      const std::size_t n = bug() == "rs_total_count" ? count / static_cast<std::size_t>(ranks) : count;
      const std::size_t at = n * static_cast<std::size_t>(rank);
      NCCL_CHECK(ncclReduceScatter(send, in_place ? recv + at : recv, n, ncclFloat, ncclSum, comm, stream));
      break;
    }
    case p6::Collective::AllGather: {
      const float* from = in_place && bug() != "ag_no_offset" ? send + block : send;
      NCCL_CHECK(ncclAllGather(from, recv, count, ncclFloat, comm, stream));
      break;
    }
    case p6::Collective::Broadcast:
      NCCL_CHECK(ncclBroadcast(send, recv, count, ncclFloat, bug() == "bc_root_zero" ? 0 : root, comm, stream));
      break;
  }
}

void collective(p6::Collective op, const float* const* send, float* const* recv, std::size_t count, int root,
                const std::vector<ncclComm_t>& comms, const p6::RankGroup& group) {
  if (bug() == "no_group") {
    for (int r = 0; r < group.size(); ++r) {
      issue(op, send[r], recv[r], count, root, comms[static_cast<std::size_t>(r)], group.stream(r));
      p6::DeviceScope scope(group.device(r));
      CUDA_CHECK(cudaStreamSynchronize(group.stream(r)));
    }
    return;
  }
  NCCL_CHECK(ncclGroupStart());
  for (int r = 0; r < group.size(); ++r)
    issue(op, send[r], recv[r], count, root, comms[static_cast<std::size_t>(r)], group.stream(r));
  NCCL_CHECK(ncclGroupEnd());
}

ncclComm_t join_as_rank(int rank, int ranks, int from_parent) {
  ncclUniqueId id;
  if (!p6::read_all(from_parent, &id, sizeof(id))) return nullptr;
  CUDA_CHECK(cudaSetDevice(rank));
  ncclComm_t comm = nullptr;
  NCCL_CHECK(ncclCommInitRank(&comm, ranks, id, rank));
  return comm;
}

}  // namespace

int main(int argc, char** argv) {
  p6::disable_nvls();
  const p6::CollectiveEngine engine{comms_one_process, collective, join_as_rank, issue};
  return p6::serve_collectives(argc, argv, engine);
}
