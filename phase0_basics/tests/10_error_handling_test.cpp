// SPDX-License-Identifier: MIT
// Graded tests for 0.10 error_handling: an invalid launch configuration must throw wb::CudaError
// (not fail silently), and no thread may write past n, for sizes that leave the last block partly
// empty. The data sits in guarded buffers (1024 canaries after it, more than any block's overhang),
// so a missing bounds check shows as "wrote past the end" instead of corrupting memory.
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase0_basics/basics.cuh"

TEST_CASE("scale_in_place reports an invalid launch configuration", "[p0][0.10][gpu]") {
  // compute-sanitizer memcheck counts every failed API call as an error, the launch this test provokes
  // included. The check is host logic with no kernel running: the sanitizer runs have nothing to add.
  if (wb::test::sanitize_mode()) {
    SUCCEED("skipped under compute-sanitizer (WB_SANITIZE): the invalid launch would count as an API error");
    return;
  }
  // 2048 is over the limit of 1024 threads per block; 0 threads is no block at all.
  const int threads = GENERATE(2048, 0);
  const std::size_t n = 1000;
  const std::uint64_t seed = wb::test::seed();
  INFO("scale_in_place with n = " << n << " and " << threads << " threads per block, seed " << seed);
  const std::vector<float> x = wb::random_floats(n, seed);
  wb::GuardedDeviceBuffer<float> data(n);
  data.upload(x);

  (void)cudaGetLastError();  // start from a clean slate
  bool threw = false;
  cudaError_t code = cudaSuccess;
  try {
    scale_in_place(data.data(), n, 2.0f, threads, nullptr);
  } catch (const wb::CudaError& e) {
    threw = true;
    code = e.code();
  }
  // Launch-configuration errors are not sticky: reading the last error clears it, so the tests after
  // this one start clean whatever scale_in_place did.
  const cudaError_t pending = cudaGetLastError();
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);

  if (!threw && pending != cudaSuccess) {
    FAIL("the launch failed silently: with " << threads << " threads per block the kernel never ran ("
                                             << cudaGetErrorName(pending)
                                             << " was waiting in cudaGetLastError), yet scale_in_place returned "
                                                "normally. Add CUDA_CHECK_KERNEL() after the launch.");
  }
  if (!threw) {
    FAIL("scale_in_place returned normally with " << threads
                                                  << " threads per block and no error was "
                                                     "pending: launch the kernel with the block size you were given "
                                                     "and check the launch with CUDA_CHECK_KERNEL(), which throws "
                                                     "wb::CudaError.");
  }
  // The runtime calls a bad block size cudaErrorInvalidConfiguration (the classic answer) or
  // cudaErrorInvalidValue (CUDA 13.0 on an H100): either is the launch's own error, passed on unchanged.
  INFO("scale_in_place threw wb::CudaError with " << cudaGetErrorName(code) << ": pass on the launch's error as it is");
  CHECK((code == cudaErrorInvalidConfiguration || code == cudaErrorInvalidValue));
  // The kernel never ran: the data must be exactly as uploaded.
  WB_REQUIRE_OK(data.check_guards(), "scale_in_place after a failed launch");
  WB_REQUIRE_OK(wb::compare(x, data.download(), wb::Tolerance{0, 0}), "scale_in_place after a failed launch");
}

TEST_CASE("scale_in_place never writes past n", "[p0][0.10][gpu]") {
  // 0 (no launch); 1, 31, 33: less than a warp to just over one; 1000 and 4099 (a prime): partial
  // last blocks for every block size; 1M + 1: one element into a new block.
  const std::size_t n =
      GENERATE(Catch::Generators::from_range(wb::test::sizes({0, 1, 31, 33, 1000, 4099, (std::size_t(1) << 20) + 1})));
  const int threads = GENERATE(32, 256, 1024);
  const std::uint64_t seed = wb::test::seed();
  INFO("scale_in_place with n = " << n << " and " << threads << " threads per block, seed " << seed
                                  << " (replay with WB_SEED=" << seed << ")");
  const std::vector<float> x = wb::random_floats(n, seed);
  const float s = -2.5f;  // not +-1: a product with rounding, and an element scaled twice shows
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = x[i] * s;  // one float multiply, the same on CPU and GPU

  wb::GuardedDeviceBuffer<float> data(n);  // 1024 canaries after the data: the overhang stays inside them
  data.upload(x);
  (void)cudaGetLastError();
  WB_RUN_LAUNCHER(scale_in_place(data.data(), n, s, threads, nullptr));
  WB_REQUIRE_OK(data.check_guards(), "scale_in_place");
  WB_REQUIRE_OK(wb::compare(expected, data.download(), wb::Tolerance{0, 0}), "scale_in_place");
}
