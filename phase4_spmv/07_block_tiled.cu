// SPDX-License-Identifier: MIT
// 4.07 block_tiled: SPASM-style SpMV on 4x4 blocks with pattern templates, x cached per tile.
//
// You learn: why a block format beats CSR on matrices made of small dense blocks (one column index per
// block instead of one per entry: 74 bytes for 16 entries instead of 128), how pattern templates let
// the kernel find a block's entries without per-entry indices, and what the host should settle before
// the kernel runs: positions pre-decoded into x indices, blocks sorted by template so the lanes of a
// warp follow the same pattern, the frequent templates (first in the table) in shared memory, and the
// slice of x a tile reads loaded once into shared memory.
// Task: in block_row_spmv (called by spmv_block_tiled_kernel) let one warp compute a block row's 4
// rows of y: each lane sums one row of the blocks its slot owns, finding the entries through the
// block's template instead of per-entry columns; then the slots' sums become y.
// You decide: which blocks of a block row each slot takes; which lane is which (block slot, row) pair,
//             and so which shuffles fold the slots; when a row may take one float4; which lanes write y.
// Source: SPASM's block-tiled SpMV: a warp works on 8 4x4 blocks at a time, blocks are pre-decoded and grouped
// by template, and each tile's slice of x is prefetched into shared memory.
// Run:   ./workbook run 4.07 [-- --gen block|poisson|banded --rows 4M]
//        or --matrix file.mtx
// Check: ./workbook check 4.07
// Aim:   faster than cuSPARSE CSR (the result line's % above 100) on block at 4M rows on an H100.
// Previous: 4.06 csr_balanced. Next: 4.08 cusparse_reference.

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

#include "common/check_cusparse.h"
#include "common/workbook.h"
#include "phase4_spmv/harness/lesson_support.h"
#include "phase4_spmv/harness/sparse.h"
#include "phase4_spmv/spmv.cuh"

namespace {

constexpr int kThreads = 256;
constexpr int kWarpSize = 32;
constexpr int kSlots = 8;             // blocks a warp works on at once: 8 slots x 4 rows = 32 lanes
constexpr int kTileBlockRows = 64;    // block rows per tile (per thread block): 256 matrix rows
constexpr int kWindow = 2048;         // floats of x a tile may cache (8 KB of shared memory)
constexpr int kSharedTemplates = 64;  // the most frequent templates, kept in shared memory
static_assert(kSlots * 4 == kWarpSize, "a lane is one row (0..3) of one block slot");

// ---- kernels ----------------------------------------------------------------------------------------

// Block row br (matrix rows 4 br .. 4 br + 3) by one warp. xs: the tile's x window or x itself (the
// positions were pre-decoded for the one in use); shared_rows: the first kSharedTemplates descriptors.
// Alignment (spmv.cuh): a float4 load must start on a 16-byte boundary and hold only values of the
// lane's own row; x is only float-aligned and ends at x[cols - 1], so xs is read one float at a time
// (when xs is x itself, a float4 of an edge block would read past the end).
__device__ void block_row_spmv(const BlockTiledView& a, const float* xs, const std::uint32_t* shared_rows, int br,
                               float* y) {
  // TODO(4.07): compute the 4 rows of y that block row br covers (about 28 lines). The warp's lanes are
  //             kSlots block slots of 4 rows; every block of the block row (there may be any number,
  //             0 too) is counted exactly once. Per block you have its pre-decoded position (in xs)
  //             and value offset, and its template's descriptor (see the host build below), which the
  //             first kSharedTemplates templates keep in shared_rows. Values may be read as float4
  //             only where the alignment note above allows it. Then add up the slots' sums for each
  //             row; write each row once, and only rows that exist (below a.rows).
}

__global__ __launch_bounds__(kThreads) void spmv_block_tiled_kernel(BlockTiledView a, const float* __restrict__ x,
                                                                    float* __restrict__ y) {
  __shared__ __align__(16) float x_window[kWindow];
  __shared__ std::uint32_t shared_rows[kSharedTemplates];
  const int tid = threadIdx.x;
  const int2 window = a.tile_window[blockIdx.x];
  for (int t = tid; t < kSharedTemplates && t < a.template_count; t += kThreads) shared_rows[t] = a.template_rows[t];
  // The tile's slice of x, once, coalesced; columns past the matrix edge read as 0 (no block uses them).
  for (int i = tid; i < window.y; i += kThreads) x_window[i] = window.x + i < a.cols ? x[window.x + i] : 0.0f;
  __syncthreads();  // the x slice and the templates are in shared memory before any block reads them
  const int tile_end = min((blockIdx.x + 1) * kTileBlockRows, a.block_rows);
  // Warp w takes block rows w, w + 8, ... of the tile. Its 32 lanes are 8 block slots x 4 rows; which
  // lane is which, and which of a block row's blocks each slot takes, block_row_spmv decides.
  for (int br = blockIdx.x * kTileBlockRows + tid / kWarpSize; br < tile_end; br += kThreads / kWarpSize) {
    block_row_spmv(a, window.y >= 0 ? x_window : x, shared_rows, br, y);
  }
}

}  // namespace

// ---- the format: built once on the host -------------------------------------------------------------

struct BlockTiledMatrix::Storage {
  BlockTiledView view;
  int direct_tiles = 0;
  wb::DeviceBuffer<int> block_row_ptr;
  wb::DeviceBuffer<int2> block_position;
  wb::DeviceBuffer<std::uint16_t> block_template;
  wb::DeviceBuffer<std::uint32_t> template_rows;
  wb::DeviceBuffer<int2> tile_window;
  wb::DeviceBuffer<float> values;  // an allocation of its own: 256-byte aligned, as spmv.cuh promises
};

BlockTiledMatrix::BlockTiledMatrix(const p4::sparse::PatternBlocks& p) : storage_(new Storage) {
  p4::sparse::validate(p);
  const int block_rows = wb::ceil_div(p.rows, 4);
  const int tiles = wb::ceil_div(block_rows, kTileBlockRows);
  // Template descriptors: byte i holds row i's 4-bit column mask and, above it, how many of the
  // block's packed values come before row i (0 .. 12): a lane never counts bits at run time.
  std::vector<std::uint32_t> template_rows;
  for (std::uint16_t mask : p.templates) {
    std::uint32_t rows = 0;
    int before = 0;
    for (int i = 0; i < 4; ++i) {
      const unsigned row_mask = (mask >> (4 * i)) & 0xFu;
      rows |= static_cast<std::uint32_t>(row_mask | (before << 4)) << (8 * i);
      for (int j = 0; j < 4; ++j) before += (row_mask >> j) & 1u;
    }
    template_rows.push_back(rows);
  }
  std::vector<int2> position(p.blocks()), window(static_cast<std::size_t>(tiles));
  std::vector<std::uint16_t> block_template(p.blocks());
  std::vector<float> values;
  values.reserve(p.values.size());
  std::vector<int> order;
  int direct_tiles = 0;
  for (int tile = 0; tile < tiles; ++tile) {
    const int br_begin = tile * kTileBlockRows, br_end = std::min(block_rows, br_begin + kTileBlockRows);
    // The tile's x window: from its leftmost block column to its rightmost, if it fits.
    int lo = p.cols, hi = -1;
    for (int b = p.block_row_ptr[br_begin]; b < p.block_row_ptr[br_end]; ++b) {
      lo = std::min(lo, p.block_col[b]);
      hi = std::max(hi, p.block_col[b]);
    }
    int2 w = make_int2(0, 0);  // no blocks: nothing to cache
    if (hi >= 0) w = 4 * (hi - lo + 1) <= kWindow ? make_int2(4 * lo, 4 * (hi - lo + 1)) : make_int2(0, -1);
    direct_tiles += w.y < 0;
    window[tile] = w;
    for (int br = br_begin; br < br_end; ++br) {
      // Sorted by template (most frequent first), so the 8 slots of a warp mostly share a pattern.
      order.clear();
      for (int b = p.block_row_ptr[br]; b < p.block_row_ptr[br + 1]; ++b) order.push_back(b);
      std::stable_sort(order.begin(), order.end(),
                       [&p](int l, int r) { return p.template_of_block[l] < p.template_of_block[r]; });
      int out = p.block_row_ptr[br];
      for (int b : order) {
        // Pre-decoded: where in x (or in the tile's window) the block's first column is.
        position[out] = make_int2(4 * p.block_col[b] - (w.y >= 0 ? w.x : 0), static_cast<int>(values.size()));
        block_template[out] = static_cast<std::uint16_t>(p.template_of_block[b]);
        values.insert(values.end(), p.values.begin() + p.value_offset[b], p.values.begin() + p.value_offset[b + 1]);
        ++out;
      }
    }
  }
  Storage& s = *storage_;
  s.block_row_ptr = wb::DeviceBuffer<int>(p.block_row_ptr);
  s.block_position = wb::DeviceBuffer<int2>(position);
  s.block_template = wb::DeviceBuffer<std::uint16_t>(block_template);
  s.template_rows = wb::DeviceBuffer<std::uint32_t>(template_rows);
  s.tile_window = wb::DeviceBuffer<int2>(window);
  s.values = wb::DeviceBuffer<float>(values);
  s.direct_tiles = direct_tiles;
  s.view = BlockTiledView{p.rows,
                          p.cols,
                          block_rows,
                          tiles,
                          static_cast<int>(template_rows.size()),
                          s.block_row_ptr.data(),
                          s.block_position.data(),
                          s.block_template.data(),
                          s.template_rows.data(),
                          s.tile_window.data(),
                          s.values.data()};
}

BlockTiledMatrix::~BlockTiledMatrix() {
  delete storage_;
}
BlockTiledView BlockTiledMatrix::view() const {
  return storage_->view;
}
int BlockTiledMatrix::tiles_reading_x_directly() const {
  return storage_->direct_tiles;
}

// ---- launchers --------------------------------------------------------------------------------------

void spmv_block_tiled(const BlockTiledView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.tiles == 0) return;  // no rows: a grid of 0 blocks is an invalid launch
  spmv_block_tiled_kernel<<<a.tiles, kThreads, 0, stream>>>(a, x, y);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// cuSPARSE's 4x4 BSR SpMV (cusparseSbsrmv) on the same blocks, zeros stored: the library's block answer.
// It reads x and writes y in whole blocks, so both are padded to a multiple of 4 here.
wb::TimingStats time_cusparse_bsr(p4::DeviceMatrix& m, const float* x, const wb::BenchOptions& options) {
  const Bsr4View b = m.bsr4();
  const int block_cols = wb::ceil_div(b.cols, 4);
  wb::DeviceBuffer<float> x_padded(4 * static_cast<std::size_t>(block_cols)),
      y_padded(4 * static_cast<std::size_t>(b.block_rows));
  CUDA_CHECK(cudaMemset(x_padded.data(), 0, x_padded.bytes()));
  CUDA_CHECK(cudaMemcpy(x_padded.data(), x, sizeof(float) * b.cols, cudaMemcpyDeviceToDevice));
  cusparseHandle_t handle = nullptr;
  cusparseMatDescr_t descr = nullptr;
  CUSPARSE_CHECK(cusparseCreate(&handle));
  CUSPARSE_CHECK(cusparseCreateMatDescr(&descr));
  const float one = 1.0f, zero = 0.0f;
  const wb::TimingStats t = wb::bench(nullptr, options, [&] {
    CUSPARSE_CHECK(cusparseSbsrmv(handle, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE, b.block_rows,
                                  block_cols, b.blocks, &one, descr, b.val, b.block_row_ptr, b.block_col, 4,
                                  x_padded.data(), &zero, y_padded.data()));
  });
  CUSPARSE_CHECK(cusparseDestroyMatDescr(descr));
  CUSPARSE_CHECK(cusparseDestroy(handle));
  return t;
}

// Napkin math: block at 4M rows (1M nodes, each with itself and 4 neighbours: 5 dense 4x4 blocks per
// block row) has 84M entries. CSR moves 8 bytes per entry: 671 MB + row pointers, x, y = 721 MB. The
// pattern blocks move 64 bytes of values + 10 of position and template per 16 entries: 388 MB, + 38 MB
// of x, y and block row pointers = 426 MB, 0.59x the bytes, so at the same GB/s the block kernel takes
// 0.59x the time. The result line still counts the CSR bytes (the same yardstick for every rung), so
// its GB/s can pass what HBM delivers: that excess is the format's saving, not a faster memory.
int block_tiled_lesson(wb::Lesson& lesson) {
  auto tiled = std::make_shared<std::unique_ptr<BlockTiledMatrix>>();
  auto bsr_ms = std::make_shared<double>(0.0);
  auto bsr_note = std::make_shared<std::string>();
  const wb::BenchOptions options = lesson.bench_options(true);
  const int status = p4::run_spmv_lesson(
      lesson, "spmv_block_tiled",
      [tiled, bsr_ms, bsr_note, options](p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t s) {
        if (!*tiled) {  // once per matrix, before the timed runs: convert, pre-decode, sort, upload
          *tiled = std::make_unique<BlockTiledMatrix>(m.host_pattern_blocks());
          const p4::sparse::PatternBlocks& p = m.host_pattern_blocks();
          char note[160];
          std::snprintf(note, sizeof note, "%zu blocks, %zu templates, %d of %d tiles read x directly", p.blocks(),
                        p.templates.size(), (*tiled)->tiles_reading_x_directly(), (*tiled)->view().tiles);
          *bsr_note = note;
          if (m.rows() > 0) *bsr_ms = time_cusparse_bsr(m, x, options).median_ms;
        }
        spmv_block_tiled((*tiled)->view(), x, y, s);
      },
      "block");
  if (!lesson.options().csv && *bsr_ms > 0) {
    std::printf("      %s; cuSPARSE BSR 4x4 (bsrmv) %.3g ms\n", bsr_note->c_str(), *bsr_ms);
  }
  return status;
}

}  // namespace

WB_LESSON(block_tiled_lesson, "SPASM-style block-tiled SpMV with pattern templates, against cuSPARSE");
