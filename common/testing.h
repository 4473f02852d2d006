// SPDX-License-Identifier: MIT
// Helpers for graded tests: run a launcher and report launch and execution errors separately,
// turn verification reports into failures that teach, pick sizes and seeds (shrunk under
// compute-sanitizer, overridable with WB_SEED).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "common/catch.h"
#include "common/check.h"
#include "common/data.h"
#include "common/verify.h"

namespace Catch {
template <>
struct StringMaker<cudaError_t> {
  static std::string convert(cudaError_t e) {
    return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
  }
};
}  // namespace Catch

namespace wb {
namespace test {

// True when WB_SANITIZE is set (the sanitize tests set it): tests drop their large sizes.
bool sanitize_mode();
// The sizes to test: all of them, or under the sanitizer only those up to `sanitize_cap`.
std::vector<std::size_t> sizes(std::initializer_list<std::size_t> all, std::size_t sanitize_cap = 1 << 16);
// The seed for this test: WB_SEED when set, else `fallback`. Print it with INFO.
std::uint64_t seed(std::uint64_t fallback = kDefaultSeed);
// Explains an error reported by cudaDeviceSynchronize after a kernel ran.
std::string explain_execution_error(cudaError_t code);
// Runs one launcher call and waits for it: "" when it launched and ran, otherwise the message that
// tells a launch error (thrown by CUDA_CHECK_KERNEL) from an error while the kernel ran, naming
// `what`. The graders that return their verdict as text call it; WB_RUN_LAUNCHER fails with it.
std::string launch_and_explain(const std::string& what, const std::function<void()>& launch);

}  // namespace test
}  // namespace wb

// Runs one launcher call. A launch error (thrown by CUDA_CHECK_KERNEL) and an error while the
// kernel runs (from the synchronize) fail with different messages, so the learner knows which.
#define WB_RUN_LAUNCHER(call)                                                                     \
  do {                                                                                            \
    const std::string wb_failure_ = ::wb::test::launch_and_explain("`" #call "`", [&] { call; }); \
    if (!wb_failure_.empty()) FAIL(wb_failure_);                                                  \
  } while (0)

// Fails with the report's teaching message unless it is ok(); works for CompareReport and GuardReport.
#define WB_REQUIRE_OK(report, what)                        \
  do {                                                     \
    const auto& wb_report_ = (report);                     \
    if (!wb_report_.ok()) FAIL(wb_report_.describe(what)); \
  } while (0)
