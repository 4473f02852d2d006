// SPDX-License-Identifier: MIT
// 4.06 csr_balanced: merge-path CSR, the same work for every thread whatever the row lengths.
//
// You learn: to see CSR SpMV as a merge of two sorted lists, the rows' end offsets and the entry
// indices 0 .. nnz - 1, whose rows + nnz items can be cut into equal pieces by a binary search along a
// diagonal; to let a thread block stage its piece in shared memory and each thread walk its share of
// it; and to repair the rows a tile boundary cuts with a carry that a separate kernel, run after the
// tiles, adds into y.
// Task: write merge_path_search (the diagonal binary search) and the walk in spmv_csr_balanced_kernel
// that sums entries until a row ends, then hands the sum to that row.
// You decide: the search's bounds and the test that halves them; how a thread's walk tells an entry
//             from a row end, and how a closed row's sum reaches row_sum when threads share a row.
// Source: Merrill & Garland, "Merge-Based Parallel Sparse Matrix-Vector Multiplication" (SC 2016): merge path
// splits rows and entries evenly, a static fix for rows of very different lengths.
// Run:   ./workbook run 4.06 [-- --gen powerlaw|poisson|uniform|banded|block --rows 4M]
//        or --matrix file.mtx
// Check: ./workbook check 4.06
// Aim:   within reach of cuSPARSE CSR on powerlaw at 4M rows on an H100, where 4.03 lags (README's table).
// Previous: 4.05 csr_adaptive. Next: 4.07 block_tiled.

#include <memory>

#include "common/workbook.h"
#include "phase4_spmv/harness/lesson_support.h"
#include "phase4_spmv/spmv.cuh"

namespace {

// A tile of kThreads * kItemsPerThread merge items (row ends + entries) per thread block.
constexpr int kThreads = 128;       // small tiles: more of them to spread over the SMs, and less waiting at a barrier
constexpr int kItemsPerThread = 7;  // odd: the threads' items start 7 words apart, no bank conflicts
constexpr int kTileItems = kThreads * kItemsPerThread;

// Where the workspace keeps what: tile start coordinates, then the carries' rows and values.
struct BalancedWorkspace {
  int2* tile_start;  // tiles + 1 merge coordinates {rows done, entries done}
  int* carry_row;    // per tile: the row still open at its end (-1: none)
  float* carry_sum;  // per tile: that row's partial sum from this tile
};

__host__ __device__ long long merge_items(const CsrView& a) {
  return static_cast<long long>(a.rows) + a.nnz;
}
int tile_count(const CsrView& a) {
  return static_cast<int>((merge_items(a) + kTileItems - 1) / kTileItems);
}

BalancedWorkspace carve(const CsrView& a, void* workspace) {
  const int tiles = tile_count(a);
  BalancedWorkspace w;
  w.tile_start = static_cast<int2*>(workspace);
  w.carry_row = reinterpret_cast<int*>(w.tile_start + tiles + 1);
  w.carry_sum = reinterpret_cast<float*>(w.carry_row + tiles);
  return w;
}

// ---- kernels ----------------------------------------------------------------------------------------

// The merge path: list A = row_end[0 .. rows) (row i's entries end at row_end[i] = row_ptr[i + 1]),
// list B = the entry indices 0, 1, ..., nnz - 1. Merged, row end i comes before entry j when
// row_end[i] <= j (the row has ended before entry j). Diagonal d of the merge (d items consumed)
// crosses the path at {i, d - i}: i row ends and d - i entries. Along a diagonal, each step of i takes
// one more row end and one entry fewer, and the merge order between the two flips only once: so a
// binary search finds the crossing in O(log rows) for any d, which is what makes equal-sized tiles
// cheap to find.
__device__ int2 merge_path_search(int diagonal, const int* row_end, int rows, int nnz) {
  int lo = max(diagonal - nnz, 0), hi = min(diagonal, rows);
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (row_end[mid] <= diagonal - mid - 1) {  // row mid ended before entry d - mid - 1: take it
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return make_int2(lo, diagonal - lo);
}

// One thread's items [first, last) of its tile, all in shared memory: find where they start on the
// merge path, then add entries to a running sum until a row ends, and hand that sum to the row.
// Rows are short or long, a thread's items are always kItemsPerThread: that is the balance.
__device__ void walk_merge_path(const float* products, const int* row_end, float* row_sum, int tile_rows,
                                int tile_entries, int first, int last) {
  const int2 at = merge_path_search(first, row_end, tile_rows, tile_entries);
  int row = at.x, entry = at.y;
  float sum = 0.0f;
  for (int item = first; item < last; ++item) {
    if (entry < row_end[row]) {  // the next item is an entry of the current row
      sum += products[entry];
      ++entry;
    } else {  // the row ends: hand over its sum (another thread may hold its beginning)
      atomicAdd(&row_sum[row], sum);
      sum = 0.0f;
      ++row;
    }
  }
  if (first < last) atomicAdd(&row_sum[row], sum);  // the row this thread leaves open
}

// One thread per tile boundary: where tile t starts on the merge path (the last boundary is the end).
__global__ void csr_balanced_partition_kernel(CsrView a, int tiles, int2* __restrict__ tile_start) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  const int diagonal = static_cast<int>(min(static_cast<long long>(t) * kTileItems, merge_items(a)));
  tile_start[t] = merge_path_search(diagonal, a.row_ptr + 1, a.rows, a.nnz);
}

__global__ __launch_bounds__(kThreads) void spmv_csr_balanced_kernel(CsrView a, BalancedWorkspace w,
                                                                     const float* __restrict__ x,
                                                                     float* __restrict__ y) {
  __shared__ float products[kTileItems];     // this tile's entries, val * x[col]
  __shared__ int row_end[kTileItems + 1];    // its rows' ends, relative to its first entry
  __shared__ float row_sum[kTileItems + 1];  // its rows' sums (the last: the row left open)
  const int tid = threadIdx.x;
  const int2 start = w.tile_start[blockIdx.x], stop = w.tile_start[blockIdx.x + 1];
  const int tile_rows = stop.x - start.x;  // row ends in this tile
  const int tile_entries = stop.y - start.y;

  // Stage the tile: coalesced loads of values and columns, the x gathers, the row ends.
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const int i = tid + k * kThreads;
    if (i < tile_entries) products[i] = a.val[start.y + i] * __ldg(&x[a.col[start.y + i]]);
  }
  for (int i = tid; i <= tile_rows; i += kThreads) {
    // Row tile_rows is the one still open at the tile's end; past the last row nothing ends.
    row_end[i] = start.x + i < a.rows ? a.row_ptr[start.x + i + 1] - start.y : 0x7fffffff;
    row_sum[i] = 0.0f;
  }
  __syncthreads();  // the tile is in shared memory before any thread walks it

  // Each thread: its own kItemsPerThread items of the tile.
  const int items = tile_rows + tile_entries;
  const int first = min(tid * kItemsPerThread, items);
  walk_merge_path(products, row_end, row_sum, tile_rows, tile_entries, first, min(first + kItemsPerThread, items));
  __syncthreads();  // every thread's share is in row_sum

  // Rows that end in this tile are final here, except for carries from earlier tiles (added later).
  for (int r = tid; r < tile_rows; r += kThreads) y[start.x + r] = row_sum[r];
  if (tid == 0) {
    w.carry_row[blockIdx.x] = stop.x < a.rows ? stop.x : -1;
    w.carry_sum[blockIdx.x] = row_sum[tile_rows];
  }
}

// After every tile has written its rows: add each tile's open-row partial sum to that row. A row that
// spans several tiles gets one carry from each, so the adds are atomic. A zero carry (the tile ended
// on a row boundary) changes nothing and is skipped.
__global__ void csr_balanced_carry_kernel(int tiles, const int* __restrict__ carry_row,
                                          const float* __restrict__ carry_sum, float* y) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= tiles) return;
  const int row = carry_row[t];
  const float sum = carry_sum[t];
  if (row >= 0 && sum != 0.0f) atomicAdd(&y[row], sum);
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

std::size_t spmv_csr_balanced_workspace_bytes(const CsrView& a) {
  const std::size_t tiles = static_cast<std::size_t>(tile_count(a));
  return (tiles + 1) * sizeof(int2) + tiles * (sizeof(int) + sizeof(float));
}

void spmv_csr_balanced(const CsrView& a, const float* x, float* y, void* workspace, cudaStream_t stream) {
  if (a.rows == 0) return;  // no rows, no merge items: nothing to launch
  const int tiles = tile_count(a);
  const BalancedWorkspace w = carve(a, workspace);
  csr_balanced_partition_kernel<<<wb::ceil_div(tiles + 1, kThreads), kThreads, 0, stream>>>(a, tiles, w.tile_start);
  CUDA_CHECK_KERNEL();
  spmv_csr_balanced_kernel<<<tiles, kThreads, 0, stream>>>(a, w, x, y);
  CUDA_CHECK_KERNEL();
  csr_balanced_carry_kernel<<<wb::ceil_div(tiles, kThreads), kThreads, 0, stream>>>(tiles, w.carry_row, w.carry_sum, y);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: powerlaw at 4M rows has about 28M entries (mean length ~6.8, a few rows of 65536):
// about 290 MB at least, ~0.1 ms at ~3 TB/s. Merge path gives each block 896 items (row ends +
// entries) whatever the lengths, so a 65536-entry row is spread over 74 blocks instead of stalling
// one warp; the price is a search per tile and per thread and one carry per tile (8 bytes, 36K tiles).
int csr_balanced_lesson(wb::Lesson& lesson) {
  auto workspace = std::make_shared<wb::DeviceBuffer<unsigned char>>();
  return p4::run_spmv_lesson(
      lesson, "spmv_csr_balanced",
      [workspace](p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t s) {
        const CsrView a = m.csr();
        if (workspace->size() == 0) *workspace = wb::DeviceBuffer<unsigned char>(spmv_csr_balanced_workspace_bytes(a));
        spmv_csr_balanced(a, x, y, workspace->data(), s);
      },
      "powerlaw");
}

}  // namespace

WB_LESSON(csr_balanced_lesson, "merge-path CSR SpMV: equal work per block for any row lengths");
