// SPDX-License-Identifier: MIT
#include <algorithm>
#include <vector>

#include "common/buffer.h"
#include "common/check.h"
#include "common/planted_bugs.cuh"
#include "common/util.h"
#include "phase4_spmv/harness/device_matrix.h"
#include "phase4_spmv/tests/wrong_kernels.h"

namespace {

enum class Bug { None, SkipsLastRow, SkipsEmptyRows, ReadsXOutOfRange, WritesPastY, DropsFirstEntry, Lane0Only };

// A one-thread-per-row CSR SpMV with one switchable bug.
template <Bug bug>
__global__ void planted_kernel(CsrView a, const float* x, float* y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= a.rows) return;
  if (bug == Bug::SkipsLastRow && row == a.rows - 1) return;  // "row < rows - 1"
  const int start = a.row_ptr[row], end = a.row_ptr[row + 1];
  if (bug == Bug::SkipsEmptyRows && start == end) return;  // "nothing to add, nothing to store"
  float sum = 0.0f;
  for (int k = bug == Bug::DropsFirstEntry ? start + 1 : start; k < end; ++k) {
    // Off by one in the gather: the last column reads x[cols], the first NaN canary after x.
    const int c = bug == Bug::ReadsXOutOfRange ? a.col[k] + 1 : a.col[k];
    // A warp-per-row kernel that forgot its reduction keeps lane 0's share: entries 0, 32, 64, ...
    if (bug == Bug::Lane0Only && (k - start) % 32 != 0) continue;
    sum += a.val[k] * x[c];
  }
  y[row] = sum;
  if (bug == Bug::WritesPastY && row == a.rows - 1) y[row + 1] = sum;  // one past the end
}

template <Bug bug>
void launch(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  planted_kernel<bug><<<wb::ceil_div(a.rows, 128), 128, 0, stream>>>(a, x, y);
  CUDA_CHECK_KERNEL();
}

// A csr_vector-style SpMV (a warp per row, lanes stride through the row, a shared-memory tree sums
// their shares) with the bugs only compute-sanitizer sees.
enum class VectorBug { NoSyncwarp, ReadsPastRowMasked };
constexpr int kVectorThreads = 128;

template <VectorBug bug>
__global__ void planted_vector_kernel(CsrView a, const float* x, float* y) {
  __shared__ float shares[kVectorThreads];
  const int lane = threadIdx.x % 32;
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (row >= a.rows) return;  // whole warps: a row's lanes stay together
  const int start = a.row_ptr[row], end = a.row_ptr[row + 1];
  float sum = 0.0f;
  if (bug == VectorBug::ReadsPastRowMasked) {
    // Every lane runs the same number of strides (the row length rounded up to 32): the loads of
    // val and col past the row's end are read and dropped; past the last row they leave the arrays.
    const int padded_end = start + (end - start + 31) / 32 * 32;
    for (int k = start + lane; k < padded_end; k += 32) {
      const float v = read_even_if_masked(a.val, k);
      const int c = read_even_if_masked(a.col, k);
      if (k < end) sum += v * x[c];
    }
  } else {
    for (int k = start + lane; k < end; k += 32) sum += a.val[k] * x[a.col[k]];
  }
  volatile float* warp_shares = shares + (threadIdx.x / 32) * 32;
  warp_shares[lane] = sum;
  if (bug == VectorBug::NoSyncwarp) {
    const float total = warp_tree_sum_without_syncwarp(warp_shares, lane);
    if (lane == 0) y[row] = total;
  } else {
    __syncwarp();
    if (lane == 0) {
      float total = 0.0f;
      for (int l = 0; l < 32; ++l) total += warp_shares[l];
      y[row] = total;
    }
  }
}

template <VectorBug bug>
void launch_vector(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  const int blocks = static_cast<int>(wb::ceil_div(std::size_t(a.rows) * 32, std::size_t(kVectorThreads)));
  planted_vector_kernel<bug><<<blocks, kVectorThreads, 0, stream>>>(a, x, y);
  CUDA_CHECK_KERNEL();
}

// ---- 4.09 spmm ---------------------------------------------------------------------------------------

enum class SpmmBug { None, ColumnMajorX, LosesLastSegment, SkipsLastFloat4, SkipsEmptyRows, AddsOntoPoison };
constexpr int kSpmmSegment = 256;  // entries of a long row per warp
constexpr int kSpmmThreads = 128;

// Float4 number j4 of row c of X (columns 4 j4 .. 4 j4 + 3), or, planted, of X read column-major.
template <SpmmBug bug>
__device__ float4 planted_x_columns(const float* x, int c, int cols, int k, int j4) {
  if (bug == SpmmBug::ColumnMajorX) {
    const std::size_t j = 4 * static_cast<std::size_t>(j4);
    const std::size_t n = static_cast<std::size_t>(cols);
    return make_float4(x[c + j * n], x[c + (j + 1) * n], x[c + (j + 2) * n], x[c + (j + 3) * n]);
  }
  return *reinterpret_cast<const float4*>(x + static_cast<std::size_t>(c) * k + 4 * j4);
}

__device__ void add_product(float4& acc, float v, const float4& xv) {
  acc.x += v * xv.x;
  acc.y += v * xv.y;
  acc.z += v * xv.z;
  acc.w += v * xv.w;
}

__device__ void add_into(float* dst, const float4& acc) {
  atomicAdd(dst, acc.x);
  atomicAdd(dst + 1, acc.y);
  atomicAdd(dst + 2, acc.z);
  atomicAdd(dst + 3, acc.w);
}

// How many float4s of a row of Y the lanes cover: all k / 4, or, planted, one too few.
template <SpmmBug bug>
__device__ int planted_vectors(int k) {
  return bug == SpmmBug::SkipsLastFloat4 ? k / 4 - 1 : k / 4;
}

// Launch 1, a warp per row: the whole row, or a long row's first segment; stored.
template <SpmmBug bug>
__global__ void planted_spmm_rows_kernel(CsrView a, const float* x, float* y, int k) {
  const long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= a.rows || lane >= planted_vectors<bug>(k)) return;  // no shuffles here: lanes may leave alone
  const int start = a.row_ptr[row], end = a.row_ptr[row + 1];
  if (bug == SpmmBug::SkipsEmptyRows && start == end) return;  // "nothing to add, nothing to store"
  const int stop = min(end, start + kSpmmSegment);
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int e = start; e < stop; ++e) add_product(acc, a.val[e], planted_x_columns<bug>(x, a.col[e], a.cols, k, lane));
  float* dst = y + row * k + 4 * lane;
  if (bug == SpmmBug::AddsOntoPoison && end - start > kSpmmSegment) {
    add_into(dst, acc);  // the split row's first piece added to a Y row nobody zeroed
  } else {
    *reinterpret_cast<float4*>(dst) = acc;
  }
}

// Launch 2, a warp per later segment of a long row (row, first entry, end): added into Y.
template <SpmmBug bug>
__global__ void planted_spmm_segments_kernel(CsrView a, const int3* segments, int count, const float* x, float* y,
                                             int k) {
  const long long s = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (s >= count || lane >= planted_vectors<bug>(k)) return;
  const int3 segment = segments[s];
  float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  for (int e = segment.y; e < segment.z; ++e)
    add_product(acc, a.val[e], planted_x_columns<bug>(x, a.col[e], a.cols, k, lane));
  add_into(y + static_cast<std::size_t>(segment.x) * k + 4 * lane, acc);
}

template <SpmmBug bug>
void launch_spmm(p4::DeviceMatrix& m, const float* x, float* y, int k, cudaStream_t stream) {
  const CsrView a = m.csr();
  if (a.rows == 0) return;
  const unsigned row_blocks =
      static_cast<unsigned>(wb::ceil_div(static_cast<std::size_t>(a.rows) * 32, std::size_t(kSpmmThreads)));
  planted_spmm_rows_kernel<bug><<<row_blocks, kSpmmThreads, 0, stream>>>(a, x, y, k);
  CUDA_CHECK_KERNEL();
  // The segments after each long row's first, laid out on the host.
  std::vector<int3> segments;
  const std::vector<int>& row_ptr = m.host().row_ptr;
  for (int r = 0; r < a.rows; ++r) {
    const int start = row_ptr[r], end = row_ptr[r + 1];
    if (end - start <= kSpmmSegment) continue;
    const std::size_t before = segments.size();
    for (int b = start + kSpmmSegment; b < end; b += kSpmmSegment)
      segments.push_back(make_int3(r, b, std::min(end, b + kSpmmSegment)));
    // Planted: the loop over a row's segments stops one short.
    if (bug == SpmmBug::LosesLastSegment && segments.size() > before) segments.pop_back();
  }
  if (segments.empty()) return;
  wb::DeviceBuffer<int3> device_segments(segments);
  const int count = static_cast<int>(segments.size());
  const unsigned segment_blocks =
      static_cast<unsigned>(wb::ceil_div(static_cast<std::size_t>(count) * 32, std::size_t(kSpmmThreads)));
  planted_spmm_segments_kernel<bug>
      <<<segment_blocks, kSpmmThreads, 0, stream>>>(a, device_segments.data(), count, x, y, k);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaStreamSynchronize(stream));  // the segments' buffer is freed on return
}

// A warp per row, fewer warps than rows (each warp takes rows warp, warp + warps, ...), lane l owns
// float4 min(l, k / 4 - 1) and stores it when l < k / 4, so every lane runs the same path; the row's
// (col, val) pairs pass through shared memory 32 at a time.
enum class SpmmSanitizerBug { StagingWithoutSyncwarp, ReadsColPastRow };

template <SpmmSanitizerBug bug>
__global__ void planted_spmm_sanitizer_kernel(CsrView a, const float* x, float* y, int k) {
  __shared__ int staged_col[kSpmmThreads];
  __shared__ float staged_val[kSpmmThreads];
  volatile int* cols = staged_col + (threadIdx.x / 32) * 32;
  volatile float* vals = staged_val + (threadIdx.x / 32) * 32;
  const int lane = threadIdx.x % 32;
  const int j4 = min(lane, k / 4 - 1);
  const int warps = static_cast<int>(gridDim.x * (blockDim.x / 32));
  for (int row = static_cast<int>((blockIdx.x * blockDim.x + threadIdx.x) / 32); row < a.rows; row += warps) {
    const int start = a.row_ptr[row], end = a.row_ptr[row + 1];
    float4 acc = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (bug == SpmmSanitizerBug::StagingWithoutSyncwarp) {
      for (int b = start; b < end; b += 32) {
        const int n = min(32, end - b);
        const int j = min(b + lane, end - 1);
        // Planted: these stores overwrite the pairs other lanes of the warp read in the loop below for
        // the previous 32 entries or the previous row, and nothing (__syncwarp) orders the stores after
        // those reads, nor the reads below after these stores. A warp in lockstep gets it right.
        cols[lane] = a.col[j];
        vals[lane] = b + lane < end ? a.val[j] : 0.0f;
        for (int t = 0; t < n; ++t)
          add_product(acc, vals[t], planted_x_columns<SpmmBug::None>(x, cols[t], a.cols, k, j4));
      }
    } else {
      // Planted: `<=` where `<` belongs, in the loop and in the bound: lane n of the row's last 32 reads
      // col and val at row_end (past the arrays at the last row), and a row whose length is a multiple
      // of 32 runs one more round; only the row's own entries are used.
      for (int b = start; b <= end; b += 32) {
        const int j = b + lane;
        int c = 0;
        float v = 0.0f;
        if (j <= end) {
          c = read_even_if_masked(a.col, static_cast<std::size_t>(j));
          v = read_even_if_masked(a.val, static_cast<std::size_t>(j));
        }
        const int n = min(32, end - b);
        for (int t = 0; t < n; ++t) {
          const int ct = __shfl_sync(0xffffffffu, c, t);
          const float vt = __shfl_sync(0xffffffffu, v, t);
          add_product(acc, vt, planted_x_columns<SpmmBug::None>(x, ct, a.cols, k, j4));
        }
      }
    }
    if (lane < k / 4) *reinterpret_cast<float4*>(y + static_cast<std::size_t>(row) * k + 4 * lane) = acc;
  }
}

template <SpmmSanitizerBug bug>
void launch_spmm_sanitizer(p4::DeviceMatrix& m, const float* x, float* y, int k, cudaStream_t stream) {
  const CsrView a = m.csr();
  if (a.rows == 0) return;
  // Half as many warps as rows (at least one block): every warp takes a second row through the same
  // staging slots.
  const int warps = std::max(1, a.rows / 2);
  const int blocks = std::max(1, static_cast<int>(wb::ceil_div(warps * 32, kSpmmThreads)));
  planted_spmm_sanitizer_kernel<bug><<<blocks, kSpmmThreads, 0, stream>>>(a, x, y, k);
  CUDA_CHECK_KERNEL();
}

}  // namespace

void planted_spmv_correct(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  launch<Bug::None>(a, x, y, stream);
}
void planted_spmv_skips_last_row(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  launch<Bug::SkipsLastRow>(a, x, y, stream);
}
void planted_spmv_skips_empty_rows(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  launch<Bug::SkipsEmptyRows>(a, x, y, stream);
}
void planted_spmv_reads_x_out_of_range(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  launch<Bug::ReadsXOutOfRange>(a, x, y, stream);
}
void planted_spmv_writes_past_y(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  launch<Bug::WritesPastY>(a, x, y, stream);
}
void planted_spmv_drops_first_entry(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  launch<Bug::DropsFirstEntry>(a, x, y, stream);
}
void planted_spmv_warp_lane0_only(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  launch<Bug::Lane0Only>(a, x, y, stream);
}
void planted_spmv_vector_no_syncwarp(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  launch_vector<VectorBug::NoSyncwarp>(a, x, y, stream);
}
void planted_spmv_vector_reads_past_row_masked(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  launch_vector<VectorBug::ReadsPastRowMasked>(a, x, y, stream);
}

void planted_spmm_correct(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream) {
  launch_spmm<SpmmBug::None>(a, x, y, k, stream);
}
void planted_spmm_reads_x_column_major(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream) {
  launch_spmm<SpmmBug::ColumnMajorX>(a, x, y, k, stream);
}
void planted_spmm_loses_last_segment(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream) {
  launch_spmm<SpmmBug::LosesLastSegment>(a, x, y, k, stream);
}
void planted_spmm_skips_last_float4(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream) {
  launch_spmm<SpmmBug::SkipsLastFloat4>(a, x, y, k, stream);
}
void planted_spmm_skips_empty_rows(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream) {
  launch_spmm<SpmmBug::SkipsEmptyRows>(a, x, y, k, stream);
}
void planted_spmm_adds_onto_poison(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream) {
  launch_spmm<SpmmBug::AddsOntoPoison>(a, x, y, k, stream);
}
void planted_spmm_staging_without_syncwarp(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream) {
  launch_spmm_sanitizer<SpmmSanitizerBug::StagingWithoutSyncwarp>(a, x, y, k, stream);
}
void planted_spmm_reads_col_past_row(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream) {
  launch_spmm_sanitizer<SpmmSanitizerBug::ReadsColPastRow>(a, x, y, k, stream);
}
