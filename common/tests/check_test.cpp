// SPDX-License-Identifier: MIT
// Error checks: a failed call becomes an exception naming the call, file:line, the error's name
// and description (and a hint for the common ones). None of this needs a GPU.
#include "common/check.h"

#include <string>

#include "common/buffer.h"
#include "common/check_cublas.h"
#include "common/check_cusparse.h"
#include "common/gpu.h"
#include "common/testing.h"

namespace {
bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST_CASE("CUDA_CHECK passes cudaSuccess through silently", "[host][check]") {
  CHECK_NOTHROW(CUDA_CHECK(cudaSuccess));
}

TEST_CASE("CUDA_CHECK throws a CudaError naming the call, the place and the error", "[host][check]") {
  try {
    CUDA_CHECK(cudaErrorInvalidConfiguration);
    FAIL("CUDA_CHECK did not throw");
  } catch (const wb::CudaError& e) {
    const std::string text = e.what();
    INFO(text);
    CHECK(e.code() == cudaErrorInvalidConfiguration);
    CHECK(contains(text, "cudaErrorInvalidConfiguration"));
    CHECK(contains(text, "`cudaErrorInvalidConfiguration`"));  // the stringified call
    CHECK(contains(text, "check_test.cpp:"));
    CHECK(contains(text, "more than 1024 threads per block"));  // the hint
  }
}

TEST_CASE("format_cuda_error has the documented shape", "[host][check]") {
  const std::string text = wb::format_cuda_error(cudaErrorInvalidValue, "cudaMemcpy(a, b, n, k)", "x.cu", 42);
  CHECK(text == std::string("CUDA error cudaErrorInvalidValue (") + cudaGetErrorString(cudaErrorInvalidValue) +
                    ") in `cudaMemcpy(a, b, n, k)` at x.cu:42");
  CHECK(wb::cuda_error_hint(cudaErrorInvalidValue) == nullptr);
  CHECK(wb::cuda_error_hint(cudaErrorIllegalAddress) != nullptr);
}

TEST_CASE("CUBLAS_CHECK and CUSPARSE_CHECK name the status", "[host][check]") {
  CHECK_NOTHROW(CUBLAS_CHECK(CUBLAS_STATUS_SUCCESS));
  CHECK_NOTHROW(CUSPARSE_CHECK(CUSPARSE_STATUS_SUCCESS));
  try {
    CUBLAS_CHECK(CUBLAS_STATUS_INVALID_VALUE);
    FAIL("CUBLAS_CHECK did not throw");
  } catch (const std::runtime_error& e) {
    CHECK(contains(e.what(), "cuBLAS error CUBLAS_STATUS_INVALID_VALUE"));
    CHECK(contains(e.what(), "check_test.cpp:"));
  }
  try {
    CUSPARSE_CHECK(CUSPARSE_STATUS_INVALID_VALUE);
    FAIL("CUSPARSE_CHECK did not throw");
  } catch (const std::runtime_error& e) {
    CHECK(contains(e.what(), "cuSPARSE error CUSPARSE_STATUS_INVALID_VALUE"));
  }
}

TEST_CASE("out-of-memory messages give the request, what is free and what to do", "[host][check]") {
  const std::string text =
      wb::describe_out_of_memory(std::size_t(2048) << 20, std::size_t(1024) << 20, std::size_t(81559) << 20);
  CHECK(text == "out of GPU memory allocating 2048.0 MiB (1024.0 MiB free of 81559.0 MiB): try a smaller --size");
}

TEST_CASE("probe_gpu finds a usable GPU or says why, with the skip or fail exit code", "[host][check]") {
  const wb::GpuStatus status = wb::probe_gpu();
  if (status.usable) {
    CHECK(status.exit_code == wb::kExitPass);
  } else {
    INFO(status.message);
    CHECK((status.exit_code == wb::kExitSkip || status.exit_code == wb::kExitFail));
    CHECK((contains(status.message, "SKIPPED") || contains(status.message, "FAILED")));
  }
}

TEST_CASE("launch errors explain out-of-range block and grid dimensions", "[host][check]") {
  const std::string shape = wb::launch_error_message(cudaErrorInvalidValue, "k.cu", 7);
  CHECK(contains(shape, "cudaErrorInvalidValue"));
  CHECK(contains(shape, "at k.cu:7"));
  CHECK(contains(shape, "more than 1024 threads, or a grid dimension of 0 or above its limit"));
  const std::string config = wb::launch_error_message(cudaErrorInvalidConfiguration, "k.cu", 7);
  CHECK(contains(config, "more than 1024 threads per block"));
  const std::string other = wb::launch_error_message(cudaErrorInvalidDevice, "k.cu", 7);
  CHECK(contains(other, "cudaErrorInvalidDevice"));
}

TEST_CASE("launch_and_explain names a launch error before anything runs", "[host][check]") {
  // The launch-error half needs no GPU: the launcher's CUDA_CHECK_KERNEL throws before any synchronize.
  const std::string text =
      wb::test::launch_and_explain("matmul_naive", [] { CUDA_CHECK(cudaErrorInvalidConfiguration); });
  INFO(text);
  CHECK(text.rfind("launching matmul_naive failed: CUDA error cudaErrorInvalidConfiguration", 0) == 0);
  CHECK(contains(text, "more than 1024 threads per block"));
}
