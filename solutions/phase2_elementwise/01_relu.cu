// SPDX-License-Identifier: MIT
// 2.01 relu: the idea of a memory-bound kernel, where the arithmetic is free and the bytes are the cost.
//
// You learn: to read a kernel's napkin math (8 bytes moved for one comparison) as "memory-bound",
// to judge such a kernel by the one yardstick that fits, a cudaMemcpy of the same bytes on the same
// GPU (the result line's "% of memcpy"), that its speed is set by the bytes each SM keeps in flight
// (Little's law), and why max(x, 0) must let a NaN through.
// Task: write relu_kernel: each thread applies relu(x) = max(x, 0) to kItemsPerThread elements of
// its block's chunk, issuing all its loads before its first store, for any n, so that a NaN stays NaN.
// Source: CUDA C++ Best Practices Guide, "Effective Bandwidth Calculation": a memory-bound kernel is judged
// by the bytes it moves per second.
// Run:   ./workbook run 2.01 [-- --size 64M]
// Check: ./workbook check 2.01
// Aim:   >= 98% of memcpy on an H100, level with PyTorch's relu; one load in flight per thread
//        measured 80%.
// Previous: 1.14 cluster_multicast (0.02 vector_add has the bounds check). Next: 2.02 gelu.

#include <vector>

#include "common/workbook.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/reference.h"

namespace {

constexpr int kBlockSize = 256;
// Elements each thread loads before it stores any: 4 loads of 4 bytes in flight per thread, 32 KB per
// SM at full occupancy (the lesson's napkin math says why that is enough and one is not).
constexpr int kItemsPerThread = 4;

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void relu_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  // Block b owns the kItemsPerThread * blockDim.x elements after the earlier blocks' ones; thread t
  // takes t, t + blockDim.x, ... of them, so at each step a warp reads 128 contiguous bytes. All loads
  // go out before the first store: the thread waits for one memory round trip, not kItemsPerThread.
  // A NaN must come out as a NaN: fmaxf(x, 0.0f) looks right but returns 0 for a NaN (IEEE maxNum
  // prefers the number) and would hide a NaN coming from an earlier layer; PyTorch's relu keeps it.
  // Which comparisons with a NaN are false, and on which side of your select does that put x?
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x * kItemsPerThread + threadIdx.x;
  float x[kItemsPerThread] = {};
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * blockDim.x;
    if (i < n) x[k] = in[i];
  }
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * blockDim.x;
    if (i < n) out[i] = x[k] < 0.0f ? 0.0f : x[k];
  }
}

// ---- launchers --------------------------------------------------------------------------------------

}  // namespace

// A grid that covers n in one pass: one block per kBlockSize * kItemsPerThread elements. A grid sized
// to the GPU with a grid-stride loop (0.02) measured 93% of memcpy with the same four loads per
// thread on an H100, this grid 100%. Our reading of it (a likely cause, not a profiler's verdict): when
// each block takes one contiguous chunk and exits, the block scheduler hands out chunks in address
// order, so the requests in flight stay in one narrow window of DRAM pages; a grid-stride loop's warps
// drift apart over their many trips and spread their requests over more pages.
void relu(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch
  relu_kernel<<<wb::covering_blocks(n, kBlockSize * kItemsPerThread), kBlockSize, 0, stream>>>(in, out, n);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: one float read + one written = 8 bytes per element for one comparison, 1/8 of an
// operation per byte. An H100 does about 20 FP32 FLOP in the time HBM delivers one byte (67 TFLOP/s
// over 3.35 TB/s), so the ALUs idle: n = 64M moves 537 MB, about 0.18 ms at the ~3 TB/s a copy
// reaches. The only honest yardstick is a cudaMemcpy of the same bytes in the same run, the "% of
// memcpy" column. Bytes in flight (Little's law): HBM answers a load after roughly 600-800 ns, so to
// stream 3 TB/s the GPU must keep about 2 MB requested and not yet delivered, 15 KB or more per SM.
// One 4-byte load per thread is 8 KB per SM at full occupancy (2048 threads): measured 80% of memcpy.
// Four independent loads per thread are 32 KB: measured 100%.
int relu_lesson(wb::Lesson& lesson) {
  const std::size_t n = lesson.size_or(64 * wb::MiB);
  // Device: input and output, plus the two buffers of the memcpy measured for comparison.
  lesson.require_memory(16.0 * static_cast<double>(n), 20.0 * static_cast<double>(n));
  const std::vector<float> in = wb::random_floats(n, lesson.seed());  // [-1, 1): both sides of the select
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = static_cast<float>(p2::relu_reference(in[i]));

  wb::DeviceBuffer<float> din(in);
  wb::GuardedDeviceBuffer<float> dout(n);
  const wb::Tolerance exact{0, 0};  // a select rounds nothing: the GPU returns the reference exactly
  const bool pass = lesson
                        .run_memory_bound("relu", "n=" + wb::format_count(n), 8.0 * static_cast<double>(n), dout,
                                          expected, exact, [&] { relu(din.data(), dout.data(), n, nullptr); })
                        .pass;
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(relu_lesson, "ReLU, a memory-bound kernel measured against cudaMemcpy");
