// SPDX-License-Identifier: MIT
#include "common/check.h"
#include "common/planted_bugs.cuh"
#include "common/util.h"
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
