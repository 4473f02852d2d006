// SPDX-License-Identifier: MIT
// Catch2's runner, compiled once for every test binary (with Catch2 2.13 this translation unit holds
// the whole framework, a minute of compiling), and called from test_main.cpp's two mains.
#define WB_CATCH_MAIN
#include "common/catch_session.h"

#include "common/catch.h"

namespace wb {

int run_catch_session(int argc, char** argv) {
  // Catch2 returns the number of failed assertions, capped at 255: a stub that fails 255 assertions
  // would exit like a process killed by signal 127. Failures exit 1, whatever their count.
  const int failed = Catch::Session().run(argc, argv);
  return failed == 0 ? 0 : 1;
}

}  // namespace wb
