// SPDX-License-Identifier: MIT
// The main() of every test binary. GPU test binaries (WB_TEST_NEEDS_GPU) first check for a
// usable GPU and exit 77 (CTest: skipped) with the reason when there is none. Exit: 0 all passed,
// 1 some failed.
#define WB_CATCH_MAIN
#include <cstdio>

#include "common/catch.h"
#include "common/gpu.h"

int main(int argc, char** argv) {
#if defined(WB_TEST_NEEDS_GPU)
  const wb::GpuStatus gpu = wb::probe_gpu();
  if (!gpu.usable) {
    std::printf("%s\n", gpu.message.c_str());
    return gpu.exit_code;
  }
#endif
  // Catch2 returns the number of failed assertions, capped at 255: a stub that fails 255 assertions
  // would exit like a process killed by signal 127. Failures exit 1, whatever their count.
  const int failed = Catch::Session().run(argc, argv);
  return failed == 0 ? 0 : 1;
}
