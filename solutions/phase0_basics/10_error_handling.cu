// SPDX-License-Identifier: MIT
// 0.10 error_handling: a failed launch is silent unless you ask, and an overrun is silent even then.
//
// You learn: a <<<>>> launch returns nothing, so an invalid configuration (2048 threads per block)
// goes unnoticed unless you ask cudaGetLastError(), which CUDA_CHECK_KERNEL() does for you; and
// a missing bounds check raises no error at all: it quietly overwrites whatever follows your
// buffer, which only guard canaries or compute-sanitizer memcheck reveal.
// Task: scale_in_place (data[i] *= s) has two bugs, each marked for you. Check the launch, and keep the
// extra threads of the last block (i >= n) away from memory.
// You decide: which check catches which bug, and where each must sit: the launch's before the caller
//             can miss it, the bounds check before any thread past n touches memory.
// Source: CUDA C++ Programming Guide, "Error Checking": cudaGetLastError after every launch.
// Run:   ./workbook run 0.10 [-- --size 64M]
// Check: ./workbook check 0.10
// Aim:   both demos report the bug caught; scale_in_place near 80% of the cudaMemcpy bandwidth.
// Previous: 0.09 streams. Next: 0.11 histogram.

#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "common/workbook.h"
#include "phase0_basics/basics.cuh"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void scale_in_place_kernel(float* __restrict__ data, std::size_t n, float s) {
  // One element per thread. The grid comes in whole blocks, so the last block usually has threads
  // past the end: n = 1000 with 256 threads per block launches 1024 threads, and 24 have no element.
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;  // nothing checks this for you: the write would simply land in someone else's memory
  data[i] *= s;
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void scale_in_place(float* data, std::size_t n, float s, int threads_per_block, cudaStream_t stream) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch
  // Round up so every element gets a thread. A block size of 0 or less is as invalid as 2048: divide
  // by 1 instead of crashing here, and let the launch itself report the bad configuration.
  const std::size_t block = threads_per_block > 0 ? static_cast<std::size_t>(threads_per_block) : 1;
  const unsigned blocks = static_cast<unsigned>(wb::ceil_div(n, block));
  scale_in_place_kernel<<<blocks, threads_per_block, 0, stream>>>(data, n, s);
  // A launch returns no status: a bad configuration only sets the thread's "last error", and the
  // kernel simply never runs. Nothing fails until someone looks at the data.
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// The binary that is running, for the compute-sanitizer command line.
std::string lesson_binary(const wb::Lesson& lesson) {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error) return self.string();
  return "p0_10_" + lesson.name() + (lesson.variant() == "solution" ? "_solution" : "");
}

// Demo 1: 2048 threads per block is over the limit of 1024. Does anyone notice?
bool demo_invalid_launch() {
  const std::size_t n = 1000;
  wb::GuardedDeviceBuffer<float> data(n);
  data.fill(1.0f);
  bool caught = false;
  try {
    scale_in_place(data.data(), n, 2.0f, 2048, nullptr);
  } catch (const wb::CudaError& e) {
    // Older toolkits say cudaErrorInvalidConfiguration; CUDA 13.0 says cudaErrorInvalidValue.
    caught = true;
    std::printf("1. 2048 threads per block: CUDA_CHECK_KERNEL caught it:\n   %s\n", e.what());
  }
  // Launch-configuration errors are not sticky: reading the last error clears it, and the context
  // stays usable. (Errors while a kernel runs, like an illegal address, are sticky: the context is lost.)
  const cudaError_t pending = cudaGetLastError();
  CUDA_CHECK(cudaDeviceSynchronize());
  if (!caught) {
    std::printf(
        "1. 2048 threads per block: the launch failed silently: the kernel never ran, yet scale_in_place "
        "returned normally (cudaGetLastError says %s). FAIL: check the launch with CUDA_CHECK_KERNEL().\n",
        cudaGetErrorName(pending));
  }
  return caught;
}

// Demo 2: n = 1000 with 256 threads per block launches 1024 threads. Do the last 24 stay put?
// Here the data sits between canaries, so an overrun shows as changed canaries instead of changed
// neighbours; a plain buffer of the same size then lets compute-sanitizer point at the line.
bool demo_overrun(const wb::Lesson& lesson) {
  const std::size_t n = 1000;
  const std::vector<float> x = wb::random_floats(n, lesson.seed());
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = -x[i];
  wb::GuardedDeviceBuffer<float> guarded(n);
  guarded.upload(x);
  scale_in_place(guarded.data(), n, -1.0f, 256, nullptr);
  // 1000 floats end 96 bytes before a 256-byte boundary, and cudaMalloc starts every buffer on one:
  // the 24 extra threads of this buffer's last block can only hit padding that belongs to no buffer.
  // memcheck reports such a write; without it, nothing breaks.
  wb::DeviceBuffer<float> plain(x);
  scale_in_place(plain.data(), n, -1.0f, 256, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("2. n = 1000, 256 threads per block (1024 threads, 24 of them past the end):\n");
  std::fflush(stdout);
  const bool ok = wb::check_output("scale_in_place n=1000", expected, guarded, wb::Tolerance{0, 0});
  std::printf(ok ? "   the canaries after the data survived: no thread wrote past n\n"
                 : "   FAIL: the canaries after the data changed (report above): add the bounds check\n");
  std::printf(
      "   To find such a write by file:line in any program, run it under compute-sanitizer:\n"
      "   compute-sanitizer --tool memcheck %s --size 1M --repeat 1\n",
      lesson_binary(lesson).c_str());
  return ok;
}

// Napkin math: each element is read once and written once in place: 8 bytes; n = 64M moves 537 MB,
// about 0.18 ms at the H100's ~3 TB/s, the same traffic as a copy of the array.
int error_handling_lesson(wb::Lesson& lesson) {
  bool pass = demo_invalid_launch();
  pass = demo_overrun(lesson) && pass;

  const std::size_t n = lesson.size_or(64 * wb::MiB);
  lesson.require_memory(4.0 * static_cast<double>(n), 16.0 * static_cast<double>(n));
  const std::vector<float> x = wb::random_floats(n, lesson.seed() + 1);
  wb::GuardedDeviceBuffer<float> data(n);
  data.upload(x);
  // The kernel updates in place, so every timed repeat scales the data again. With s = -1 each call
  // only flips the sign, exactly, so after k calls data = x when k is even and -x when k is odd.
  const float s = -1.0f;
  int calls = 0;
  const auto launch = [&] {
    scale_in_place(data.data(), n, s, 256, nullptr);
    ++calls;
  };
  const auto expected_after_calls = [&] {
    std::vector<float> e(x);
    if (calls % 2 == 1)
      for (float& v : e) v = -v;
    return e;
  };
  launch();
  CUDA_CHECK(cudaDeviceSynchronize());
  pass = wb::check_output("scale_in_place", expected_after_calls(), data, wb::Tolerance{0, 0}) && pass;
  const wb::TimingStats time = wb::bench(nullptr, lesson.bench_options(true), launch);
  pass = wb::check_output("scale_in_place (after timing)", expected_after_calls(), data, wb::Tolerance{0, 0}) && pass;
  lesson.report(
      lesson.memory_bound_line("scale_in_place", "n=" + wb::format_count(n), time, 8.0 * static_cast<double>(n), pass));
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(error_handling_lesson, "what CUDA_CHECK_KERNEL catches, and what only a bounds check prevents");
