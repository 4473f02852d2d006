// SPDX-License-Identifier: MIT
// The process-wide facts of the rank harness: NVLink multicast off, and how many GPUs are visible.
#include <cuda_runtime_api.h>

#include <cstdlib>

#include "phase6_multi_gpu/harness/ranks.h"

namespace p6 {

void disable_nvls() {
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);
}

int visible_gpu_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it so later calls do not report it
    return 0;
  }
  return count;
}

namespace {
// Every program that links the rank harness (lessons, tests, p6_bench: all of them reach this file
// through RankGroup) has NVLink multicast off before main() runs, before anything can start NCCL.
[[maybe_unused]] const bool kNvlsOffAtStart = (disable_nvls(), true);
}  // namespace

}  // namespace p6
