// SPDX-License-Identifier: MIT
// What the GPU can do in theory (from its attributes) and what it does in practice (a
// device-to-device cudaMemcpy measured in the same run). Result lines quote both.
#pragma once

#include <cstddef>
#include <string>

namespace wb {

struct DeviceInfo {
  int id = 0;
  std::string name;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;   // peak SM clock (cudaDevAttrClockRate)
  int mem_clock_khz = 0;  // peak memory clock (cudaDevAttrMemoryClockRate)
  int bus_width_bits = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_mem_bytes = 0;
  int max_threads_per_block = 0;
  int async_engines = 0;  // copy engines: 2 lets H2D and D2H overlap
};

// FP32 FMA lanes per SM by compute capability (CUDA C Programming Guide, arithmetic throughput).
int fp32_lanes_per_sm(int cc_major, int cc_minor);
// Theoretical DRAM bandwidth: two transfers per memory clock over the bus, in GB/s (1e9 B/s).
double dram_peak_gbs(int mem_clock_khz, int bus_width_bits);
// Theoretical FP32 rate: every lane retires one FMA (2 FLOP) per clock, in GFLOP/s.
double fp32_peak_gflops(int sm_count, int lanes_per_sm, int sm_clock_khz);

DeviceInfo query_device(int device = 0);
double dram_peak_gbs(const DeviceInfo& info);
double fp32_peak_gflops(const DeviceInfo& info);
// Dense BF16 tensor-core FLOP per clock per SM with FP32 accumulation (NVIDIA architecture
// whitepapers): 4096 on Hopper (H100 SXM: 132 SMs x 1830 MHz x 4096 = 989 TFLOP/s), 2048 on the A100
// (108 x 1410 MHz x 2048 = 312), 1024 on other Ampere and Ada GPUs (sm_86, sm_87, sm_89); 0 where
// unknown or absent (Turing has no BF16 tensor cores).
int bf16_flop_per_clock_per_sm(int cc_major, int cc_minor);
// The peak from the attributes: SMs x that x the peak SM clock. GeForce Ampere and Ada boards run BF16
// with FP32 accumulation at half rate (RTX 4090: 165 dense TFLOP/s, not 330), so for a device named
// GeForce the rate halves. The attribute's clock is the highest boost clock (1980 MHz on the H100 SXM,
// giving 1070 TFLOP/s), above the 1830 MHz NVIDIA quotes its 989 at.
double bf16_peak_gflops(const DeviceInfo& info);
// "NVIDIA H100 80GB HBM3  sm_90  132 SMs  1980 MHz  DRAM 3352 GB/s  FP32 66.9 TFLOP/s (from attributes)"
std::string describe(const DeviceInfo& info);

// Median D2D cudaMemcpy bandwidth over `bytes`, counting bytes read plus bytes written, L2 flushed
// between repeats: the practical ceiling for a memory-bound kernel on this GPU, now.
double measure_memcpy_d2d_gbs(std::size_t bytes, int repeat = 20);

}  // namespace wb

namespace wb {
// Multiprocessors of the current device, read once per process (launchers size grids with it).
int current_sm_count();
// Blocks for a grid-stride loop over `items` with `block_size` threads each: enough to cover the
// items, but at most `blocks_per_sm` per SM (more only adds scheduling work; the loop does the rest).
int grid_stride_blocks(std::size_t items, int block_size, int blocks_per_sm);
// Blocks for a grid that covers `items` in one pass, each block taking `items_per_block` of them: at
// least 1 (a kernel may still have a head or tail to do), and a std::length_error naming the count
// when it would pass gridDim.x's limit of 2^31 - 1 blocks, never a wrapped int.
int covering_blocks(std::size_t items, std::size_t items_per_block);
}  // namespace wb
