// SPDX-License-Identifier: MIT
// The Ampere tensor-core toolkit, one inline-PTX instruction per function, shared by 1.10 and 5.05.
// Read it once: every function is the instruction of its name and nothing more.
//   cp_async_16        cp.async: 16 bytes global -> shared without passing through registers
//   ldmatrix_x4        four 8 x 8 BF16 matrices shared -> registers, in the mma fragment layout
//   ldmatrix_x4_trans  the same, each matrix transposed (B operands stored k-major along rows)
//   mma_bf16_16816     D(16x8, FP32) += A(16x16, BF16) * B(16x8, BF16) for the whole warp
// The swizzle of a [rows][BK] BF16 tile lives here too (swizzle_offset<BK>): 1.10 reads its 64-byte
// form (BK = 32) with ldmatrix, and 1.11 hands its 128-byte form ([rows][64]) to wgmma.
#pragma once

#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>

namespace wb::mma {

// A generic pointer to shared memory as the 32-bit shared-window address the PTX instructions take.
__device__ inline std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// cp.async.cg: copies 16 bytes from global to shared memory asynchronously (L2 only: .cg), writing
// zeros for the bytes past `src_bytes`: 16 copies, 0 zero-fills the chunk without reading `src`
// (which must still be a valid address). Completion is tracked in groups (commit / wait below).
__device__ inline void cp_async_16(void* smem_dst, const void* gmem_src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(smem_dst)), "l"(gmem_src),
               "r"(src_bytes)
               : "memory");
}
// Closes the group of cp.async issued by this thread since the last commit.
__device__ inline void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
// Waits until at most `Pending` of this thread's committed groups are still in flight. Only the
// calling thread's copies: a __syncthreads() must follow before other threads read the data.
template <int Pending>
__device__ inline void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending) : "memory");
}

// ldmatrix.x4: lane i supplies the shared address of one 16-byte row (lanes 0-7 the rows of matrix
// 0, 8-15 of matrix 1, 16-23 of matrix 2, 24-31 of matrix 3); afterwards register r[j] of lane i
// holds elements (i / 4, 2 (i % 4)) and (i / 4, 2 (i % 4) + 1) of matrix j: exactly the layout in
// which mma.sync takes its A and B fragments.
__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(smem_row)));
}

// ldmatrix.x4.trans: the same four 8 x 8 matrices, each transposed on the way: register r[j] of lane i
// holds elements (2 (i % 4), i / 4) and (2 (i % 4) + 1, i / 4) of matrix j. For a B operand stored
// with k along the rows (V in attention: [key][d]), that is the K-major fragment mma.sync wants.
__device__ inline void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(smem_row)));
}

// Two floats as the packed BF16 pair an mma.sync operand register holds (lo in the low half).
__device__ inline std::uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const std::uint32_t*>(&v);
}

// mma.sync m16n8k16, BF16 inputs, FP32 accumulators, in place: d += a * b.
// a: the 16 x 16 A tile (row-major), 4 registers of 2 BF16 each (ldmatrix_x4 order: rows 0-7 k 0-7,
//    rows 8-15 k 0-7, rows 0-7 k 8-15, rows 8-15 k 8-15).
// b: the 16 x 8 B tile given K-major ("col"), 2 registers (k 0-7, k 8-15 of column i / 4).
// d: lane i holds (row i / 4, columns 2 (i % 4) and 2 (i % 4) + 1) in d[0], d[1] and row i / 4 + 8
//    in d[2], d[3].
__device__ inline void mma_bf16_16816(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0, std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Shared tiles of BF16 rows, K-major, swizzled so that ldmatrix reads them without bank conflicts.
// An ldmatrix phase reads the same 16-byte chunk column of 8 consecutive rows. Unswizzled, rows of
// 128 bytes (64 elements) put those 8 chunks in the same 4 banks: an 8-way conflict; rows of 64
// bytes (32 elements), a 4-way one. The swizzle moves chunk c of row r to another chunk of the same
// row so that the 8 rows' chunks cover all 32 banks:
//   128-byte rows: chunk c ^ (r % 8)        (CU_TENSOR_MAP_SWIZZLE_128B, what wgmma reads in 1.11)
//   64-byte rows:  chunk c ^ ((r / 2) % 4)  (CU_TENSOR_MAP_SWIZZLE_64B: two rows share 128 bytes)
// The hardware's versions of these layouts (TMA, wgmma) also need the tile 1024-byte aligned.
template <int RowElems>
__device__ inline int swizzle_offset(int row, int col) {  // in elements; col in [0, RowElems)
  static_assert(RowElems == 64 || RowElems == 32, "rows of 128 or 64 bytes");
  const int chunk = col >> 3;
  const int swizzled = RowElems == 64 ? (chunk ^ row) & 7 : (chunk ^ (row >> 1)) & 3;
  return row * RowElems + (swizzled << 3) + (col & 7);
}

// Copies rows row0.. and columns k0..k0+COLS-1 of a row-major [rows][K] BF16 matrix into a swizzled
// [ROWS][COLS] shared tile with cp.async, 16 bytes per copy, THREADS threads sharing the work. Rows
// past `rows` and columns past K arrive as zeros (they add nothing to a dot product), so tails need
// no special case in the math. Needs K % 8 == 0 and a 16-byte aligned `src`: a 16-byte chunk is then
// wholly inside or wholly outside the matrix.
template <int ROWS, int COLS, int THREADS>
__device__ inline void load_tile_swizzled(__nv_bfloat16* tile, const __nv_bfloat16* src, int rows, int K, int row0,
                                          int k0) {
  constexpr int kChunksPerRow = COLS / 8, kChunks = ROWS * kChunksPerRow;
  static_assert(kChunks % THREADS == 0, "the block's threads must share the tile's 16-byte chunks evenly");
#pragma unroll
  for (int i = 0; i < kChunks / THREADS; ++i) {
    const int chunk = static_cast<int>(threadIdx.x) + i * THREADS;
    const int r = chunk / kChunksPerRow, c = (chunk % kChunksPerRow) * 8;
    const int row = row0 + r, col = k0 + c;
    const bool inside = row < rows && col < K;
    const __nv_bfloat16* from = inside ? src + static_cast<std::size_t>(row) * K + col : src;
    cp_async_16(tile + swizzle_offset<COLS>(r, c), from, inside ? 16 : 0);
  }
}

// Output tile `linear` of a tiles_m x tiles_n grid, in grouped order: `group` rows of tiles are
// walked column by column, so the blocks that run at the same time share a few rows of A and a few
// columns of B, which then come from L2 instead of device memory (at 8192^3 the row-by-row order
// makes every wave read all of B).
struct TileCoord {
  int m, n;  // tile row and column
};
__device__ inline TileCoord grouped_tile(int linear, int tiles_m, int tiles_n, int group) {
  const int per_group = group * tiles_n;
  const int first_m = (linear / per_group) * group;
  const int rows = min(tiles_m - first_m, group);
  const int in_group = linear % per_group;
  return TileCoord{first_m + in_group % rows, in_group / rows};
}

// Writes two horizontally adjacent outputs, C[row][col] and C[row][col + 1], as alpha * acc +
// beta * C, skipping what lies outside M x N and never reading C when beta == 0 (C may hold NaN).
// One 8-byte store when N is even and C 8-byte aligned (every row then starts 8-byte aligned).
__device__ inline void store_pair(float* C, int M, int N, int row, int col, float alpha, float beta, float v0,
                                  float v1) {
  if (row >= M || col >= N) return;
  float* out = C + static_cast<std::size_t>(row) * N + col;
  v0 *= alpha;
  v1 *= alpha;
  if (N % 2 == 0 && reinterpret_cast<std::uintptr_t>(C) % 8 == 0) {  // col is even, so col + 1 < N too
    if (beta != 0.0f) {
      const float2 old = *reinterpret_cast<const float2*>(out);
      v0 += beta * old.x;
      v1 += beta * old.y;
    }
    *reinterpret_cast<float2*>(out) = make_float2(v0, v1);
    return;
  }
  out[0] = beta != 0.0f ? v0 + beta * out[0] : v0;
  if (col + 1 < N) out[1] = beta != 0.0f ? v1 + beta * out[1] : v1;
}

}  // namespace wb::mma
