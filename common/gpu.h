// SPDX-License-Identifier: MIT
// Is there a GPU this build can run on? Lessons and GPU tests ask before they start, so a
// machine without one reports "skipped" (exit 77) with the reason instead of failing.
#pragma once

#include <functional>
#include <string>

namespace wb {

constexpr int kExitPass = 0;
constexpr int kExitFail = 1;
constexpr int kExitUsage = 2;
constexpr int kExitSkip = 77;

struct GpuStatus {
  bool usable = false;
  int exit_code = kExitSkip;  // kExitSkip (no GPU, too old) or kExitFail (no code for this GPU)
  std::string message;        // one line
};

// Counts devices, checks the compute capability, and launches one empty kernel to prove that
// this binary contains code for the GPU.
GpuStatus probe_gpu(int device = 0);

// The tail every GPU program's main() shares (lessons, phase benchmarks): probe the GPU (its reason
// and exit code when it is unusable), then run `body` and turn its exceptions into exit codes:
// UsageError prints "<program>: <why>" and `usage` (2), running out of host memory a hint (1),
// anything else "<program>: error: <what>" (1).
int run_on_gpu(const std::string& program, const std::string& usage, const std::function<int()>& body);

}  // namespace wb
