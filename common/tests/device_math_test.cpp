// SPDX-License-Identifier: MIT
// Peak arithmetic from device attributes, checked against published datasheet numbers.
#include <cmath>
#include <cstddef>
#include <stdexcept>

#include "common/device.h"
#include "common/testing.h"

TEST_CASE("DRAM peak is 2 transfers per memory clock times the bus width", "[host][device]") {
  // H100 SXM5: 2619 MHz HBM3 clock, 5120-bit bus -> 3352 GB/s (datasheet: 3.35 TB/s).
  CHECK(std::fabs(wb::dram_peak_gbs(2619000, 5120) - 3352.32) < 0.01);
  // A100 40GB: 1215 MHz, 5120 bits -> 1555 GB/s.
  CHECK(std::fabs(wb::dram_peak_gbs(1215000, 5120) - 1555.2) < 0.01);
  // RTX 4090 reports a 10501 MHz GDDR6X clock on a 384-bit bus -> 1008 GB/s.
  CHECK(std::fabs(wb::dram_peak_gbs(10501000, 384) - 1008.1) < 0.1);
  CHECK(wb::dram_peak_gbs(0, 5120) == 0.0);
}

TEST_CASE("FP32 peak is SMs x FMA lanes x 2 FLOP x clock", "[host][device]") {
  // H100 SXM5: 132 SMs x 128 lanes x 2 x 1980 MHz = 66.9 TFLOP/s.
  CHECK(std::fabs(wb::fp32_peak_gflops(132, wb::fp32_lanes_per_sm(9, 0), 1980000) - 66908.16) < 0.01);
  // A100: 108 SMs x 64 lanes x 2 x 1410 MHz = 19.5 TFLOP/s.
  CHECK(std::fabs(wb::fp32_peak_gflops(108, wb::fp32_lanes_per_sm(8, 0), 1410000) - 19491.84) < 0.01);
}

TEST_CASE("FP32 lanes per SM follow the compute capability", "[host][device]") {
  CHECK(wb::fp32_lanes_per_sm(7, 0) == 64);
  CHECK(wb::fp32_lanes_per_sm(7, 5) == 64);
  CHECK(wb::fp32_lanes_per_sm(8, 0) == 64);
  CHECK(wb::fp32_lanes_per_sm(8, 6) == 128);
  CHECK(wb::fp32_lanes_per_sm(8, 9) == 128);
  CHECK(wb::fp32_lanes_per_sm(9, 0) == 128);
  CHECK(wb::fp32_lanes_per_sm(12, 0) == 128);
}

TEST_CASE("BF16 tensor peak is SMs x FLOP per clock x clock, halved on GeForce Ampere and Ada", "[host][device]") {
  CHECK(wb::bf16_flop_per_clock_per_sm(9, 0) == 4096);
  CHECK(wb::bf16_flop_per_clock_per_sm(8, 0) == 2048);
  CHECK(wb::bf16_flop_per_clock_per_sm(8, 6) == 1024);
  CHECK(wb::bf16_flop_per_clock_per_sm(8, 9) == 1024);
  CHECK(wb::bf16_flop_per_clock_per_sm(7, 5) == 0);  // Turing: no BF16 tensor cores
  wb::DeviceInfo h100;
  h100.name = "NVIDIA H100 80GB HBM3";
  h100.cc_major = 9;
  h100.sm_count = 132;
  h100.sm_clock_khz = 1830000;  // the clock NVIDIA quotes its 989 TFLOP/s at
  CHECK(std::fabs(wb::bf16_peak_gflops(h100) - 989429.76) < 0.01);
  wb::DeviceInfo rtx4090;
  rtx4090.name = "NVIDIA GeForce RTX 4090";
  rtx4090.cc_major = 8;
  rtx4090.cc_minor = 9;
  rtx4090.sm_count = 128;
  rtx4090.sm_clock_khz = 2520000;
  CHECK(std::fabs(wb::bf16_peak_gflops(rtx4090) - 165150.72) < 0.01);  // 165 dense TFLOP/s: half rate
}

TEST_CASE("describe names the device, its architecture and both peaks", "[host][device]") {
  wb::DeviceInfo info;
  info.name = "NVIDIA H100 80GB HBM3";
  info.cc_major = 9;
  info.sm_count = 132;
  info.sm_clock_khz = 1980000;
  info.mem_clock_khz = 2619000;
  info.bus_width_bits = 5120;
  info.l2_bytes = 50u << 20;
  const std::string text = wb::describe(info);
  CHECK(text.find("NVIDIA H100 80GB HBM3") == 0);
  CHECK(text.find("sm_90") != std::string::npos);
  CHECK(text.find("132 SMs") != std::string::npos);
  CHECK(text.find("DRAM 3352 GB/s") != std::string::npos);
  CHECK(text.find("FP32 66.9 TFLOP/s") != std::string::npos);
}

TEST_CASE("covering_blocks covers every item in one pass, at least one block, never past gridDim.x's limit",
          "[host][device]") {
  CHECK(wb::covering_blocks(0, 1024) == 1);  // a kernel with only a head or a tail still gets threads
  CHECK(wb::covering_blocks(1, 1024) == 1);
  CHECK(wb::covering_blocks(1024, 1024) == 1);
  CHECK(wb::covering_blocks(1025, 1024) == 2);
  CHECK(wb::covering_blocks(std::size_t(64) << 20, 1024) == 65536);
  const std::size_t limit = 2147483647;  // 2^31 - 1 blocks
  CHECK(wb::covering_blocks(limit * 256, 256) == 2147483647);
  CHECK_THROWS_AS(wb::covering_blocks(limit * 256 + 1, 256), std::length_error);
}
