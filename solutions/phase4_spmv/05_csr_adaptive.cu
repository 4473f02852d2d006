// SPDX-License-Identifier: MIT
// 4.05 csr_adaptive: row blocks binned by entry count, streamed through shared memory (CSR-Adaptive).
//
// You learn: to give every thread block the same number of entries instead of the same number of rows
// (a plan made once per matrix from row_ptr alone), to load a block's entries with fully coalesced
// reads and park the products val * x[col] in shared memory, and to pick how many lanes sum a row from
// the rows the block holds: 1 lane for Poisson's 5 entries, 2 for 16-entry rows, 8 for rows of about
// 64, a warp for longer ones;
// and, on a matrix that has rows too long for shared memory, to start their blocks first, so that none
// of them is the kernel's tail.
// Task: in csr_adaptive_plan_kernel find each chunk's first row by binary search; in
// spmv_csr_adaptive_kernel stage the block's products into shared memory and sum each row from there.
// You decide: the search's bounds and its test (and the type of the chunk's first entry index); which
//             entries each thread stages, so that loads coalesce and all of them are in flight at
//             once; how a group's lanes split a row's staged products.
// Source: Greathouse & Daga, "Efficient Sparse Matrix-Vector Multiplication on GPUs Using the CSR Storage
// Format" (SC 2014), CSR-Adaptive: a coalesced stream through shared memory, which one thread per row (4.02)
// could not have.
// Run:   ./workbook run 4.05 [-- --gen poisson|uniform|powerlaw|banded|block --rows 4M]
//        or --matrix file.mtx
// Check: ./workbook check 4.05
// Aim:   at or above cuSPARSE CSR on poisson, uniform and banded at 4M rows on an H100 (README's table).
// Previous: 4.04 ell. Next: 4.06 csr_balanced.

#include <memory>

#include "common/workbook.h"
#include "phase4_spmv/harness/lesson_support.h"
#include "phase4_spmv/spmv.cuh"

namespace {

// A chunk of kChunk entries per thread block, and kChunk floats (8 KB) of shared memory, so several
// blocks share an SM.
constexpr int kThreads = 256;
constexpr int kChunk = 2048;
static_assert(kChunk % kThreads == 0, "each thread stages the same number of entries");
constexpr int kWarpSize = 32;
constexpr int kLongRowLoads = 8;  // loads in flight per thread on a row too long for shared memory

// ---- kernels ----------------------------------------------------------------------------------------

// Row block k = the rows whose first entry lies in [k * kChunk, (k + 1) * kChunk); row_ptr is sorted,
// so its first row can be found without reading all of row_ptr. Entry `chunks` is rows.
__global__ void csr_adaptive_plan_kernel(const int* __restrict__ row_ptr, int rows, int chunks,
                                         int* __restrict__ row_block_start) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k > chunks) return;
  const long long target = static_cast<long long>(k) * kChunk;  // past 2^31 for the last chunks of a big matrix
  int first = rows;
  if (k < chunks) {
    int lo = 0, hi = rows;  // the answer lies in [lo, hi]; row_ptr[rows] = nnz is never below a target
    while (lo < hi) {
      const int mid = lo + (hi - lo) / 2;  // (lo + hi) / 2 overflows past 2^30 rows
      if (row_ptr[mid] < target) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    first = lo;
  }
  row_block_start[k] = first;
}

// Stage: park val * x[col] of the `count` entries starting at `begin` in shared memory, the product of
// entry begin + i in products[i]. Consecutive lanes must read consecutive values and columns (full
// 128-byte lines).
__device__ void stage_products(const CsrView& a, const float* __restrict__ x, int begin, int count, float* products) {
#pragma unroll
  for (int j = 0; j < kChunk / kThreads; ++j) {
    const int i = threadIdx.x + j * kThreads;
    if (i < count) products[i] = a.val[begin + i] * __ldg(&x[a.col[begin + i]]);
  }
}

// Longest first: a row block whose last row is too long for shared memory keeps one thread block busy
// for up to ~30 us (a 65536-entry row); started last, it would be the kernel's tail. So the plan lists
// those row blocks first: order[] maps blockIdx.x to a row block, long ones from the front, the others
// from the back. A warp books its places with one atomic per list (ballot + popc), so neighbouring row
// blocks stay neighbours. counters[0] ends as the number of long row blocks: without any (every
// regular matrix), the SpMV keeps the natural order (see spmv_csr_adaptive_kernel).
__global__ void csr_adaptive_order_kernel(const int* __restrict__ row_ptr, int chunks,
                                          const int* __restrict__ row_block_start, int* __restrict__ order,
                                          int* __restrict__ counters) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  const bool valid = k < chunks;
  // Long: the block's last row alone is longer than a chunk (the rows that take microseconds). A short
  // row that merely crosses the chunk's end also goes the block-wide way in the SpMV but costs nothing
  // extra; counting it would reorder every regular matrix, where many blocks end in such a row.
  const int first_row = valid ? row_block_start[k] : 0, end_row = valid ? row_block_start[k + 1] : 0;
  const bool is_long = valid && end_row > first_row && row_ptr[end_row] - row_ptr[end_row - 1] > kChunk;
  const unsigned long_lanes = __ballot_sync(0xffffffffu, is_long);
  const unsigned short_lanes = __ballot_sync(0xffffffffu, valid && !is_long);
  const int lane = threadIdx.x % kWarpSize;
  int long_base = 0, short_base = 0;
  if (lane == 0) {
    long_base = atomicAdd(&counters[0], __popc(long_lanes));
    short_base = atomicAdd(&counters[1], __popc(short_lanes));
  }
  long_base = __shfl_sync(0xffffffffu, long_base, 0);
  short_base = __shfl_sync(0xffffffffu, short_base, 0);
  const unsigned below = (1u << lane) - 1u;
  if (is_long) order[long_base + __popc(long_lanes & below)] = k;
  if (valid && !is_long) order[chunks - 1 - (short_base + __popc(short_lanes & below))] = k;
}

// The plan: row_block_start[0 .. chunks], then order[0 .. chunks), then the order kernel's 2 counters
// (the first: how many row blocks end in a row longer than a chunk).
__global__ __launch_bounds__(kThreads) void spmv_csr_adaptive_kernel(CsrView a, const int* __restrict__ plan,
                                                                     const float* __restrict__ x,
                                                                     float* __restrict__ y) {
  __shared__ float products[kChunk];
  __shared__ float warp_sums[kThreads / kWarpSize];
  const int chunks = gridDim.x;
  // The row block this thread block takes: longest first only where the matrix has long rows. Reading
  // the order, then the row block, then its row pointers is one more load in a row before any work,
  // which cost the regular matrices 5-7% on an H100; these four loads are independent, so a matrix
  // without long rows goes straight from its row block to its row pointers.
  const int natural_first = plan[blockIdx.x], natural_end = plan[blockIdx.x + 1];
  const int long_row_blocks = plan[2 * chunks + 1];
  const int ordered = plan[chunks + 1 + blockIdx.x];
  const int first_row = long_row_blocks > 0 ? plan[ordered] : natural_first;
  const int end_row = long_row_blocks > 0 ? plan[ordered + 1] : natural_end;
  if (first_row == end_row) return;  // a chunk inside one long row: that row's block sums it
  const int tid = threadIdx.x;
  const int begin = a.row_ptr[first_row], end = a.row_ptr[end_row];
  // Every row here starts inside the chunk, so all but the last end inside it too: only the last row
  // can be too long for shared memory, and then the whole block sums it below.
  const bool long_last_row = end - begin > kChunk;
  const int stream_rows = long_last_row ? end_row - 1 - first_row : end_row - first_row;
  stage_products(a, x, begin, (long_last_row ? a.row_ptr[end_row - 1] : end) - begin, products);
  __syncthreads();  // every product is in shared memory before any row sums it

  // Reduce: a group of `lanes` threads (a power of two, up to a warp) per row, as many as fit.
  int lanes = 1;
  while (lanes < kWarpSize && 2 * lanes * stream_rows <= kThreads) lanes *= 2;
  const int lane = tid % lanes;
  const int groups = kThreads / lanes;
  // Every thread runs the same number of rounds, so the shuffles below always have their whole warp.
  for (int base = 0; base < stream_rows; base += groups) {
    const int row = base + tid / lanes;
    float sum = 0.0f;
    if (row < stream_rows) {
      const int row_begin = a.row_ptr[first_row + row] - begin, row_end = a.row_ptr[first_row + row + 1] - begin;
      for (int i = row_begin + lane; i < row_end; i += lanes) sum += products[i];
    }
    // Width `lanes`: each group of lanes folds its own sum, lane 0 of the group ends with the total.
    for (int offset = lanes / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset, lanes);
    if (row < stream_rows && lane == 0) y[first_row + row] = sum;
  }

  if (long_last_row) {  // the same for every thread of the block, so the barrier inside is safe
    const int row_begin = a.row_ptr[end_row - 1];
    // Eight independent sums keep eight loads in flight per thread on a row of up to 65536 entries.
    float partial[kLongRowLoads] = {};
    int i = row_begin + tid;
    for (; i + (kLongRowLoads - 1) * kThreads < end; i += kLongRowLoads * kThreads) {
#pragma unroll
      for (int j = 0; j < kLongRowLoads; ++j)
        partial[j] += a.val[i + j * kThreads] * __ldg(&x[a.col[i + j * kThreads]]);
    }
    for (; i < end; i += kThreads) partial[0] += a.val[i] * __ldg(&x[a.col[i]]);
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < kLongRowLoads; ++j) sum += partial[j];
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (tid % kWarpSize == 0) warp_sums[tid / kWarpSize] = sum;
    __syncthreads();  // all warp sums written before warp 0 adds them
    if (tid < kWarpSize) {
      sum = tid < kThreads / kWarpSize ? warp_sums[tid] : 0.0f;
      for (int offset = kWarpSize / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
      if (tid == 0) y[end_row - 1] = sum;
    }
  }
}

int chunk_count(const CsrView& a) {
  return a.nnz / kChunk + 1;
}  // the last chunk holds the trailing empty rows

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

// The plan (its first chunks + 1 ints are the row blocks' first rows, hence the parameter's name in
// spmv.cuh): row_block_start, the launch order, 2 counters.
int spmv_csr_adaptive_plan_entries(const CsrView& a) {
  return 2 * chunk_count(a) + 3;
}

void spmv_csr_adaptive_plan(const CsrView& a, int* row_block_start, cudaStream_t stream) {
  const int chunks = chunk_count(a);
  int* order = row_block_start + chunks + 1;
  int* counters = order + chunks;
  CUDA_CHECK(cudaMemsetAsync(counters, 0, 2 * sizeof(int), stream));
  csr_adaptive_plan_kernel<<<wb::ceil_div(chunks + 1, kThreads), kThreads, 0, stream>>>(a.row_ptr, a.rows, chunks,
                                                                                        row_block_start);
  CUDA_CHECK_KERNEL();
  csr_adaptive_order_kernel<<<wb::ceil_div(chunks, kThreads), kThreads, 0, stream>>>(a.row_ptr, chunks, row_block_start,
                                                                                     order, counters);
  CUDA_CHECK_KERNEL();
}

void spmv_csr_adaptive(const CsrView& a, const int* row_block_start, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;  // nothing to write, and a grid of 0 blocks is an invalid launch
  spmv_csr_adaptive_kernel<<<chunk_count(a), kThreads, 0, stream>>>(a, row_block_start, x, y);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: Poisson at 4M rows moves 218 MB at least (8 bytes per entry, row pointers, x and y),
// about 0.07 ms at ~3 TB/s. A block of kChunk = 2048 entries reads 16 KB of values and columns,
// coalesced, so the bytes can arrive at close to copy speed; the gathers from x mostly hit L2 (x is
// 16 MB, H100's L2 is 50 MB). The plan is 8 bytes per 2048 entries: 82 KB for Poisson, made once.
int csr_adaptive_lesson(wb::Lesson& lesson) {
  auto plan = std::make_shared<wb::DeviceBuffer<int>>();
  return p4::run_spmv_lesson(lesson, "spmv_csr_adaptive",
                             [plan](p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t s) {
                               const CsrView a = m.csr();
                               if (plan->size() == 0) {  // once per matrix, before the timed runs
                                 *plan = wb::DeviceBuffer<int>(spmv_csr_adaptive_plan_entries(a));
                                 spmv_csr_adaptive_plan(a, plan->data(), s);
                               }
                               spmv_csr_adaptive(a, plan->data(), x, y, s);
                             });
}

}  // namespace

WB_LESSON(csr_adaptive_lesson, "CSR-Adaptive SpMV: equal-entry row blocks through shared memory");
