// SPDX-License-Identifier: MIT
#include <cstdio>
#include <exception>
#include <new>

#include "common/args.h"
#include "common/gpu.h"

namespace wb {

int run_on_gpu(const std::string& program, const std::string& usage, const std::function<int()>& body) {
  // Before any CUDA call of the body, so a machine without a GPU reports a skip, not a failure.
  const GpuStatus gpu = probe_gpu();
  if (!gpu.usable) {
    std::printf("%s\n", gpu.message.c_str());
    return gpu.exit_code;
  }
  try {
    return body();
  } catch (const UsageError& e) {  // input found unusable only once the program ran (a size, a file)
    std::fprintf(stderr, "%s: %s\n%s", program.c_str(), e.what(), usage.c_str());
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "%s: error: out of host memory for the inputs and references: try a smaller --size\n",
                 program.c_str());
    return kExitFail;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program.c_str(), e.what());
    return kExitFail;
  }
}

}  // namespace wb
