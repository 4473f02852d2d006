// SPDX-License-Identifier: MIT
// Phase 4 launchers: sparse formats and SpMV (y = A x, float values, int indices). A matrix reaches a
// kernel as a *view*: a small struct of sizes and device pointers, passed by value, that the host
// toolkit's formats (phase4_spmv/harness/sparse.h) are uploaded into by DeviceMatrix (harness/device_matrix.h).
// Launchers take views, device pointers for x and y and a stream, enqueue their kernel(s), check the launch
// (CUDA_CHECK_KERNEL) and launch nothing when there is nothing to do. y has `rows` entries and every
// one of them is written, empty rows included (y_i = 0). Host code only here: tests include it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

// ---- device views of the formats (the layouts are documented in phase4_spmv/harness/sparse.h) ------------------

// Entries in any order; 0-based.
struct CooView {
  int rows = 0, cols = 0, nnz = 0;
  const int* row = nullptr;
  const int* col = nullptr;
  const float* val = nullptr;
};

// Row r's entries are col/val[row_ptr[r] .. row_ptr[r + 1]), columns sorted within a row.
struct CsrView {
  int rows = 0, cols = 0, nnz = 0;
  const int* row_ptr = nullptr;  // rows + 1 entries
  const int* col = nullptr;
  const float* val = nullptr;
};

// Column-major ELLPACK: slot k of row r at [k * rows + r]; padding has col = -1 and val = 0.
struct EllView {
  int rows = 0, cols = 0, width = 0;
  const int* col = nullptr;
  const float* val = nullptr;
};

// 4x4 blocks in block-CSR order, 16 row-major values per block (zeros stored).
struct Bsr4View {
  int rows = 0, cols = 0, block_rows = 0, blocks = 0;  // block_rows = ceil(rows / 4)
  const int* block_row_ptr = nullptr;                  // block_rows + 1 entries
  const int* block_col = nullptr;
  const float* val = nullptr;  // 16 * blocks
};

// ---- 4.01 coo_to_csr --------------------------------------------------------------------------------
// Builds the CSR form of `coo` (entries in any order, no duplicates) on the GPU: row_ptr (rows + 1),
// col and val (nnz each), columns sorted within each row, exactly like p4::sparse::coo_to_csr.
// Allocates its scratch memory stream-ordered (cudaMallocAsync) on `stream`.
void coo_to_csr_gpu(const CooView& coo, int* row_ptr, int* col, float* val, cudaStream_t stream);

// ---- 4.02 csr_scalar --------------------------------------------------------------------------------
// One thread per row.
void spmv_csr_scalar(const CsrView& a, const float* x, float* y, cudaStream_t stream);

// ---- 4.03 csr_vector --------------------------------------------------------------------------------
// One warp per row, lanes stride through the row, a shuffle reduction sums their partial sums.
void spmv_csr_vector(const CsrView& a, const float* x, float* y, cudaStream_t stream);

// ---- 4.04 ell ---------------------------------------------------------------------------------------
// One thread per row over the column-major padded slots.
void spmv_ell(const EllView& a, const float* x, float* y, cudaStream_t stream);

// ---- 4.08 cusparse_reference ------------------------------------------------------------------------
// cuSPARSE's generic API on CSR. The plan (handle, matrix and vector descriptors, work buffer) is made
// once and run many times: only spmv_cusparse_plan_run belongs in a timed loop.
struct CusparseSpmvPlan;  // opaque: defined in 08_cusparse_reference.cu
CusparseSpmvPlan* spmv_cusparse_plan_create(const CsrView& a, const float* x, float* y, cudaStream_t stream);
void spmv_cusparse_plan_run(CusparseSpmvPlan* plan);
void spmv_cusparse_plan_destroy(CusparseSpmvPlan* plan);
// Create, run once, destroy: the launcher form the graded tests call.
void spmv_cusparse_csr(const CsrView& a, const float* x, float* y, cudaStream_t stream);

// ==== P4b: 4.05 csr_adaptive, 4.06 csr_balanced, 4.07 block_tiled (declarations below) ==============
// ---- 4.05-4.07 (adaptive, balanced, block-tiled) --------------------------------------------------

// ---- 4.05 csr_adaptive ------------------------------------------------------------------------------
// CSR-Adaptive: the entries are cut into chunks of a fixed count, and row block k is the run of rows
// whose first entry lies in chunk k. A thread block streams its row block's products through shared
// memory (coalesced loads, one barrier) and then sums each row with as many lanes as fit; only the
// block's last row can reach past the chunk, and a long one is summed by the whole block.
// The plan (row_block_start, spmv_csr_adaptive_plan_entries(a) ints) depends on row_ptr only: make it
// once per matrix, then run spmv_csr_adaptive as often as you like.
int spmv_csr_adaptive_plan_entries(const CsrView& a);
void spmv_csr_adaptive_plan(const CsrView& a, int* row_block_start, cudaStream_t stream);
void spmv_csr_adaptive(const CsrView& a, const int* row_block_start, const float* x, float* y, cudaStream_t stream);

// ---- 4.06 csr_balanced ------------------------------------------------------------------------------
// Merge-path CSR: the rows' ends and the entries form one merged list of rows + nnz items, cut into
// equal tiles, one per thread block, whatever the row lengths. A row cut by a tile boundary leaves a
// partial sum (a carry) that a second small kernel adds into y. `workspace` holds the tiles' start
// coordinates and carries: spmv_csr_balanced_workspace_bytes(a) bytes of device memory (like
// cuSPARSE's bufferSize), reusable across calls on the same matrix.
std::size_t spmv_csr_balanced_workspace_bytes(const CsrView& a);
void spmv_csr_balanced(const CsrView& a, const float* x, float* y, void* workspace, cudaStream_t stream);

// ---- 4.07 block_tiled -------------------------------------------------------------------------------
// SPASM-style block-tiled SpMV on 4x4 pattern blocks. A tile is a run of block rows that one thread
// block handles; BlockTiledMatrix prepares, on the host, what the kernel should not have to work out:
// each block's x position pre-decoded (relative to its tile's x window in shared memory, or absolute
// when the window does not fit), its value offset, the blocks of every block row sorted by template
// (most frequent first) so that neighbouring lanes follow the same pattern, and one 32-bit descriptor
// per template (per block row: a 4-bit column mask and the offset of its first value).
namespace p4 {
namespace sparse {
struct PatternBlocks;
}  // namespace sparse
}  // namespace p4

struct BlockTiledView {
  int rows = 0, cols = 0, block_rows = 0, tiles = 0, template_count = 0;
  const int* block_row_ptr = nullptr;    // block_rows + 1 entries (blocks in sorted order)
  const int2* block_position = nullptr;  // per block: {x index of its first column, value offset}
  const std::uint16_t* block_template = nullptr;
  const std::uint32_t* template_rows = nullptr;  // per template: byte i = row i's mask | first value << 4
  const int2* tile_window = nullptr;             // per tile: {first column, length}; length -1: read x directly
  const float* values = nullptr;                 // packed, block after block: 16-byte aligned (below)
};

class BlockTiledMatrix {
 public:
  explicit BlockTiledMatrix(const p4::sparse::PatternBlocks& blocks);
  ~BlockTiledMatrix();
  BlockTiledMatrix(const BlockTiledMatrix&) = delete;
  BlockTiledMatrix& operator=(const BlockTiledMatrix&) = delete;
  BlockTiledView view() const;
  int tiles_reading_x_directly() const;  // tiles whose columns span more than the shared-memory window

 private:
  struct Storage;
  Storage* storage_;
};

// y = A x. What the launcher may assume about its two float arrays:
//  - a.values starts on a 16-byte boundary: BlockTiledMatrix uploads it into an allocation of its own
//    (cudaMalloc, 256-byte aligned). A view made any other way must keep this.
//  - x gets no such promise. As everywhere in this phase it is the caller's array of cols floats,
//    only float-aligned, with nothing readable past x[cols - 1] (a block at the right edge names
//    columns past it, and tools/sanitize_test.sh's memcheck runs allocate x to its exact size): read
//    x one float at a time, never as float4. The tile's window in shared memory is 16-byte aligned
//    and zero-padded to whole blocks, but a tile whose columns do not fit it reads x itself.
void spmv_block_tiled(const BlockTiledView& a, const float* x, float* y, cudaStream_t stream);

// ---- 4.09 spmm (the capstone) -----------------------------------------------------------------------
// Y = A X: A sparse (CSR, rows x cols), X dense row-major cols x k (row c at X[c * k .. c * k + k)), Y
// dense row-major rows x k, float values. k is 64 or 128, and X and Y start on a 16-byte boundary
// (cudaMalloc gives 256); anything else throws std::invalid_argument. Every element of Y is written,
// the rows of empty rows of A included (zeros), whatever Y held before.
void spmm_csr(const CsrView& a, const float* x, float* y, int k, cudaStream_t stream);
