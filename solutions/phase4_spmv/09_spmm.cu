// SPDX-License-Identifier: MIT
// 4.09 spmm (capstone): Y = A X, a sparse matrix times a dense one, at the library's speed.
//
// You learn: to design a sparse kernel from what phase 4 taught when every entry brings a row of work:
// a_rc is read once and multiplies row c of X (k contiguous floats), so the index arrays cost little
// and the rows of X and Y are the traffic. Reuse of each entry is the new idea; the rest is what this
// phase taught, combined as you see fit.
// Task: spmm_csr computes Y = A X for A in CSR (rows x cols, any row lengths, empty rows included), X
// row-major cols x k and Y row-major rows x k, k = 64 or 128. Y arrives full of garbage and every
// element must be written (an empty row of A gives a row of zeros). A row of 60000 entries among rows of
// 5 must not keep one warp busy while the rest of the GPU idles. Scratch memory, if your design needs
// any, is the launcher's to allocate and free on the stream (cudaMallocAsync / cudaFreeAsync).
// You decide: who owns a row (a warp, part of one, several rows per warp) and which columns of Y a lane
//             owns; how rows far longer than the rest are split, and how their pieces reach Y; where a
//             row's (col, value) pairs live while the lanes use them.
// Source: the cuSPARSE documentation, cusparseSpMM; the papers behind the reference's design are named
// in the first hint (their titles answer the splitting question).
// Run:   ./workbook run 4.09 [-- --gen poisson|uniform|powerlaw|banded|block --rows 4M]
//        or --matrix file.mtx
// Check: ./workbook check 4.09
// Aim:   >= 100% of cuSPARSE SpMM (the faster of ALG_DEFAULT and CSR_ALG2, same run) on every generator
//        at 4M rows and k = 64 (H100: cuSPARSE takes 1.77 ms on poisson, 44% of memcpy for the least traffic).
// Previous: 4.08 cusparse_reference. Next: phase 4's benchmark, p4_bench.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/workbook.h"
#include "phase4_spmv/harness/spmm_lesson.h"
#include "phase4_spmv/spmv.cuh"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;  // every lane takes part in every shuffle and ballot
constexpr int kThreads = 256;                // 8 warps a block
// The work is cut into pieces of equal size in merge items (4.06's merge path): every entry is an item,
// and so is every row (its end). Row r's items start at f(r) = row_ptr[r] + r, which grows by at least
// 1 a row, so a piece holds at most kPieceItems rows and kPieceItems entries, however the rows are made.
constexpr long long kPieceItems = 512;
// A row with more entries than this is shared by the warps whose pieces it crosses, and added into Y;
// every other row belongs whole to the warp whose piece holds its first item, and is stored.
constexpr int kLongRow = 512;
static_assert(kLongRow + 1 >= kPieceItems, "a long row must run past the end of the piece it starts in");

// A lane's kVec columns of row `p` of X, through the read-only path: rows of X that neighbouring rows
// of A share (poisson, banded, block) are then served by L1.
template <int kVec>
__device__ __forceinline__ void load_columns(const float* __restrict__ p, float (&v)[kVec]) {
  if constexpr (kVec == 4) {
    const float4 t = __ldg(reinterpret_cast<const float4*>(p));
    v[0] = t.x;
    v[1] = t.y;
    v[2] = t.z;
    v[3] = t.w;
  } else {
    const float2 t = __ldg(reinterpret_cast<const float2*>(p));
    v[0] = t.x;
    v[1] = t.y;
  }
}

// A finished row of Y: the lane's kVec sums are stored (the row is this warp's alone) or added (a long
// row that other warps add their pieces to; spmm_zero_long_rows_kernel zeroed it before), then reset.
template <int kVec>
__device__ __forceinline__ void flush_row(float* __restrict__ y, long long row, int lane, float (&acc)[kVec],
                                          bool shared_row) {
  float* dst = y + row * (kWarpSize * kVec) + lane * kVec;
  if (shared_row) {
#pragma unroll
    for (int j = 0; j < kVec; ++j) atomicAdd(dst + j, acc[j]);
  } else {
    if constexpr (kVec == 4) {
      *reinterpret_cast<float4*>(dst) = make_float4(acc[0], acc[1], acc[2], acc[3]);
    } else {
      *reinterpret_cast<float2*>(dst) = make_float2(acc[0], acc[1]);
    }
  }
#pragma unroll
  for (int j = 0; j < kVec; ++j) acc[j] = 0.0f;
}

// Entries [e, e_end) of rows row .. row + rows_here - 1 (at most 32 rows), in order; lane l holds in
// row_end where row `row + l` ends (at most e_end). Each lane keeps its kVec columns of the current row's
// sums in registers. The warp reads the entries 32 at a time (one coalesced load of col and of val, the
// next 32 already on their way), hands each entry's (col, val) to every lane with a shuffle, and issues
// kBatch loads of X rows before it multiplies any of them. A row is flushed as soon as its last entry is
// in; empty rows as they come.
template <int kVec, int kBatch>
__device__ void walk_rows(const CsrView& a, const float* __restrict__ x, float* __restrict__ y, int lane, int e,
                          int e_end, int row, int rows_here, int row_end, bool last_shared) {
  constexpr int kCols = kWarpSize * kVec;
  float acc[kVec];
#pragma unroll
  for (int j = 0; j < kVec; ++j) acc[j] = 0.0f;
  int cur = 0;  // the row being summed, counted from `row`; cur, cur_end and done agree in every lane
  int cur_end = __shfl_sync(kFullMask, row_end, 0);
  auto flush_finished = [&](int done) {  // every row that ends at or before entry `done`
    while (cur < rows_here && cur_end <= done) {
      flush_row<kVec>(y, static_cast<long long>(row) + cur, lane, acc, last_shared && cur == rows_here - 1);
      ++cur;
      cur_end = __shfl_sync(kFullMask, row_end, cur & (kWarpSize - 1));
    }
  };
  flush_finished(e);  // empty rows before the first entry

  int col = 0;
  float val = 0.0f;
  if (lane < e_end - e) {
    col = __ldg(&a.col[e + lane]);
    val = __ldg(&a.val[e + lane]);
  }
  for (int b = e, left = e_end - e; left > 0;) {
    const int n = min(kWarpSize, left);
    int next_col = 0;
    float next_val = 0.0f;
    if (kWarpSize + lane < left) {  // the next 32 entries, in flight while these are used
      next_col = __ldg(&a.col[b + kWarpSize + lane]);
      next_val = __ldg(&a.val[b + kWarpSize + lane]);
    }
    for (int t0 = 0; t0 < n; t0 += kBatch) {
      float xs[kBatch][kVec];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        if (t0 + u < n) {
          const int c = __shfl_sync(kFullMask, col, t0 + u);
          load_columns<kVec>(x + static_cast<long long>(c) * kCols + lane * kVec, xs[u]);
        }
      }
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        if (t0 + u < n) {
          const float v = __shfl_sync(kFullMask, val, t0 + u);
#pragma unroll
          for (int j = 0; j < kVec; ++j) acc[j] = fmaf(v, xs[u][j], acc[j]);
          flush_finished(b + t0 + u + 1);
        }
      }
    }
    col = next_col;
    val = next_val;
    b += n;
    left -= n;
  }
}

// The smallest row r in [0, rows] whose items start at or after `target` (f(rows) = nnz + rows is past
// every target). 32 probes a round: the first round spreads them 1, 2, 4, ... rows either side of where
// a matrix of equal rows would have it (most matrices end there), later rounds cut what is left in 33.
__device__ int first_row_from(const CsrView& a, long long target, int lane) {
  int lo = 0, hi = a.rows;  // the answer lies in [lo, hi]
  const long long total = static_cast<long long>(a.nnz) + a.rows;
  const long long guess = target * a.rows / total;
  for (bool first_round = true; lo < hi; first_round = false) {
    const long long span = hi - lo;
    long long q;
    if (first_round)
      q = guess + (lane < kWarpSize / 2 ? -(1LL << (kWarpSize / 2 - 1 - lane)) : (1LL << (lane - kWarpSize / 2)) - 1);
    else if (span <= kWarpSize)
      q = lo + lane;
    else
      q = lo + (lane + 1) * span / (kWarpSize + 1);
    const int probe = static_cast<int>(min(max(q, static_cast<long long>(lo)), static_cast<long long>(hi) - 1));
    // Probes grow with the lane and so does f: the lanes at or past the target are the top ones.
    const unsigned past = __ballot_sync(kFullMask, static_cast<long long>(__ldg(&a.row_ptr[probe])) + probe >= target);
    if (past == 0) {
      lo = __shfl_sync(kFullMask, probe, kWarpSize - 1) + 1;
    } else {
      const int first_past = __ffs(past) - 1;
      hi = __shfl_sync(kFullMask, probe, first_past);
      if (first_past > 0) lo = __shfl_sync(kFullMask, probe, first_past - 1) + 1;
    }
  }
  return lo;
}

// One warp's piece: items [piece * kPieceItems, + kPieceItems) of the merged list.
template <int kVec, int kBatch>
__device__ void spmm_piece(const CsrView& a, const float* __restrict__ x, float* __restrict__ y, long long piece,
                           int lane) {
  const long long item_begin = piece * kPieceItems;
  const long long item_end = min(item_begin + kPieceItems, static_cast<long long>(a.nnz) + a.rows);
  const int first = piece == 0 ? 0 : first_row_from(a, item_begin, lane);

  // The part of a long row that started in an earlier piece and runs into this one (entry e of row r is
  // item e + r): summed here and added into Y.
  if (first > 0) {
    const int r = first - 1;
    const int begin = __ldg(&a.row_ptr[r]), end = __ldg(&a.row_ptr[r + 1]);
    if (end - begin > kLongRow) {
      const int from = static_cast<int>(max(static_cast<long long>(begin), item_begin - r));
      const int to = static_cast<int>(min(static_cast<long long>(end), item_end - r));
      if (from < to) walk_rows<kVec, kBatch>(a, x, y, lane, from, to, r, 1, to, true);
    }
  }

  // The rows whose first item lies in this piece, 32 at a time: lane l reads where row `row + l` ends.
  int row = first;
  int start = row < a.rows ? __ldg(&a.row_ptr[row]) : 0;  // where row `row` begins
  while (row < a.rows) {
    const int r = row + lane;
    const int end = r < a.rows ? __ldg(&a.row_ptr[r + 1]) : 0;
    int begin = __shfl_up_sync(kFullMask, end, 1);
    if (lane == 0) begin = start;
    const bool owned = r < a.rows && static_cast<long long>(begin) + r < item_end;
    const int owned_rows = __popc(__ballot_sync(kFullMask, owned));  // the lowest lanes: f grows with r
    if (owned_rows == 0) break;
    // Only the piece's last row can be long (a long row runs past the end of the piece it starts in):
    // this warp takes its entries up to the piece's end, the warps of the next pieces the rest.
    const int last = owned_rows - 1;
    const int last_begin = __shfl_sync(kFullMask, begin, last);
    const int last_end = __shfl_sync(kFullMask, end, last);
    const bool last_shared = last_end - last_begin > kLongRow;
    const int e_end =
        last_shared ? static_cast<int>(min(static_cast<long long>(last_end), item_end - (row + last))) : last_end;
    walk_rows<kVec, kBatch>(a, x, y, lane, start, e_end, row, owned_rows, min(end, e_end), last_shared);
    if (owned_rows < kWarpSize) break;
    start = __shfl_sync(kFullMask, end, kWarpSize - 1);
    row += kWarpSize;
  }
}

// Rows longer than kLongRow are summed in pieces by several warps that add into Y: they start at zero.
__global__ void spmm_zero_long_rows_kernel(CsrView a, float* __restrict__ y, int k) {
  const long long r = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= a.rows) return;
  if (a.row_ptr[r + 1] - a.row_ptr[r] <= kLongRow) return;
  float4* row = reinterpret_cast<float4*>(y + r * k);
  for (int i = 0; i < k / 4; ++i) row[i] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

// Each entry a_rc is 8 bytes of A and 4 k bytes of X (row c), added into 4 k bytes of Y (row r): the
// rows of X the entries point at and the rows of Y are nearly all the traffic. Who holds a row's sums
// while its entries stream past, how many rows of X a warp has in flight, and how a very long row is
// shared decide the speed.
__global__ void spmm_csr_kernel(CsrView a, const float* __restrict__ x, float* __restrict__ y, int k) {
  // One piece of kPieceItems merge items per warp; the piece is the same for all 32 lanes, so a warp
  // leaves together and every lane reaches every shuffle.
  const long long piece = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarpSize;
  const int lane = threadIdx.x % kWarpSize;
  if (piece * kPieceItems >= static_cast<long long>(a.nnz) + a.rows) return;
  // A lane owns k / 32 consecutive columns of Y: a float2 at k = 64, a float4 at k = 128, and has 8 or 6
  // rows of X in flight (2 or 3 KB a warp). Both fit in 64 registers a thread (sm_90, CUDA 13.0): 32 warps
  // an SM, 64 or 96 KB of loads in flight on each.
  if (k == 64)
    spmm_piece<2, 8>(a, x, y, piece, lane);
  else
    spmm_piece<4, 6>(a, x, y, piece, lane);
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void spmm_csr(const CsrView& a, const float* x, float* y, int k, cudaStream_t stream) {
  if (k != 64 && k != 128) throw std::invalid_argument("spmm_csr: k must be 64 or 128, got " + std::to_string(k));
  if (reinterpret_cast<std::uintptr_t>(x) % 16 != 0 || reinterpret_cast<std::uintptr_t>(y) % 16 != 0)
    throw std::invalid_argument("spmm_csr: X and Y must start on a 16-byte boundary (cudaMalloc gives 256)");
  if (a.rows == 0) return;  // nothing to write, and a grid of 0 blocks is an invalid launch
  // The kernel uses no shared memory: give L1 all of it, for the rows of X that neighbouring rows share.
  static const bool l1_preferred = [] {
    CUDA_CHECK(cudaFuncSetAttribute(spmm_csr_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                    cudaSharedmemCarveoutMaxL1));
    return true;
  }();
  (void)l1_preferred;
  // Long rows start at zero before any warp adds a piece into them: stream order does it.
  spmm_zero_long_rows_kernel<<<wb::ceil_div(a.rows, kThreads), kThreads, 0, stream>>>(a, y, k);
  CUDA_CHECK_KERNEL();
  // One warp per piece of merge items: every row is covered by the piece that holds its first item, and
  // no piece holds more than kPieceItems entries and rows (plus the end of a row up to kLongRow long).
  const long long pieces = wb::ceil_div(static_cast<long long>(a.nnz) + a.rows, kPieceItems);
  const long long blocks = wb::ceil_div(pieces, static_cast<long long>(kThreads / kWarpSize));
  spmm_csr_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(a, x, y, k);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: Y = A X moves at least A's 8 bytes an entry and its row pointers, X once and Y once:
// on poisson at 4M rows and k = 64 that is 0.18 GB of A and 1.07 GB each of X and Y, 2.3 GB, 0.8 ms at
// the 2.99 TB/s an H100 copies. cuSPARSE SpMM took 1.77 ms there (44% of that copy). On the uniform
// matrix each row of Y gathers 16 random rows of X (17 GB at 4M rows, k = 64) that the least-traffic
// count does not see: every kernel, cuSPARSE's too, stays far below the copy there.
int spmm_lesson(wb::Lesson& lesson) {
  return p4::run_spmm_lesson(
      lesson, "spmm_csr",
      [](p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t s) { spmm_csr(a.csr(), x, y, k, s); });
}

}  // namespace

WB_LESSON(spmm_lesson, "CSR times a dense matrix (k = 64 and 128), against cuSPARSE SpMM");
