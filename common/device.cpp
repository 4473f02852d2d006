// SPDX-License-Identifier: MIT
#include "common/device.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "common/buffer.h"
#include "common/check.h"
#include "common/timer.h"
#include "common/util.h"

namespace wb {

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  if (cc_major == 7) return 64;                     // Volta, Turing
  if (cc_major == 8 && cc_minor == 0) return 64;    // A100
  if (cc_major == 8) return 128;                    // 8.6, 8.7, 8.9
  if (cc_major >= 9 && cc_major <= 12) return 128;  // Hopper; Blackwell 10.x, 11.0, 12.x
  if (cc_major == 6 && cc_minor == 0) return 64;    // P100
  if (cc_major == 6 || cc_major == 5) return 128;   // other Pascal, Maxwell
  return 0;                                         // unknown: no peak rather than a guess
}

double dram_peak_gbs(int mem_clock_khz, int bus_width_bits) {
  return 2.0 * mem_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

double fp32_peak_gflops(int sm_count, int lanes_per_sm, int sm_clock_khz) {
  return 2.0 * sm_count * lanes_per_sm * (sm_clock_khz * 1e3) / 1e9;
}

DeviceInfo query_device(int device) {
  DeviceInfo info;
  info.id = device;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  info.name = prop.name;
  auto attribute = [device](cudaDeviceAttr attr) {
    int value = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
    return value;
  };
  info.cc_major = attribute(cudaDevAttrComputeCapabilityMajor);
  info.cc_minor = attribute(cudaDevAttrComputeCapabilityMinor);
  info.sm_count = attribute(cudaDevAttrMultiProcessorCount);
  info.sm_clock_khz = attribute(cudaDevAttrClockRate);
  info.mem_clock_khz = attribute(cudaDevAttrMemoryClockRate);
  info.bus_width_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
  info.l2_bytes = static_cast<std::size_t>(attribute(cudaDevAttrL2CacheSize));
  info.max_threads_per_block = attribute(cudaDevAttrMaxThreadsPerBlock);
  info.async_engines = attribute(cudaDevAttrAsyncEngineCount);
  info.global_mem_bytes = prop.totalGlobalMem;
  return info;
}

double dram_peak_gbs(const DeviceInfo& info) {
  return dram_peak_gbs(info.mem_clock_khz, info.bus_width_bits);
}

double fp32_peak_gflops(const DeviceInfo& info) {
  return fp32_peak_gflops(info.sm_count, fp32_lanes_per_sm(info.cc_major, info.cc_minor), info.sm_clock_khz);
}

int bf16_flop_per_clock_per_sm(int cc_major, int cc_minor) {
  if (cc_major == 12) return 1024;  // RTX Blackwell (device.h gives the sources of each number)
  if (cc_major == 10) return 8192;  // datacenter Blackwell
  if (cc_major == 9) return 4096;   // Hopper
  if (cc_major == 8 && cc_minor == 0) return 2048;
  if (cc_major == 8) return 1024;
  return 0;
}

bool geforce_half_rate_fp32_accumulate(const DeviceInfo& info) {
  const bool consumer_chip = (info.cc_major == 8 && info.cc_minor != 0) || info.cc_major == 12;
  return consumer_chip && info.name.find("GeForce") != std::string::npos;
}

double bf16_peak_gflops(const DeviceInfo& info) {
  double per_clock = bf16_flop_per_clock_per_sm(info.cc_major, info.cc_minor);
  if (geforce_half_rate_fp32_accumulate(info)) per_clock /= 2;
  return double(info.sm_count) * per_clock * (info.sm_clock_khz * 1e3) / 1e9;
}

int tf32_flop_per_clock_per_sm(int cc_major, int cc_minor) {
  if (cc_major == 12) return 512;   // RTX Blackwell
  if (cc_major == 10) return 4096;  // datacenter Blackwell
  if (cc_major == 9) return 2048;   // Hopper
  if (cc_major == 8 && cc_minor == 0) return 1024;
  if (cc_major == 8) return 512;
  return 0;
}

double tf32_peak_gflops(const DeviceInfo& info) {
  double per_clock = tf32_flop_per_clock_per_sm(info.cc_major, info.cc_minor);
  if (geforce_half_rate_fp32_accumulate(info)) per_clock /= 2;
  return double(info.sm_count) * per_clock * (info.sm_clock_khz * 1e3) / 1e9;
}

std::string describe(const DeviceInfo& info) {
  // A peak this code cannot work out (an architecture its tables lack, an attribute that reads 0) is
  // said to be unknown, never printed as 0.
  char dram[48], fp32[48], text[320];
  const double dram_gbs = dram_peak_gbs(info), fp32_gflops = fp32_peak_gflops(info);
  if (dram_gbs > 0)
    std::snprintf(dram, sizeof dram, "DRAM %.0f GB/s", dram_gbs);
  else
    std::snprintf(dram, sizeof dram, "DRAM peak unknown");
  if (fp32_gflops > 0)
    std::snprintf(fp32, sizeof fp32, "FP32 %.1f TFLOP/s", fp32_gflops / 1000.0);
  else
    std::snprintf(fp32, sizeof fp32, "FP32 peak unknown");
  std::snprintf(text, sizeof text, "%s  sm_%d%d  %d SMs  %d MHz  L2 %zu MiB  %s  %s (peaks from attributes)",
                info.name.c_str(), info.cc_major, info.cc_minor, info.sm_count, info.sm_clock_khz / 1000,
                info.l2_bytes >> 20, dram, fp32);
  return text;
}

double measure_memcpy_d2d_gbs(std::size_t bytes, int repeat) {
  if (bytes == 0) return 0.0;
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  CUDA_CHECK(cudaMemset(src.data(), 1, bytes));
  cudaStream_t stream = nullptr;  // the legacy default stream, like the lessons' launchers
  const TimingStats t = bench(stream, BenchOptions{3, repeat, true}, [&] {
    CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream));
  });
  return 2.0 * static_cast<double>(bytes) / (t.median_ms * 1e6);
}

}  // namespace wb

namespace wb {
int sm_count_cached(int device, int (*query)(int device)) {
  // One slot per device number, 0 until read (static storage starts zeroed). Two threads that miss
  // at once both ask and store the same count: harmless, and no lock on the launch path.
  constexpr int kCachedDevices = 64;
  static std::atomic<int> counts[kCachedDevices];
  const bool cacheable = device >= 0 && device < kCachedDevices;
  if (cacheable) {
    const int known = counts[device].load(std::memory_order_relaxed);
    if (known > 0) return known;
  }
  const int sms = query(device);
  if (cacheable && sms > 0) counts[device].store(sms, std::memory_order_relaxed);
  return sms;
}

int current_sm_count() {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));  // the calling thread's current device: cheap, no driver query
  return sm_count_cached(device, [](int d) {
    int sms = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
    return sms;
  });
}

int grid_stride_blocks(std::size_t items, int block_size, int blocks_per_sm) {
  const std::size_t needed = ceil_div(items, static_cast<std::size_t>(block_size));
  const std::size_t cap = static_cast<std::size_t>(current_sm_count()) * static_cast<std::size_t>(blocks_per_sm);
  return static_cast<int>(needed < cap ? needed : cap);
}

int covering_blocks(std::size_t items, std::size_t items_per_block) {
  const std::size_t needed = ceil_div(items, items_per_block);
  constexpr std::size_t kMaxGridX = 2147483647;  // cudaDeviceProp::maxGridSize[0] on every GPU since sm_30
  if (needed > kMaxGridX)
    throw std::length_error(std::to_string(items) + " items at " + std::to_string(items_per_block) +
                            " per block need " + std::to_string(needed) + " blocks, more than a grid's 2^31 - 1");
  return needed == 0 ? 1 : static_cast<int>(needed);
}
}  // namespace wb
