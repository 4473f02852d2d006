// SPDX-License-Identifier: MIT
// The main() of every test binary. GPU test binaries (WB_TEST_NEEDS_GPU) first check for a
// usable GPU and exit 77 (CTest: skipped) with the reason when there is none. Exit: 0 all passed,
// 1 some failed.
#include <cstdio>

#include "common/catch_session.h"
#include "common/gpu.h"

int main(int argc, char** argv) {
#if defined(WB_TEST_NEEDS_GPU)
  const wb::GpuStatus gpu = wb::probe_gpu();
  if (!gpu.usable) {
    std::printf("%s\n", gpu.message.c_str());
    return gpu.exit_code;
  }
#endif
  return wb::run_catch_session(argc, argv);
}
