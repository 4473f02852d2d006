// SPDX-License-Identifier: MIT
#include "phase3_reduction/tests/grading.h"

#include <functional>

#include "common/buffer.h"
#include "common/data.h"
#include "common/testing.h"
#include "phase3_reduction/harness/reference.h"
#include "phase3_reduction/tests/guarded_input.h"

namespace {

template <typename T>
std::string run_and_judge(const char* launcher, ReduceLauncher<T> reduce, const std::vector<T>& input, T guard,
                          const std::function<std::string(T)>& judge) {
  const std::size_t n = input.size();
  GuardedInput<T> din(input, guard);
  wb::GuardedDeviceBuffer<T> workspace(reduce_workspace_elements(n));  // poisoned: read before written shows
  wb::GuardedDeviceBuffer<T> out(1);                                   // poisoned: untouched shows
  const std::string failed =
      wb::test::launch_and_explain(launcher, [&] { reduce(din.data(), out.data(), n, workspace.data(), nullptr); });
  if (!failed.empty()) return failed;
  const wb::GuardReport out_guards = out.check_guards();
  if (!out_guards.ok()) return out_guards.describe(std::string(launcher) + " output");
  const wb::GuardReport workspace_guards = workspace.check_guards();
  if (!workspace_guards.ok())
    return workspace_guards.describe(std::string(launcher) + " workspace (reduce_workspace_elements(n) elements)");
  const std::string changed = din.changes(
      "a reduction must leave its input as it found it. Write partial sums to shared memory or to the workspace, "
      "never back into `in`.");
  if (!changed.empty()) return changed;
  return judge(out.download()[0]);
}

}  // namespace

const char* describe(SumInput kind) {
  switch (kind) {
    case SumInput::Mixed:
      return "mixed signs";
    case SumInput::Exact:
      return "exactly summable (multiples of 1/256, any order is exact)";
    case SumInput::AllNegative:
      return "all negative";
    case SumInput::Constant:
      return "constant";
  }
  return "?";
}

std::vector<float> make_float_input(SumInput kind, std::size_t n, std::uint64_t seed) {
  switch (kind) {
    case SumInput::Mixed:
      return wb::random_floats(n, seed);
    case SumInput::Exact:
      return wb::random_dyadic_floats(n, seed);
    case SumInput::AllNegative:
      return wb::random_floats(n, seed, -1.0f, 0.0f);
    case SumInput::Constant:
      return std::vector<float>(n, 0.75f);
  }
  return {};
}

std::vector<int> make_int_input(SumInput kind, std::size_t n, std::uint64_t seed) {
  // |sum| <= 7 n < 2^31 for every n below 2^28 + 2^27: no overflow in any order.
  switch (kind) {
    case SumInput::Mixed:
    case SumInput::Exact:
      return wb::random_ints(n, seed, -7, 7);
    case SumInput::AllNegative:
      return wb::random_ints(n, seed, -7, -1);
    case SumInput::Constant:
      return std::vector<int>(n, 3);
  }
  return {};
}

std::string grade_reduce(const char* launcher, ReduceLauncher<float> reduce, const std::vector<float>& input,
                         bool exact) {
  const double tolerance = p3::float_sum_tolerance(input, exact);
  return run_and_judge<float>(launcher, reduce, input, p3::kFloatGuardValue,
                              [&](float got) { return p3::judge_sum(input, got, tolerance); });
}

std::string grade_reduce(const char* launcher, ReduceLauncher<int> reduce, const std::vector<int>& input) {
  return run_and_judge<int>(launcher, reduce, input, p3::kIntGuardValue,
                            [&](int got) { return p3::judge_sum(input, got); });
}

std::vector<std::size_t> reduce_test_sizes() {
  return wb::test::sizes(
      {0, 1, 2, 31, 32, 33, 200, 1023, 1024, 1025, 65537, (std::size_t(1) << 24) + 7, (std::size_t(1) << 28) + 3});
}

namespace {

// Past 2^24 + 7 one input kind (exact) is enough: generating 1 GiB of input takes seconds.
std::vector<SumInput> kinds_for(std::size_t n) {
  if (n > (std::size_t(1) << 24) + 7) return {SumInput::Exact};
  return {SumInput::Exact, SumInput::Mixed, SumInput::AllNegative, SumInput::Constant};
}

}  // namespace

void check_reduce_float(const char* launcher, ReduceLauncher<float> reduce, std::size_t n) {
  const std::uint64_t seed = wb::test::seed();
  for (SumInput kind : kinds_for(n)) {
    const std::vector<float> input = make_float_input(kind, n, seed);
    const std::string verdict = grade_reduce(launcher, reduce, input, kind == SumInput::Exact);
    if (!verdict.empty())
      FAIL(launcher << " with n = " << n << ", floats " << describe(kind) << ", seed " << seed
                    << " (replay with WB_SEED=" << seed << "):\n"
                    << verdict);
  }
}

void check_reduce_int(const char* launcher, ReduceLauncher<int> reduce, std::size_t n) {
  const std::uint64_t seed = wb::test::seed();
  // Ints are exact in any order whatever the values, so Mixed plays the role of Exact.
  std::vector<SumInput> kinds = {SumInput::Mixed};
  if (n <= (std::size_t(1) << 24) + 7) kinds = {SumInput::Mixed, SumInput::AllNegative, SumInput::Constant};
  for (SumInput kind : kinds) {
    const std::vector<int> input = make_int_input(kind, n, seed);
    const std::string verdict = grade_reduce(launcher, reduce, input);
    if (!verdict.empty())
      FAIL(launcher << " with n = " << n << ", ints " << describe(kind) << ", seed " << seed
                    << " (replay with WB_SEED=" << seed << "):\n"
                    << verdict);
  }
}
