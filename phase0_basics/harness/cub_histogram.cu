// SPDX-License-Identifier: MIT
#include <cstdint>
#include <cub/device/device_histogram.cuh>

#include "common/buffer.h"
#include "common/check.h"
#include "phase0_basics/harness/cub_histogram.h"

namespace p0 {

wb::TimingStats time_cub_histogram(const unsigned char* data, std::size_t n, int num_bins,
                                   const wb::BenchOptions& options, std::vector<unsigned int>* bins_out) {
  wb::DeviceBuffer<unsigned int> bins(static_cast<std::size_t>(num_bins));
  // num_bins + 1 levels from 0 to 256: bin (v - 0) * num_bins / (256 - 0), rounded down, as CUB
  // documents for integer samples. CUB zeroes the counters itself on every call.
  const int num_levels = num_bins + 1;
  const int lower = 0;
  const int upper = 256;
  const std::int64_t samples = static_cast<std::int64_t>(n);  // CUB takes a signed offset type
  std::size_t temp_bytes = 0;
  // With a null temporary buffer CUB only writes the size it needs.
  CUDA_CHECK(
      cub::DeviceHistogram::HistogramEven(nullptr, temp_bytes, data, bins.data(), num_levels, lower, upper, samples));
  wb::DeviceBuffer<unsigned char> temp(temp_bytes > 0 ? temp_bytes : 1);
  auto run = [&] {
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp.data(), temp_bytes, data, bins.data(), num_levels, lower, upper,
                                                   samples));
  };
  const wb::TimingStats stats = wb::bench(nullptr, options, run);
  if (bins_out != nullptr) *bins_out = bins.download();
  return stats;
}

}  // namespace p0
