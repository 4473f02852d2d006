// SPDX-License-Identifier: MIT
#include "phase6_multi_gpu/harness/nccl_support.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace p6 {

void check_nccl(ncclResult_t result, const char* call, const char* file, int line) {
  if (result == ncclSuccess) return;
  throw std::runtime_error(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                           ncclGetErrorString(result));
}

void require_nvls_disabled() {
  const char* value = std::getenv("NCCL_NVLS_ENABLE");
  if (value != nullptr && std::strcmp(value, "0") == 0) return;
  std::fprintf(stderr,
               "refusing to start NCCL: NCCL_NVLS_ENABLE is %s%s%s, not \"0\"; NVLink multicast must stay off "
               "(see phase6_multi_gpu/README.md)\n",
               value ? "\"" : "", value ? value : "unset", value ? "\"" : "");
  std::exit(2);
}

std::string nccl_version() {
  int code = 0;
  NCCL_CHECK(ncclGetVersion(&code));
  // NCCL_VERSION(X, Y, Z) is X * 10000 + Y * 100 + Z since 2.9 (X * 1000 + Y * 100 + Z before).
  const int major = code >= 10000 ? code / 10000 : code / 1000;
  const int minor = code >= 10000 ? code / 100 % 100 : code / 100 % 10;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(code % 100);
}

NcclComms::NcclComms(const RankGroup& group) : group_(group) {
  disable_nvls();
  require_nvls_disabled();
  if (group.is_virtual()) throw std::invalid_argument("NCCL needs a GPU per rank: a virtual group has none");
  std::vector<int> devices;
  for (int r = 0; r < group.size(); ++r) devices.push_back(group.device(r));
  comms_.resize(devices.size());
  NCCL_CHECK(ncclCommInitAll(comms_.data(), group.size(), devices.data()));
}

NcclComms::~NcclComms() {
  for (std::size_t r = 0; r < comms_.size(); ++r) {
    DeviceScope scope(group_.device(static_cast<int>(r)));
    cudaStreamSynchronize(group_.stream(static_cast<int>(r)));
    ncclCommDestroy(comms_[r]);
  }
}

void NcclComms::allreduce_sum(const float* const* send, float* const* recv, std::size_t count) const {
  NCCL_CHECK(ncclGroupStart());
  for (int r = 0; r < group_.size(); ++r)
    NCCL_CHECK(ncclAllReduce(send[r], recv[r], count, ncclFloat, ncclSum, comm(r), group_.stream(r)));
  NCCL_CHECK(ncclGroupEnd());
}

}  // namespace p6
