// SPDX-License-Identifier: MIT
#include "phase0_basics/tests/block_reduce_grading.h"

#include <cmath>
#include <sstream>

#include "common/buffer.h"
#include "common/testing.h"

namespace {

// One sentence on the likely cause, read from what *result holds.
std::string diagnose_sum(double expected, float got, std::size_t n, int calls) {
  std::ostringstream out;
  if (wb::same_bits(got, wb::poison_value<float>())) {
    if (n == 0) {
      out << "n = 0: *result still holds the test's poison. The sum of nothing is 0: the launcher must zero "
             "*result (cudaMemsetAsync) even when it launches no kernel.";
    } else {
      out << "*result still holds the test's poison: the launcher must zero it (cudaMemsetAsync) before the "
             "kernel, and thread 0 of each block must atomicAdd the block's sum into it.";
    }
  } else if (std::isnan(got)) {
    out << "*result is NaN: either atomicAdd added onto a result that was never zeroed (the test fills it with "
           "NaN first: zero it with cudaMemsetAsync before the kernel), or the kernel read past in[n-1] (the "
           "input is followed by NaN canaries): the loop condition must be i < n.";
  } else if (got == 0.0f && expected != 0.0) {
    out << "got 0: *result was zeroed, but no block added its sum. Did thread 0 of each block "
           "atomicAdd(result, partial[0]) after the tree loop?";
  } else if (calls > 1 && std::fabs(got - calls * expected) <= 1e-6 * std::fabs(calls * expected) + 1e-30) {
    out << "got " << calls << " times the sum after " << calls
        << " calls: each call added to the last one's result. Zero *result at the start of every call.";
  } else {
    out << "the sum is off by " << (static_cast<double>(got) - expected)
        << ": some elements were skipped or added twice. Check that the grid-stride loop visits every i < n "
           "once (start at the global index, step by gridDim.x * blockDim.x), that the tree loop runs down to "
           "s = 1 with a __syncthreads() after every step, and that only thread 0 calls atomicAdd.";
  }
  return out.str() + "\n";
}

}  // namespace

// Sums x on the GPU `calls` times in a row into one poisoned, guarded float and checks the last sum,
// the result's guards, and that x came through unchanged. The input sits in a guarded buffer too,
// so a read past in[n-1] picks up a NaN canary instead of a harmless 0.
void check_reduce(ReduceSumLauncher reduce, const std::string& what, const std::vector<float>& x, bool exact,
                  int calls) {
  const std::size_t n = x.size();
  double sum = 0;  // exact in double for every input here (at most 2^26 terms of 24-bit floats)
  for (float v : x) sum += v;
  wb::Tolerance tol{0, 0};
  if (!exact) {
    tol = wb::sum_tolerance(n, wb::sum_abs(x));
    tol.abs += wb::kFloatEpsilon * std::fabs(sum);  // the reference itself is rounded to float once
  }

  wb::GuardedDeviceBuffer<float> din(n);
  din.upload(x);
  wb::GuardedDeviceBuffer<float> result(1);  // poisoned, with canaries on both sides
  for (int c = 0; c < calls; ++c) WB_RUN_LAUNCHER(reduce(din.data(), result.data(), n, nullptr));

  WB_REQUIRE_OK(result.check_guards(), what + ": *result");
  const std::vector<float> got = result.download();
  const wb::CompareReport report = wb::compare(std::vector<float>{static_cast<float>(sum)}, got, tol);
  if (!report.ok()) FAIL(report.describe(what + ": *result") << diagnose_sum(sum, got[0], n, calls));
  WB_REQUIRE_OK(din.check_guards(), what + ": the input's guards");
  WB_REQUIRE_OK(wb::compare(x, din.download(), wb::Tolerance{0, 0}), what + ": the input (must stay unchanged)");
}
