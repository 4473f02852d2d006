// SPDX-License-Identifier: MIT
// 0.06 transpose: a shared-memory tile makes both sides coalesced; padding the tile kills bank conflicts.
//
// You learn: why a naive transpose is fast on one side and slow on the other (one side is always
// strided), how a 32x32 shared-memory tile lets the block read rows and write rows, why the
// tile's column reads hit one bank 32 times, and how a 33rd column spreads them over 32 banks.
// Task: out (cols x rows) = transpose of in (rows x cols), three ways: naive, through a shared tile,
// and through a padded one. Each thread of a 32x8 block moves 4 elements of a 32x32 tile.
// You decide: where the block's tile sits in `out` (which block index gives which coordinate); which
//             shared element each thread reads on the way out, so that both global sides stay
//             coalesced; the padding.
// Source: Mark Harris, "An Efficient Matrix Transpose in CUDA C/C++" (NVIDIA blog): a shared-memory tile, and
// padding so that a warp reading a column of the tile hits 32 different banks.
// Run:   ./workbook run 0.06 [-- --size 8192x8192]
// Check: ./workbook check 0.06
// Aim:   transpose_tiled at >= 90% of the cudaMemcpy bandwidth measured in the same run.
// Previous: 0.05 coalescing. Next: 0.07 warp_primitives.

#include <climits>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase0_basics/basics.cuh"

namespace {

// One block moves one kTile x kTile tile with kTile x kBlockRows threads: each thread moves
// kTile / kBlockRows = 4 elements, so a block has 256 threads and enough loads in flight.
constexpr int kTile = 32;
constexpr int kBlockRows = 8;
static_assert(kTile % kBlockRows == 0, "each thread moves a whole number of tile rows");
static_assert(kTile == 32, "a tile row is one warp: 32 threads read 32 neighbouring floats");

// Shared memory has 32 banks of 4 bytes: the float at word address a lives in bank a % 32.
// transpose_tiled reads the tile down a column: lane t reads tile[t][k], word t * (kTile + pad) + k.
// With pad = 0 that is bank (32 t + k) % 32 = k for every lane: 32 lanes, one bank, 32 turns.
// Which padding gives 32 lanes 32 different banks, for every k?
constexpr int kPadding = 1;

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void transpose_naive_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  // threadIdx.x runs along a row of `in`, so a warp reads 32 neighbouring floats (coalesced). It
  // writes them down a column of `out`: 32 floats `rows` apart, 32 separate memory transactions.
  const int c = blockIdx.x * kTile + threadIdx.x;
  const int r0 = blockIdx.y * kTile + threadIdx.y;
  if (c >= cols) return;  // no __syncthreads or shuffle below: leaving early is safe here
#pragma unroll
  for (int j = 0; j < kTile; j += kBlockRows) {
    const int r = r0 + j;
    // size_t products: rows * cols can pass 2^31 (a 65536 x 65536 matrix).
    if (r < rows) out[static_cast<std::size_t>(c) * rows + r] = in[static_cast<std::size_t>(r) * cols + c];
  }
}

// kPad = 0 or 1 is the only difference between transpose_tiled_no_padding and transpose_tiled.
template <int kPad>
__global__ void transpose_tiled_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[kTile][kTile + kPad];
  // Load: the block's tile starts at row blockIdx.y * kTile, column blockIdx.x * kTile of `in`.
  // threadIdx.x walks along a row (coalesced read), tile[row][col] keeps in's layout.
  const int c = blockIdx.x * kTile + threadIdx.x;
  const int r0 = blockIdx.y * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kBlockRows) {
    const int r = r0 + j;
    if (r < rows && c < cols) tile[threadIdx.y + j][threadIdx.x] = in[static_cast<std::size_t>(r) * cols + c];
  }
  // Every thread reaches this barrier (no early return above): the stores below read elements
  // that other warps loaded, so all loads must be in shared memory first.
  __syncthreads();
  // Store: the same tile seen from `out`, a cols x rows matrix: in's column tiles are out's row
  // tiles. threadIdx.x must walk along a row of `out` (coalesced write), so it reads the tile down a
  // column: the bank-sensitive read.
  const int oc = blockIdx.y * kTile + threadIdx.x;
  const int or0 = blockIdx.x * kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < kTile; j += kBlockRows) {
    const int orow = or0 + j;
    // The same guard as the load, seen transposed: only elements that were loaded are stored.
    if (orow < cols && oc < rows) out[static_cast<std::size_t>(orow) * rows + oc] = tile[threadIdx.x][threadIdx.y + j];
  }
}

// ---- launchers --------------------------------------------------------------------------------------

// One block per 32x32 tile, x over column tiles, y over row tiles. gridDim.y stops at 65535, so
// rows may reach 65535 * 32 = 2,097,120; taller matrices would need a loop over row tiles.
dim3 transpose_grid(int rows, int cols) {
  if (rows < 0 || cols < 0) throw std::invalid_argument("transpose: rows and cols must be >= 0");
  const int row_tiles = wb::ceil_div(rows, kTile);
  if (row_tiles > 65535) {
    throw std::invalid_argument("transpose: rows = " + std::to_string(rows) + " needs " + std::to_string(row_tiles) +
                                " row tiles, more than gridDim.y's 65535 (at most 2097120 rows)");
  }
  return dim3(wb::ceil_div(cols, kTile), row_tiles);
}

const dim3 kBlock(kTile, kBlockRows);

}  // namespace

void transpose_naive(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
  const dim3 grid = transpose_grid(rows, cols);
  if (rows == 0 || cols == 0) return;  // a grid of 0 blocks is an invalid launch
  transpose_naive_kernel<<<grid, kBlock, 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_KERNEL();
}

void transpose_tiled_no_padding(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
  const dim3 grid = transpose_grid(rows, cols);
  if (rows == 0 || cols == 0) return;
  transpose_tiled_kernel<0><<<grid, kBlock, 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_KERNEL();
}

void transpose_tiled(const float* in, float* out, int rows, int cols, cudaStream_t stream) {
  const dim3 grid = transpose_grid(rows, cols);
  if (rows == 0 || cols == 0) return;
  transpose_tiled_kernel<kPadding><<<grid, kBlock, 0, stream>>>(in, out, rows, cols);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: every float is read once and written once, 8 bytes per element; 8192 x 8192 moves
// 537 MB, about 0.18 ms at the H100's ~3 TB/s. A transpose is a copy with a new address: the
// aim is the copy's speed.
int transpose_lesson(wb::Lesson& lesson) {
  const std::vector<std::size_t> dims = lesson.dims_or({8192, 8192});
  lesson.require_memory(8.0 * static_cast<double>(dims[0]) * static_cast<double>(dims[1]),
                        16.0 * static_cast<double>(dims[0]) * static_cast<double>(dims[1]));
  if (dims[0] > INT_MAX || dims[1] > INT_MAX) throw wb::UsageError("--size: rows and cols must fit an int");
  const int rows = static_cast<int>(dims[0]);
  const int cols = static_cast<int>(dims[1]);
  const std::size_t count = dims[0] * dims[1];
  const std::vector<float> in = wb::random_floats(count, lesson.seed());
  std::vector<float> expected(count);
  for (std::size_t r = 0; r < dims[0]; ++r) {
    for (std::size_t c = 0; c < dims[1]; ++c) expected[c * dims[0] + r] = in[r * dims[1] + c];
  }

  wb::DeviceBuffer<float> din(in);
  wb::GuardedDeviceBuffer<float> dout(count);
  const std::string problem = std::to_string(rows) + "x" + std::to_string(cols);
  const double bytes = 8.0 * static_cast<double>(count);
  const wb::Tolerance exact{0, 0};  // a transpose copies bits: nothing to round
  bool pass = true;
  const struct {
    const char* name;
    void (*launch)(const float*, float*, int, int, cudaStream_t);
  } steps[] = {{"transpose_naive", transpose_naive},
               {"transpose_tiled_no_padding", transpose_tiled_no_padding},
               {"transpose_tiled", transpose_tiled}};
  for (const auto& step : steps) {
    // The output has `rows` columns: mismatches print as [row, col] of out.
    pass = lesson
               .run_memory_bound(
                   step.name, problem, bytes, dout, expected, exact,
                   [&] { step.launch(din.data(), dout.data(), rows, cols, nullptr); }, dims[0])
               .pass &&
           pass;
  }
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(transpose_lesson, "matrix transpose through a padded shared-memory tile");
