// SPDX-License-Identifier: MIT
// 0.03 matrix_2d: 2D blocks on a row-major matrix, x along the columns, and the gridDim.y limit.
//
// You learn: how a 2D grid of 2D blocks maps onto rows and columns, why x must run along the
// contiguous dimension (threadIdx.x varies fastest inside a warp, so a warp reads 32 neighbouring
// floats of one row), how row * cols + col finds an element, and why tall matrices need a row loop:
// gridDim.y stops at 65535 blocks, gridDim.x at 2^31 - 1.
// Task: out[r][c] = in[r][c] * scale + bias[c]. In matrix_scale_bias_kernel compute the column and
// the first row, check both bounds, and loop over rows with the grid's height as stride. In the
// launcher cap the grid's height at 65535 blocks.
// Source: CUDA C++ Programming Guide, "Thread Hierarchy" (2D blocks); CUDA C++ Best Practices Guide,
// "Coalesced Access to Global Memory" (the threads of a warp on consecutive addresses).
// Run:   ./workbook run 0.03 [-- --size 8192x8192]
// Check: ./workbook check 0.03
// Aim:   >= 90% of the cudaMemcpy bandwidth measured in the same run.
// Previous: 0.02 vector_add. Next: 0.04 memory_spaces.

#include <algorithm>
#include <climits>
#include <cmath>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase0_basics/basics.cuh"

namespace {

constexpr int kBlockX = 32;        // one warp along a row: 32 floats = one 128-byte line
constexpr int kBlockY = 8;         // 8 rows per block: 256 threads
constexpr int kRowsPerThread = 4;  // rows each thread visits in its loop (see the launcher)

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void matrix_scale_bias_kernel(const float* __restrict__ in, const float* __restrict__ bias,
                                         float* __restrict__ out, int rows, int cols, float scale) {
  // x runs along the columns: the 32 threads of a warp (same threadIdx.y, consecutive threadIdx.x)
  // touch 32 consecutive floats of one row, so each load and store is one coalesced 128-byte access.
  // TODO(0.03): compute c, the column this thread owns, from the x built-ins (1 line).
  // cols is rarely a multiple of 32: the last block column has threads to the right of the matrix.
  // Without this check they would write into the next row (or past the end of the last one).
  // TODO(0.03): return when c is outside the matrix (1 line).
  // The grid is shorter than the matrix (4 rows per thread, and gridDim.y stops at 65535): each thread
  // steps down by the grid's height until it leaves the matrix. The loop condition is the row check.
  // Row-major: row r starts r * cols floats in. std::size_t, because rows * cols may exceed 2^31.
  // TODO(0.03): loop over the rows this thread owns: start at its own row (found like c, from the y
  //             built-ins) and step down by the grid's height in threads until you leave the matrix
  //             (about 2 lines, plus the closing brace).
  // TODO(0.03): in the loop, find element [r][c] in the flat arrays and write its scaled, biased value (2 lines).
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void matrix_scale_bias(const float* in, const float* bias, float* out, int rows, int cols, float scale,
                       cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;  // a grid of 0 blocks is an invalid launch
  const dim3 block(kBlockX, kBlockY);
  // Enough blocks to cover every column, and a quarter of the rows: a block that moves only 2 KB spends
  // much of its short life starting and retiring; looping over 4 rows per thread took an H100 from 66%
  // to 97% of memcpy. gridDim.y may not exceed 65535 (the same for gridDim.z; gridDim.x goes to 2^31 - 1):
  // taller matrices get more rows per thread from the kernel's loop.
  const int grid_y = wb::ceil_div(rows, kBlockY * kRowsPerThread);  // TODO(0.03): keep it within gridDim.y's limit.
  const dim3 grid(wb::ceil_div(cols, kBlockX), grid_y);
  matrix_scale_bias_kernel<<<grid, block, 0, stream>>>(in, bias, out, rows, cols, scale);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// The reference rounds once, like the FMA a release build makes of in * scale + bias. A debug build
// (-G) may round the product first: that extra rounding errs by at most u * |in * scale| <= u * |scale|
// (|in| <= 1), plus u * |result| from the sum (u = 2^-24). The tolerance admits exactly that, twice over.
wb::Tolerance scale_bias_tolerance(float scale) {
  return wb::Tolerance{2.0 * wb::kFloatEpsilon * std::fabs(scale), 3.0 * wb::kFloatEpsilon};
}

// Napkin math: per element one float read and one written (8 bytes), plus the bias row once
// (4 * cols bytes); 8192 x 8192 moves 537 MB, about 0.18 ms at the H100's ~3 TB/s.
int matrix_2d_lesson(wb::Lesson& lesson) {
  const std::vector<std::size_t> dims = lesson.dims_or({8192, 8192});
  lesson.require_memory(8.0 * static_cast<double>(dims[0]) * static_cast<double>(dims[1]),
                        16.0 * static_cast<double>(dims[0]) * static_cast<double>(dims[1]));
  if (dims[0] > INT_MAX || dims[1] > INT_MAX)
    throw wb::UsageError("--size: rows and cols must each be below 2^31 (the launcher takes ints)");
  const int rows = static_cast<int>(dims[0]), cols = static_cast<int>(dims[1]);
  const std::size_t count = dims[0] * dims[1];
  const float scale = 1.5f;  // not a power of two, so the product really rounds
  const std::vector<float> in = wb::random_floats(count, lesson.seed());
  const std::vector<float> bias = wb::random_floats(dims[1], lesson.seed() + 1);
  std::vector<float> expected(count);
  for (std::size_t r = 0; r < dims[0]; ++r)
    for (std::size_t c = 0; c < dims[1]; ++c)
      expected[r * dims[1] + c] = std::fma(in[r * dims[1] + c], scale, bias[c]);  // float fma: one rounding

  wb::DeviceBuffer<float> din(in), dbias(bias);
  wb::GuardedDeviceBuffer<float> dout(count);
  const std::string problem = std::to_string(rows) + "x" + std::to_string(cols);
  const double bytes = 8.0 * static_cast<double>(count) + 4.0 * static_cast<double>(cols);
  const bool pass =
      lesson
          .run_memory_bound(
              "matrix_scale_bias", problem, bytes, dout, expected, scale_bias_tolerance(scale),
              [&] { matrix_scale_bias(din.data(), dbias.data(), dout.data(), rows, cols, scale, nullptr); }, dims[1])
          .pass;
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(matrix_2d_lesson, "2D blocks on a row-major matrix, and grids taller than 65535 blocks");
