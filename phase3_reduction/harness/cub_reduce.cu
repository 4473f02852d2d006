// SPDX-License-Identifier: MIT
// CUB's device-wide sum, the phase's yardstick. The only file of the phase's support library that
// includes CUB's reduction (heavy headers stay out of everything else; CUB's scan, 3.11's yardstick,
// lives in cub_scan.cu).
#include <cub/device/device_reduce.cuh>

#include "common/buffer.h"
#include "common/check.h"
#include "common/report.h"
#include "phase3_reduction/harness/lesson_support.h"

namespace p3 {

wb::TimingStats time_cub_reduce(const float* in, std::size_t n, const wb::BenchOptions& options, float* sum_out) {
  wb::DeviceBuffer<float> result(1);
  std::size_t temp_bytes = 0;
  CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, result.data(), n));
  wb::DeviceBuffer<unsigned char> temp(temp_bytes > 0 ? temp_bytes : 1);
  auto run = [&] { CUDA_CHECK(cub::DeviceReduce::Sum(temp.data(), temp_bytes, in, result.data(), n)); };
  const wb::TimingStats stats = wb::bench(nullptr, options, run);
  if (sum_out != nullptr) *sum_out = result.download()[0];
  return stats;
}

}  // namespace p3
