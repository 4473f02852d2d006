// SPDX-License-Identifier: MIT
// 0.02 vector_add: the bounds check, the grid-stride loop and 16-byte loads.
//
// You learn: why every kernel checks `i < n` (n is rarely a multiple of the block), how a
// grid-stride loop lets a grid sized for the GPU cover any n, how float4 loads move 16 bytes per
// instruction instead of 4, and that for a plain stream a grid that covers the array, one float4
// per thread, is faster still than the loop.
// Task: c[i] = a[i] + b[i]. Write vector_add_kernel as a grid-stride loop, then
// vector_add_float4_kernel, where each thread adds one float4 and the first threads finish the last
// n % 4 elements alone.
// Source: CUDA C++ Best Practices Guide, "Coalesced Access to Global Memory"; NVIDIA blog, "CUDA Pro Tip:
// Increase Performance with Vectorized Memory Access" (float4, 16 bytes per load).
// Run:   ./workbook run 0.02 [-- --size 64M]
// Check: ./workbook check 0.02
// Aim:   vector_add_float4 at >= 98% of the cudaMemcpy bandwidth measured in the same run on an
//        H100, level with PyTorch's add.
// Previous: 0.01 indexing. Next: 0.03 matrix_2d.

#include <vector>

#include "common/workbook.h"
#include "phase0_basics/basics.cuh"

namespace {

constexpr int kBlockSize = 256;

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  std::size_t n) {
  // Each thread starts at its global index and jumps by the whole grid's width, so neighbouring
  // threads always touch neighbouring floats (coalesced) and no element is visited twice.
  // TODO(0.02): visit every element this thread owns: start at its global index, jump over the whole
  //             grid each step, stop at the end of the arrays; store the sum of a and b for each
  //             (about 4 lines; index with std::size_t).
}

__global__ void vector_add_float4_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                         float* __restrict__ c, std::size_t n) {
  // n / 4 whole float4s; the pointers are 16-byte aligned, so reinterpret_cast<const float4*> is legal.
  // The launcher starts a thread for each of them: no loop, just the bounds check.
  // TODO(0.02): view a, b and c as arrays of float4 and store the sum of the pair of float4s this
  //             thread owns, component by component, if it owns one (about 10 lines).
  // The last n % 4 (at most 3) elements do not fill a float4: the first threads add them one by one.
  // TODO(0.02): add the leftover elements after the last whole float4, one per thread, using the
  //             threads with the lowest global indices; skip those past n (2 lines).
}

// ---- launchers --------------------------------------------------------------------------------------

// Enough blocks for several waves on every SM and no more: the grid-stride loop does the rest.
constexpr int kBlocksPerSm = 32;

}  // namespace

void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch
  vector_add_kernel<<<wb::grid_stride_blocks(n, kBlockSize, kBlocksPerSm), kBlockSize, 0, stream>>>(a, b, c, n);
  CUDA_CHECK_KERNEL();
}

// One thread per whole float4 (at least one block, for n < 4: the tail's threads). Measured on an
// H100 at 64M floats: this grid 100% of memcpy, the same kernel as a grid-stride loop over a grid of
// 32 blocks per SM 97-99%. A likely reason: blocks that each take one chunk and exit are handed out
// in address order, so the loads in flight stay in a narrow window of DRAM pages, while a
// grid-stride loop's warps drift apart over their trips. The loop still earns its place where a
// thread carries something from element to element, as 0.08's per-thread sums do.
void vector_add_float4(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  vector_add_float4_kernel<<<wb::covering_blocks(n / 4, kBlockSize), kBlockSize, 0, stream>>>(a, b, c, n);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 2 floats read + 1 written = 12 bytes per element; n = 64M moves 805 MB, about
// 0.27 ms at the H100's ~3 TB/s. Nothing to compute: the memory system is the whole story.
int vector_add_lesson(wb::Lesson& lesson) {
  const std::size_t n = lesson.size_or(64 * wb::MiB);
  lesson.require_memory(12.0 * static_cast<double>(n), 20.0 * static_cast<double>(n));
  const std::vector<float> a = wb::random_floats(n, lesson.seed());
  const std::vector<float> b = wb::random_floats(n, lesson.seed() + 1);
  std::vector<float> expected(n);
  for (std::size_t i = 0; i < n; ++i) expected[i] = a[i] + b[i];

  wb::DeviceBuffer<float> da(a), db(b);
  wb::GuardedDeviceBuffer<float> dc(n);
  const std::string problem = "n=" + wb::format_count(n);
  const double bytes = 12.0 * static_cast<double>(n);
  const wb::Tolerance exact{0, 0};  // one float add, rounded the same way on CPU and GPU
  bool pass = lesson
                  .run_memory_bound("vector_add", problem, bytes, dc, expected, exact,
                                    [&] { vector_add(da.data(), db.data(), dc.data(), n, nullptr); })
                  .pass;
  pass = lesson
             .run_memory_bound("vector_add_float4", problem, bytes, dc, expected, exact,
                               [&] { vector_add_float4(da.data(), db.data(), dc.data(), n, nullptr); })
             .pass &&
         pass;
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(vector_add_lesson, "vector add with a grid-stride loop and float4 loads");
