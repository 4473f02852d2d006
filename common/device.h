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

// FP32 FMA lanes per SM by compute capability (CUDA C++ Programming Guide, arithmetic instruction
// throughput: 64 on 7.x and 8.0, 128 on 8.6-9.0 and on Blackwell, 10.x, 11.0 and 12.x); 0 for an
// architecture the table does not know, whose FP32 peak is then unknown (0), never a guess.
int fp32_lanes_per_sm(int cc_major, int cc_minor);
// Theoretical DRAM bandwidth: two transfers per memory clock over the bus, in GB/s (1e9 B/s).
double dram_peak_gbs(int mem_clock_khz, int bus_width_bits);
// Theoretical FP32 rate: every lane retires one FMA (2 FLOP) per clock, in GFLOP/s.
double fp32_peak_gflops(int sm_count, int lanes_per_sm, int sm_clock_khz);

DeviceInfo query_device(int device = 0);
double dram_peak_gbs(const DeviceInfo& info);
double fp32_peak_gflops(const DeviceInfo& info);
// Dense BF16 tensor-core FLOP per clock per SM with FP32 accumulation, from NVIDIA's published dense
// rates divided by SMs x clock:
//   9.0   4096  Hopper (H100 SXM: 132 SMs x 1830 MHz x 4096 = 989 TFLOP/s, H100 datasheet).
//   8.0   2048  A100 (108 x 1410 MHz x 2048 = 312 TFLOP/s, A100 datasheet).
//   8.6, 8.7, 8.9  1024  other Ampere and Ada (Ada architecture whitepaper: RTX 4090 128 x 2520 MHz x
//         1024 = 330 TFLOP/s with FP16 accumulation; the GA102 whitepaper has the same rate per SM).
//   10.x  8192  datacenter Blackwell (B200, B100, GB200): NVIDIA's B200 datasheet gives HGX B200 2.25
//         PFLOP/s dense BF16 on its 148 SMs, 15.2 TFLOP/s per SM. It publishes no clock with it: 8192
//         FLOP per clock is that at 1856 MHz (4096 would need 3.7 GHz, beyond any GPU's clock), twice
//         Hopper per SM per clock; the 2.5 PFLOP/s it gives a GB200 GPU at 1200 W is 8192 at 2060 MHz.
//   12.x  1024  RTX Blackwell (RTX 50xx, RTX PRO Blackwell): the RTX Blackwell GPU architecture
//         whitepaper gives the RTX 5090 (170 SMs, 2407 MHz boost) 838 sparse, so 419 dense, FP16/BF16
//         tensor TFLOP/s: 170 x 2407 MHz x 1024 = 419 TFLOP/s, the Ada rate per SM per clock.
// 0 where unknown (an architecture this table lacks: the result line then says the peak is unknown)
// or absent (Turing has no BF16 tensor cores).
int bf16_flop_per_clock_per_sm(int cc_major, int cc_minor);
// GeForce boards of Ampere, Ada and RTX Blackwell (8.6, 8.9, 12.x) run tensor-core math with FP32
// accumulation (BF16, FP16 into FP32, TF32) at half the rate of the professional boards on the same
// chip (the whitepapers' tables: RTX 4090 165 dense BF16 TFLOP/s with FP32 accumulation, not 330; RTX
// 5090 209.5, not 419). Judged by the device name, as nothing else tells them apart.
bool geforce_half_rate_fp32_accumulate(const DeviceInfo& info);
// The peak from the attributes: SMs x that x the peak SM clock, halved where
// geforce_half_rate_fp32_accumulate says so; 0 when unknown. The attribute's clock is the highest boost
// clock (1980 MHz on the H100 SXM, giving 1070 TFLOP/s), above the 1830 MHz NVIDIA quotes its 989 at.
double bf16_peak_gflops(const DeviceInfo& info);
// Dense TF32 tensor-core FLOP per clock per SM, half the BF16 rate on each architecture: 4096 on
// datacenter Blackwell (10.x: NVIDIA's B200 datasheet gives HGX B200 1.1 PFLOP/s dense TF32, half its
// BF16), 2048 on Hopper (H100 SXM 495 TFLOP/s), 1024 on the A100 (156), 512 on other Ampere, Ada and
// RTX Blackwell (12.x) GPUs (the architecture whitepapers); 0 where absent or unknown.
int tf32_flop_per_clock_per_sm(int cc_major, int cc_minor);
// SMs x that x the peak SM clock, halved on GeForce boards as BF16's is (TF32 accumulates in FP32:
// RTX 4090 82.6 dense TF32 TFLOP/s, not 165); 0 when unknown.
double tf32_peak_gflops(const DeviceInfo& info);
// "NVIDIA H100 80GB HBM3  sm_90  132 SMs  1980 MHz  DRAM 3352 GB/s  FP32 66.9 TFLOP/s (from attributes)"
std::string describe(const DeviceInfo& info);

// Median D2D cudaMemcpy bandwidth over `bytes`, counting bytes read plus bytes written, L2 flushed
// between repeats: the practical ceiling for a memory-bound kernel on this GPU, now.
double measure_memcpy_d2d_gbs(std::size_t bytes, int repeat = 20);

}  // namespace wb

namespace wb {
// Multiprocessors of the current device (cudaGetDevice), read once per device: launchers size grids
// with it on every call, so the attribute is asked once, and a program that switches devices with
// cudaSetDevice gets each device's own count, never the first one's.
int current_sm_count();
// The cache behind current_sm_count, with the attribute query passed in (so host tests can count its
// calls): query(device) runs once per device number below 64, and on every call for higher numbers.
// A count of 0 or less is not kept.
int sm_count_cached(int device, int (*query)(int device));
// Blocks for a grid-stride loop over `items` with `block_size` threads each: enough to cover the
// items, but at most `blocks_per_sm` per SM (more only adds scheduling work; the loop does the rest).
int grid_stride_blocks(std::size_t items, int block_size, int blocks_per_sm);
// Blocks for a grid that covers `items` in one pass, each block taking `items_per_block` of them: at
// least 1 (a kernel may still have a head or tail to do), and a std::length_error naming the count
// when it would pass gridDim.x's limit of 2^31 - 1 blocks, never a wrapped int.
int covering_blocks(std::size_t items, std::size_t items_per_block);
}  // namespace wb
