// SPDX-License-Identifier: MIT
#include "common/measure.h"

#include "common/check.h"

namespace wb {

Measured measure(const MeasureSteps& steps) {
  Measured result;
  if (steps.poison) steps.poison();
  if (steps.launch) {
    steps.launch();
    CUDA_CHECK(cudaDeviceSynchronize());  // the launch may use streams of its own
  }
  result.pass = steps.verify("");
  result.time = steps.time ? steps.time() : bench(steps.stream, steps.options, steps.launch);
  result.pass = steps.verify(" (after timing)") && result.pass;
  return result;
}

}  // namespace wb
