// SPDX-License-Identifier: MIT
// Peak arithmetic from device attributes, checked against published datasheet numbers.
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>

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
  CHECK(wb::fp32_lanes_per_sm(10, 0) == 128);  // B200
  CHECK(wb::fp32_lanes_per_sm(10, 3) == 128);
  CHECK(wb::fp32_lanes_per_sm(11, 0) == 128);
  CHECK(wb::fp32_lanes_per_sm(12, 0) == 128);  // RTX 50xx
  CHECK(wb::fp32_lanes_per_sm(12, 1) == 128);
  CHECK(wb::fp32_lanes_per_sm(13, 0) == 0);  // unknown: no peak, not a guess
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

TEST_CASE("BF16 tensor peak on Blackwell: 8192 per SM per clock on 10.x, 1024 on 12.x, halved on GeForce",
          "[host][device]") {
  CHECK(wb::bf16_flop_per_clock_per_sm(10, 0) == 8192);  // B200, B100, GB200
  CHECK(wb::bf16_flop_per_clock_per_sm(10, 3) == 8192);
  CHECK(wb::bf16_flop_per_clock_per_sm(12, 0) == 1024);  // RTX 50xx, RTX PRO Blackwell
  CHECK(wb::bf16_flop_per_clock_per_sm(12, 1) == 1024);
  // B200 datasheet: 2.25 PFLOP/s dense BF16 on 148 SMs, which 8192 FLOP per clock reaches at 1856 MHz.
  wb::DeviceInfo b200;
  b200.name = "NVIDIA B200";
  b200.cc_major = 10;
  b200.sm_count = 148;
  b200.sm_clock_khz = 1856000;
  CHECK(std::fabs(wb::bf16_peak_gflops(b200) / 2.25e6 - 1.0) < 0.001);
  CHECK_FALSE(wb::geforce_half_rate_fp32_accumulate(b200));
  // RTX 5090: 170 SMs at 2407 MHz, 419 dense TFLOP/s with FP16 accumulation, half that with FP32's.
  wb::DeviceInfo rtx5090;
  rtx5090.name = "NVIDIA GeForce RTX 5090";
  rtx5090.cc_major = 12;
  rtx5090.sm_count = 170;
  rtx5090.sm_clock_khz = 2407000;
  CHECK(wb::geforce_half_rate_fp32_accumulate(rtx5090));
  CHECK(std::fabs(wb::bf16_peak_gflops(rtx5090) - 209505.28) < 0.01);
  // A professional board on the same architecture runs at the full rate.
  wb::DeviceInfo pro = rtx5090;
  pro.name = "NVIDIA RTX PRO 6000 Blackwell Workstation Edition";
  CHECK_FALSE(wb::geforce_half_rate_fp32_accumulate(pro));
  CHECK(std::fabs(wb::bf16_peak_gflops(pro) - 419010.56) < 0.01);
}

TEST_CASE("TF32 tensor peak is half the BF16 one per SM per clock, halved on GeForce", "[host][device]") {
  CHECK(wb::tf32_flop_per_clock_per_sm(10, 0) == 4096);
  CHECK(wb::tf32_flop_per_clock_per_sm(9, 0) == 2048);
  CHECK(wb::tf32_flop_per_clock_per_sm(8, 0) == 1024);
  CHECK(wb::tf32_flop_per_clock_per_sm(8, 9) == 512);
  CHECK(wb::tf32_flop_per_clock_per_sm(12, 0) == 512);
  CHECK(wb::tf32_flop_per_clock_per_sm(7, 5) == 0);
  CHECK(wb::tf32_flop_per_clock_per_sm(13, 0) == 0);
  wb::DeviceInfo h100;
  h100.cc_major = 9;
  h100.sm_count = 132;
  h100.sm_clock_khz = 1830000;
  CHECK(std::fabs(wb::tf32_peak_gflops(h100) - 494714.88) < 0.01);  // datasheet: 495 dense TFLOP/s
  wb::DeviceInfo rtx4090;
  rtx4090.name = "NVIDIA GeForce RTX 4090";
  rtx4090.cc_major = 8;
  rtx4090.cc_minor = 9;
  rtx4090.sm_count = 128;
  rtx4090.sm_clock_khz = 2520000;
  CHECK(std::fabs(wb::tf32_peak_gflops(rtx4090) - 82575.36) < 0.01);  // Ada whitepaper: 82.6 dense
}

TEST_CASE("an architecture the tables lack has no peak (0), and describe says unknown", "[host][device]") {
  wb::DeviceInfo future;
  future.name = "NVIDIA Future GPU";
  future.cc_major = 13;
  future.sm_count = 200;
  future.sm_clock_khz = 2000000;
  future.mem_clock_khz = 2619000;
  future.bus_width_bits = 5120;
  CHECK(wb::bf16_flop_per_clock_per_sm(13, 0) == 0);
  CHECK(wb::bf16_peak_gflops(future) == 0.0);
  CHECK(wb::tf32_peak_gflops(future) == 0.0);
  CHECK(wb::fp32_peak_gflops(future) == 0.0);
  CHECK(wb::bf16_flop_per_clock_per_sm(11, 0) == 0);  // 11.0 (Thor): no published dense rate per SM here
  const std::string text = wb::describe(future);
  INFO(text);
  CHECK(text.find("FP32 peak unknown") != std::string::npos);
  CHECK(text.find("DRAM 3352 GB/s") != std::string::npos);
  CHECK(text.find("0.0 TFLOP/s") == std::string::npos);
  future.mem_clock_khz = 0;  // an attribute that reads 0
  CHECK(wb::describe(future).find("DRAM peak unknown") != std::string::npos);
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

namespace {
int sm_queries = 0;
int fake_sm_count(int device) {
  ++sm_queries;
  return device == 3 ? 0 : 100 + device;  // device 3 "fails" (0): never cached
}
}  // namespace

TEST_CASE("the SM count is asked once per device, and a change of device gets that device's count", "[host][device]") {
  // Device numbers 40-42 and 3 are this test's own: the cache is per process, shared with any caller.
  sm_queries = 0;
  CHECK(wb::sm_count_cached(40, fake_sm_count) == 140);
  CHECK(wb::sm_count_cached(40, fake_sm_count) == 140);
  CHECK(sm_queries == 1);                                // the second call came from the cache
  CHECK(wb::sm_count_cached(41, fake_sm_count) == 141);  // another current device: its own count
  CHECK(sm_queries == 2);
  CHECK(wb::sm_count_cached(40, fake_sm_count) == 140);  // and back: still the first device's count
  CHECK(wb::sm_count_cached(41, fake_sm_count) == 141);
  CHECK(sm_queries == 2);
  CHECK(wb::sm_count_cached(3, fake_sm_count) == 0);  // a failed read is not kept
  CHECK(wb::sm_count_cached(3, fake_sm_count) == 0);
  CHECK(sm_queries == 4);
  CHECK(wb::sm_count_cached(100, fake_sm_count) == 200);  // past the cache's 64 slots: asked every time
  CHECK(wb::sm_count_cached(100, fake_sm_count) == 200);
  CHECK(sm_queries == 6);
}
