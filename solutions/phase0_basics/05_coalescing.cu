// SPDX-License-Identifier: MIT
// 0.05 coalescing: the same arithmetic, two thread mappings, and a large gap in GB/s.
//
// You learn: that a warp's 32 loads are served together, so what matters is how many 32-byte
// sectors one warp instruction touches: 4 when neighbouring threads read neighbouring floats,
// 32 when they are a whole row apart. The thread-to-data mapping, not the arithmetic, sets the speed.
// Task: out[r][c] = in[r][c] * s on a row-major rows x cols matrix. In scale_row_per_thread_kernel
// thread t owns row t and walks along it; in scale_column_per_thread_kernel thread t owns column t
// and walks down it. Write both index mappings and bounds checks, then compare the two result lines.
// You decide: how each thread steps from one of its elements to the next; where each kernel stops;
//             which of the two mappings you expect to win, before you run it.
// Source: CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory": thread i reads data[i], not
// data[i * stride].
// Run:   ./workbook run 0.05 [-- --size 8192x8192]
// Check: ./workbook check 0.05
// Aim:   scale_column_per_thread at 4-5x the GB/s of scale_row_per_thread at 8192x8192 (H100).
// Previous: 0.04 memory_spaces. Next: 0.06 transpose.

#include <climits>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase0_basics/basics.cuh"

namespace {

constexpr int kBlockSize = 256;

// ---- kernels ----------------------------------------------------------------------------------------

// Strided: at step c, lane t of a warp reads in[(r0 + t) * cols + c]. The 32 addresses are cols * 4
// bytes apart, so one warp load touches 32 different 32-byte sectors and uses 4 bytes of each.
__global__ void scale_row_per_thread_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols,
                                            float s) {
  // The grid is rounded up to whole blocks, so some threads have no row; an element's offset passes
  // 2^31 once the matrix has 2^31 elements.
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const std::size_t row_start = static_cast<std::size_t>(r) * cols;
  for (int c = 0; c < cols; ++c) out[row_start + c] = in[row_start + c] * s;
}

// Coalesced: at step r, lane t of a warp reads in[r * cols + c0 + t]. The 32 addresses are
// consecutive: 128 bytes in 4 sectors (one cache line when cols is a multiple of 32), nothing wasted.
__global__ void scale_column_per_thread_kernel(const float* __restrict__ in, float* __restrict__ out, int rows,
                                               int cols, float s) {
  // The grid covers the columns rounded up: some threads have no column to walk.
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  for (int r = 0; r < rows; ++r) {
    const std::size_t index = static_cast<std::size_t>(r) * cols + c;
    out[index] = in[index] * s;
  }
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void scale_row_per_thread(const float* in, float* out, int rows, int cols, float s, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // nothing to do, and a grid of 0 blocks is an invalid launch
  scale_row_per_thread_kernel<<<wb::ceil_div(rows, kBlockSize), kBlockSize, 0, stream>>>(in, out, rows, cols, s);
  CUDA_CHECK_KERNEL();
}

void scale_column_per_thread(const float* in, float* out, int rows, int cols, float s, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  scale_column_per_thread_kernel<<<wb::ceil_div(cols, kBlockSize), kBlockSize, 0, stream>>>(in, out, rows, cols, s);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 4 bytes read + 4 written per element; 8192 x 8192 moves 537 MB, 0.18 ms at ~3 TB/s.
// Both kernels run the same 8192 threads (256 warps, ~2 per SM) doing 8192 multiplies each: too few
// loads in flight to fill DRAM, so even the coalesced one stays near 30% of memcpy (0.62 ms on an H100).
// Per warp instruction, column-per-thread touches 4 sectors of 32 bytes, all used; row-per-thread
// touches 32 sectors, 1 KB moved for 128 useful bytes (L1 keeps some for the next steps), and each
// store is 32 separate 4-byte writes: about 3 ms, 4-5x slower. The mapping alone makes that gap.
int coalescing_lesson(wb::Lesson& lesson) {
  const std::vector<std::size_t> dims = lesson.dims_or({8192, 8192});
  lesson.require_memory(8.0 * static_cast<double>(dims[0]) * static_cast<double>(dims[1]),
                        16.0 * static_cast<double>(dims[0]) * static_cast<double>(dims[1]));
  if (dims[0] > INT_MAX || dims[1] > INT_MAX) throw wb::UsageError("--size: rows and cols must each be below 2^31");
  const int rows = static_cast<int>(dims[0]);
  const int cols = static_cast<int>(dims[1]);
  const std::size_t count = dims[0] * dims[1];
  wb::Rng rng(lesson.seed());
  const float s = rng.uniform(0.5f, 2.0f);
  const std::vector<float> in = wb::random_floats(count, lesson.seed() + 1);
  std::vector<float> expected(count);
  for (std::size_t i = 0; i < count; ++i) expected[i] = in[i] * s;

  wb::DeviceBuffer<float> din(in);
  wb::GuardedDeviceBuffer<float> dout(count);
  const std::string problem = std::to_string(rows) + "x" + std::to_string(cols);
  const double bytes = 8.0 * static_cast<double>(count);
  const wb::Tolerance exact{0, 0};  // one float multiply, rounded the same way on CPU and GPU
  const wb::ResultLine strided = lesson.run_memory_bound(
      "scale_row_per_thread", problem, bytes, dout, expected, exact,
      [&] { scale_row_per_thread(din.data(), dout.data(), rows, cols, s, nullptr); }, dims[1]);
  const wb::ResultLine coalesced = lesson.run_memory_bound(
      "scale_column_per_thread", problem, bytes, dout, expected, exact,
      [&] { scale_column_per_thread(din.data(), dout.data(), rows, cols, s, nullptr); }, dims[1]);
  const bool pass = strided.pass && coalesced.pass;
  if (pass && !lesson.options().csv && strided.rate > 0) {
    std::printf("Coalesced access (column per thread) ran %.1fx the GB/s of strided access (row per thread).\n",
                coalesced.rate / strided.rate);
  }
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(coalescing_lesson, "strided vs coalesced access: one thread per row or per column");
