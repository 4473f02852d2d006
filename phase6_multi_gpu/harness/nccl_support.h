// SPDX-License-Identifier: MIT
// NCCL as the phase's yardstick and engine: one communicator per rank of a real group, made in one
// process by ncclCommInitAll (the single-process form; past one host each process makes its own rank
// from a shared unique id, see the phase README). Every path into NCCL first checks that NVLink
// multicast is off (NCCL_NVLS_ENABLE=0).
#pragma once

#include <nccl.h>

#include <cstddef>
#include <string>
#include <vector>

#include "phase6_multi_gpu/harness/ranks.h"

// NCCL_CHECK(call): throws std::runtime_error naming the call, file:line and NCCL's error string.
#define NCCL_CHECK(call) ::p6::check_nccl((call), #call, __FILE__, __LINE__)

namespace p6 {

void check_nccl(ncclResult_t result, const char* call, const char* file, int line);

// Refuses to go on unless NCCL_NVLS_ENABLE is "0" in this process's environment (disable_nvls() sets
// it): prints why and exits 2. NcclComms calls it before NCCL starts.
void require_nvls_disabled();

// "2.28.9": ncclGetVersion, the library this program runs with.
std::string nccl_version();

class NcclComms {
 public:
  // One communicator per rank of a real group (throws for a virtual one: NCCL needs a GPU per rank).
  explicit NcclComms(const RankGroup& group);
  ~NcclComms();
  NcclComms(const NcclComms&) = delete;
  NcclComms& operator=(const NcclComms&) = delete;

  ncclComm_t comm(int r) const { return comms_[static_cast<std::size_t>(r)]; }
  // ncclAllReduce (float, sum) on every rank's stream, in one ncclGroupStart/End.
  void allreduce_sum(const float* const* send, float* const* recv, std::size_t count) const;

 private:
  const RankGroup& group_;
  std::vector<ncclComm_t> comms_;
};

}  // namespace p6
