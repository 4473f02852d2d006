// SPDX-License-Identifier: MIT
#include "common/testing.h"

#include <cstdlib>

namespace wb {
namespace test {

bool sanitize_mode() {
  const char* value = std::getenv("WB_SANITIZE");
  return value != nullptr && *value != '\0' && std::string(value) != "0";
}

std::vector<std::size_t> sizes(std::initializer_list<std::size_t> all, std::size_t sanitize_cap) {
  std::vector<std::size_t> chosen;
  const bool shrink = sanitize_mode();
  for (std::size_t n : all)
    if (!shrink || n <= sanitize_cap) chosen.push_back(n);
  return chosen;
}

std::uint64_t seed(std::uint64_t fallback) {
  return seed_from_env(fallback);
}

std::string explain_execution_error(cudaError_t code) {
  std::string text = std::string(cudaGetErrorName(code)) + " (" + cudaGetErrorString(code) + ")";
  if (const char* hint = cuda_error_hint(code)) text += ": " + std::string(hint);
  if (code == cudaErrorIllegalAddress || code == cudaErrorMisalignedAddress || code == cudaErrorLaunchFailure)
    text +=
        ". Find the line with: ./workbook check <id> (its compute-sanitizer memcheck run names it)."
        " The GPU context is now unusable, so later tests in this run fail too.";
  return text;
}

std::string launch_and_explain(const std::string& what, const std::function<void()>& launch) {
  try {
    launch();
  } catch (const CudaError& e) {
    return "launching " + what + " failed: " + e.what();
  }
  const cudaError_t ran = cudaDeviceSynchronize();
  if (ran != cudaSuccess) return "the kernel of " + what + " failed while running: " + explain_execution_error(ran);
  return "";
}

}  // namespace test
}  // namespace wb
