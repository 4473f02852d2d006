// SPDX-License-Identifier: MIT
#include "phase3_reduction/tests/scan_grading.h"

#include <cstdint>
#include <functional>

#include "common/buffer.h"
#include "common/data.h"
#include "common/testing.h"
#include "phase3_reduction/harness/reference.h"
#include "phase3_reduction/tests/guarded_input.h"

namespace {

const char* kSecondCall =
    "The first call was right, the second was not. The second call ran on the same workspace, not cleared in "
    "between, with a new input: nothing the first call left there (a tile counter, status words) may count. "
    "Initialise what your scan reads from the workspace on every call, on the stream, before the kernel runs.\n";

// One call into a poisoned output: "" or the verdict.
template <typename T>
std::string scan_once(const char* launcher, ScanLauncher<T> scan, const std::vector<T>& input, T guard,
                      wb::GuardedDeviceBuffer<std::uint64_t>& workspace, std::size_t workspace_bytes,
                      const std::function<std::string(const std::vector<T>&)>& judge) {
  const std::size_t n = input.size();
  GuardedInput<T> din(input, guard);
  wb::GuardedDeviceBuffer<T> out(n);  // poisoned: untouched shows; canaries: a write past either end shows
  const std::string failed = wb::test::launch_and_explain(
      launcher, [&] { scan(din.data(), out.data(), n, workspace.data(), workspace_bytes, nullptr); });
  if (!failed.empty()) return failed;
  const wb::GuardReport out_guards = out.check_guards();
  if (!out_guards.ok()) return out_guards.describe(std::string(launcher) + " output");
  const wb::GuardReport workspace_guards = workspace.check_guards();
  if (!workspace_guards.ok())
    return workspace_guards.describe(std::string(launcher) + " workspace (scan_workspace_bytes(n) bytes)");
  const std::string changed = din.changes(
      "a scan must leave its input as it found it: keep partial sums in registers, shared memory, the workspace "
      "or out, never in `in`.");
  if (!changed.empty()) return changed;
  return judge(out.download());
}

template <typename T>
std::string grade(const char* launcher, ScanLauncher<T> scan, const std::vector<T>& input, T guard,
                  const std::vector<T>* second, const std::function<std::string(const std::vector<T>&)>& judge_first,
                  const std::function<std::string(const std::vector<T>&)>& judge_second) {
  const std::size_t workspace_bytes = scan_workspace_bytes(input.size());
  // Poisoned (every 8 bytes 0x7FF8DEADDEADDEAD) and ringed with canaries: a scan that reads its status
  // words before it initialises them reads garbage.
  wb::GuardedDeviceBuffer<std::uint64_t> workspace((workspace_bytes + 7) / 8);
  const std::string first = scan_once(launcher, scan, input, guard, workspace, workspace_bytes, judge_first);
  if (!first.empty() || second == nullptr) return first;
  const std::string again = scan_once(launcher, scan, *second, guard, workspace, workspace_bytes, judge_second);
  return again.empty() ? "" : kSecondCall + again;
}

std::uint64_t second_seed(std::uint64_t seed) {
  return seed + 1;
}

}  // namespace

const char* describe(ScanInput kind) {
  switch (kind) {
    case ScanInput::Ones:
      return "ints, all ones";
    case ScanInput::RandomInts:
      return "random ints in [-1000, 1000]";
    case ScanInput::WrappingInts:
      return "ints in [2^30, 2^31 - 1] (the prefix wraps modulo 2^32)";
    case ScanInput::SmallFloats:
      return "floats, integers in [-8, 8]";
    case ScanInput::RandomFloats:
      return "random floats in [-1, 1)";
  }
  return "?";
}

std::vector<int> make_scan_ints(ScanInput kind, std::size_t n, std::uint64_t seed) {
  switch (kind) {
    case ScanInput::Ones:
      return std::vector<int>(n, 1);
    case ScanInput::WrappingInts:
      return wb::random_ints(n, seed, 1 << 30, 2147483647);
    default:
      return wb::random_ints(n, seed, -1000, 1000);
  }
}

std::vector<float> make_scan_floats(ScanInput kind, std::size_t n, std::uint64_t seed) {
  if (kind == ScanInput::SmallFloats) {
    std::vector<float> x(n);
    wb::Rng rng(seed);
    for (float& v : x) v = static_cast<float>(rng.integer(-8, 8));
    return x;
  }
  return wb::random_floats(n, seed);
}

bool scan_floats_exact(ScanInput kind, std::size_t n) {
  // Every partial sum is an integer of magnitude at most 8 n: exact in float up to 2^24.
  return kind == ScanInput::SmallFloats && 8 * n <= (std::size_t(1) << 24);
}

std::string grade_scan(const char* launcher, ScanLauncher<int> scan, const std::vector<int>& input,
                       const std::vector<int>* second) {
  auto judge_first = [&](const std::vector<int>& got) { return p3::judge_scan(input, got); };
  auto judge_second = [&](const std::vector<int>& got) { return p3::judge_scan(*second, got); };
  return grade<int>(launcher, scan, input, p3::kIntGuardValue, second, judge_first, judge_second);
}

std::string grade_scan(const char* launcher, ScanLauncher<float> scan, const std::vector<float>& input, bool exact,
                       const std::vector<float>* second) {
  auto judge_first = [&](const std::vector<float>& got) { return p3::judge_scan(input, got, exact); };
  auto judge_second = [&](const std::vector<float>& got) { return p3::judge_scan(*second, got, exact); };
  return grade<float>(launcher, scan, input, p3::kFloatGuardValue, second, judge_first, judge_second);
}

std::vector<std::size_t> scan_test_sizes() {
  return wb::test::sizes(
      {0, 1, 31, 32, 33, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 8191, 8192, 8193, 16385, 999983});
}

namespace {

std::string describe_case(std::size_t n, ScanInput kind, int calls, std::uint64_t seed) {
  return "n = " + std::to_string(n) + ", " + describe(kind) + ", " +
         (calls == 1 ? std::string("one call") : std::string("two calls on the same workspace")) + ", seed " +
         std::to_string(seed) + " (replay with WB_SEED=" + std::to_string(seed) + ")";
}

}  // namespace

void check_scan(const char* launcher, ScanLauncher<int> scan, ScanInput kind, std::size_t n, int calls) {
  const std::uint64_t seed = wb::test::seed();
  const std::vector<int> input = make_scan_ints(kind, n, seed);
  std::vector<int> second;
  if (calls > 1) second = make_scan_ints(kind == ScanInput::Ones ? ScanInput::RandomInts : kind, n, second_seed(seed));
  const std::string verdict = grade_scan(launcher, scan, input, calls > 1 ? &second : nullptr);
  if (!verdict.empty()) FAIL(launcher << " with " << describe_case(n, kind, calls, seed) << ":\n" << verdict);
}

void check_scan(const char* launcher, ScanLauncher<float> scan, ScanInput kind, std::size_t n, int calls) {
  const std::uint64_t seed = wb::test::seed();
  const std::vector<float> input = make_scan_floats(kind, n, seed);
  std::vector<float> second;
  if (calls > 1) second = make_scan_floats(kind, n, second_seed(seed));
  const std::string verdict =
      grade_scan(launcher, scan, input, scan_floats_exact(kind, n), calls > 1 ? &second : nullptr);
  if (!verdict.empty()) FAIL(launcher << " with " << describe_case(n, kind, calls, seed) << ":\n" << verdict);
}
