// SPDX-License-Identifier: MIT
// The GPU half of common/: buffers, guards, timing and the memcpy reference, on a real device.
// (Skipped with exit 77 where there is no GPU.)
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/device.h"
#include "common/testing.h"
#include "common/timer.h"

TEST_CASE("DeviceBuffer round-trips data and reports out-of-memory with sizes", "[gpu][common]") {
  const std::vector<float> data = wb::random_floats(1000, 1);
  wb::DeviceBuffer<float> buffer(data);
  CHECK(buffer.download() == data);
  wb::DeviceBuffer<float> moved = std::move(buffer);
  CHECK(buffer.data() == nullptr);
  CHECK(moved.download() == data);
  try {
    wb::DeviceBuffer<char> huge(std::size_t(1) << 50);  // 1 PiB
    FAIL("allocating 1 PiB did not throw");
  } catch (const wb::CudaError& e) {
    CHECK(e.code() == cudaErrorMemoryAllocation);
    CHECK(std::string(e.what()).find("out of GPU memory allocating") != std::string::npos);
  }
  // The failed allocation must not poison the context.
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  CHECK(wb::DeviceBuffer<float>(16).download().size() == 16);
}

TEST_CASE("GuardedDeviceBuffer starts poisoned, stays aligned and catches writes on both sides", "[gpu][common]") {
  wb::GuardedDeviceBuffer<float> out(1000);
  CHECK(reinterpret_cast<std::uintptr_t>(out.data()) % 256 == 0);
  const std::vector<float> initial = out.download();
  CHECK(wb::compare(std::vector<float>(1000, 1.0f), initial, wb::Tolerance{}).untouched == 1000);
  CHECK(out.check_guards().ok());

  SECTION("a write just past the end") {
    REQUIRE(cudaMemset(out.data() + 1000, 0, sizeof(float)) == cudaSuccess);
    const wb::GuardReport r = out.check_guards();
    CHECK(r.back_damaged == 1);
    CHECK(r.first_after == 1000);
  }
  SECTION("a write just before the start") {
    REQUIRE(cudaMemset(out.data() - 1, 0, sizeof(float)) == cudaSuccess);
    const wb::GuardReport r = out.check_guards();
    CHECK(r.front_damaged == 1);
    CHECK(r.first_before == -1);
  }
}

TEST_CASE("PinnedBuffer gives page-locked host memory", "[gpu][common]") {
  wb::PinnedBuffer<float> pinned(1 << 20);
  cudaPointerAttributes attributes{};
  REQUIRE(cudaPointerGetAttributes(&attributes, pinned.data()) == cudaSuccess);
  CHECK(attributes.type == cudaMemoryTypeHost);
}

TEST_CASE("bench times every repeat, and the memcpy reference lands between 10% and 100% of peak", "[gpu][common]") {
  wb::DeviceBuffer<float> a(1 << 24), b(1 << 24);
  const wb::TimingStats t = wb::bench(nullptr, wb::BenchOptions{2, 7, true}, [&] {
    CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, nullptr));
  });
  CHECK(t.samples == 7);
  CHECK(t.min_ms > 0.0);
  CHECK(t.min_ms <= t.median_ms);
  CHECK(t.median_ms <= t.max_ms);

  const wb::DeviceInfo info = wb::query_device(0);
  const double memcpy_gbs = wb::measure_memcpy_d2d_gbs(std::size_t(256) << 20, 10);
  INFO(wb::describe(info) << "; memcpy " << memcpy_gbs << " GB/s");
  CHECK(memcpy_gbs > 0.1 * wb::dram_peak_gbs(info));
  CHECK(memcpy_gbs < 1.0 * wb::dram_peak_gbs(info));
  CHECK(wb::grid_stride_blocks(1, 256, 32) == 1);
  CHECK(wb::grid_stride_blocks(std::size_t(1) << 40, 256, 32) == 32 * info.sm_count);
}
