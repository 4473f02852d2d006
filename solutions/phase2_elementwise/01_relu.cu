// SPDX-License-Identifier: MIT
// 2.01 relu: the idea of a memory-bound kernel, where the arithmetic is free and the bytes are the cost.
//
// You learn: to read a kernel's napkin math (8 bytes moved for one comparison) as "memory-bound",
// to judge such a kernel by the one yardstick that fits, a cudaMemcpy of the same bytes on the same
// GPU (the result line's "% of memcpy"), and why max(x, 0) must let a NaN through.
// Task: write relu_kernel, a grid-stride loop that applies relu(x) = max(x, 0) to every element of
// in and stores it in out, for any n, so that a NaN stays NaN.
// Seed idea: "simple elementwise ops like ReLU and GELU are purely memory-bound ... 91.5% of peak
// memory bandwidth" (seed 003).
// Run:   build/default/phase2_elementwise/p2_01_relu [--size 64M]
// Check: ctest --preset learner -R '^2.01'
// Aim:   this scalar version at about 80% of memcpy on an H100; 2.03's float4 loads take it past 90%.
// Previous: 1.09 tensor_cores (0.02 vector_add has the grid-stride loop). Next: 2.02 gelu.

#include <vector>

#include "common/workbook.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/reference.h"

namespace {

constexpr int kBlockSize = 256;

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void relu_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  // The grid-stride loop of 0.02: start at the global index, step by the whole grid's width, so a
  // warp always reads 128 contiguous bytes and writes 128 contiguous bytes.
  // Write the select so a NaN falls on the side that returns x: NaN < 0 is false. fmaxf(x, 0.0f)
  // looks the same but returns 0 for a NaN (IEEE maxNum prefers the number) and would hide a NaN
  // coming from an earlier layer; PyTorch's relu keeps it.
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float x = in[i];
    out[i] = x < 0.0f ? 0.0f : x;
  }
}

// ---- launchers --------------------------------------------------------------------------------------

// Enough blocks for several waves on every SM and no more: the grid-stride loop does the rest.
constexpr int kBlocksPerSm = 32;

}  // namespace

void relu(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch
  relu_kernel<<<wb::grid_stride_blocks(n, kBlockSize, kBlocksPerSm), kBlockSize, 0, stream>>>(in, out, n);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: one float read + one written = 8 bytes per element for one comparison, 1/8 of an
// operation per byte. An H100 does about 20 FP32 FLOP in the time HBM delivers one byte (67 TFLOP/s
// over 3.35 TB/s), so the ALUs idle: n = 64M moves 537 MB, about 0.18 ms at the ~3 TB/s a copy
// reaches. The only honest yardstick is a cudaMemcpy of the same bytes in the same run, the "% of
// memcpy" column. Why not 100%: each thread has one 4-byte load in flight, about 8 KB per SM, while
// HBM's latency wants roughly twice that in flight to run at full speed; 2.03's float4 loads fix it.
int relu_lesson(wb::Lesson& lesson) {
  const std::size_t n = lesson.size_or(64 * wb::MiB);
  // Device: input and output, plus the two buffers of the memcpy measured for comparison.
  lesson.require_memory(16.0 * static_cast<double>(n), 20.0 * static_cast<double>(n));
  const std::vector<float> in = wb::random_floats(n, lesson.seed());  // [-1, 1): both sides of the select
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = static_cast<float>(relu_reference(in[i]));

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
