// SPDX-License-Identifier: MIT
// 1.07 warptiling: block -> warp -> thread tiles, the fastest FP32 kernel of the ladder.
//
// You learn: how a third level of tiling (the warp tile) keeps each warp's shared-memory reads
// compact and broadcast-friendly; how double buffering overlaps the next tile's global loads with
// this tile's FMAs, and which barriers that needs; how the order in which blocks take tiles decides
// what L2 holds; how one template gives both a fast whole-tile kernel and a guarded one for the tails.
// Task: write matmul_warptiling_kernel, C = alpha A B + beta C for any M, N, K (beta == 0 never reads
// C), and the launcher's kSmemBytes and kGroupM; the tile shape is given (see the launcher). The
// kernel takes WMITER x WNITER sub-tiles per warp tile, but the graded shape has one (WMITER =
// WNITER = 1): the phase README says how to test your sub-tile indexing too.
// You decide: how the A and B tiles sit in shared memory (1.06's layout or your own), so that a
//             lane's fragment reads are float4 and a warp's stores spread over the banks; which part
//             of the warp tile each lane owns; how a tile's loads, stores and barriers interleave
//             with the FMAs; the order in which blocks take tiles, and the value of its parameter
//             (kGroupM).
// Source: Simon Boehm, "How to Optimize a CUDA Matmul Kernel for cuBLAS-like Performance: a Worklog", kernel 10
// (warptiling); CUTLASS, "Efficient GEMM in CUDA": the warp, not the block, is the unit that shares fragments.
// Run:   ./workbook run 1.07 [-- --size 4096]
// Check: ./workbook check 1.07
// Aim:   >= 80% of cuBLAS SGEMM at 4096 on an H100 (the reference solution: 89% at 4096, 90% at 8192).
// Previous: 1.06 vectorized. Next: 1.08 cublas.

#include <cstddef>
#include <cstdint>

#include "common/workbook.h"
#include "phase1_matmul/harness/lesson_support.h"
#include "phase1_matmul/matmul.cuh"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

// One block computes a BM x BN tile of C, marching over K in steps of BK. Inside it, each of the
// NTHREADS / 32 warps owns a WM x WN warp tile, computed as WMITER x WNITER sub-tiles of
// (WM / WMITER) x (WN / WNITER); in every sub-tile each lane owns a TM x TN register tile. CHECKED
// selects the guarded variant (any M, N, K, any alignment) over the fast one (whole tiles, float4).
// GROUP_M > 0 selects your order of the block tiles, with GROUP_M as its parameter (see below).
template <int BM, int BN, int BK, int WM, int WN, int WNITER, int TM, int TN, int NTHREADS, int MIN_BLOCKS, int GROUP_M,
          bool CHECKED>
__global__ void __launch_bounds__(NTHREADS, MIN_BLOCKS)
    matmul_warptiling_kernel(int M, int N, int K, float alpha, const float* __restrict__ A, const float* __restrict__ B,
                             float beta, float* __restrict__ C) {
  constexpr int kWarps = NTHREADS / 32;
  static_assert(NTHREADS % 32 == 0, "the block is made of whole warps");
  static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles must tile the block tile exactly");
  static_assert((BM / WM) * (BN / WN) == kWarps, "one warp per warp tile: (BM / WM) * (BN / WN) == NTHREADS / 32");
  static_assert((WM * WN) % (32 * TM * TN * WNITER) == 0,
                "the 32 lanes' TM x TN tiles, WNITER times along N, must cover the warp tile a whole number "
                "of times along M (that number is WMITER)");
  constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);
  static_assert(WMITER >= 1 && WM % WMITER == 0 && WN % WNITER == 0, "sub-tiles must split the warp tile evenly");
  constexpr int WSUBM = WM / WMITER;  // sub-tile height
  constexpr int WSUBN = WN / WNITER;  // sub-tile width
  static_assert(WSUBM % TM == 0 && WSUBN % TN == 0 && (WSUBM / TM) * (WSUBN / TN) == 32,
                "the 32 lanes must cover one sub-tile exactly with their TM x TN register tiles");
  static_assert(TM % 4 == 0 && TN % 4 == 0, "fragments are read from shared memory as float4");
  static_assert(BK % 4 == 0 && BN % 4 == 0, "tiles are loaded from global memory as float4");
  constexpr int kALoads = BM * BK / 4 / NTHREADS;  // float4s of the A tile per thread
  constexpr int kBLoads = BK * BN / 4 / NTHREADS;  // float4s of the B tile per thread
  static_assert(kALoads * 4 * NTHREADS == BM * BK && kBLoads * 4 * NTHREADS == BK * BN,
                "every thread loads the same number of float4s of each tile");
  // Shared memory: two buffers of each tile, so that the next tile can be written while this one is
  // read. At each k a lane reads its TM values of A and its TN values of B as float4s: each 4 of them
  // must be contiguous and 16-byte aligned in your layout. The launcher passes your layout's size,
  // kSmemBytes, as the launch's dynamic shared memory.
  constexpr int kAStride = BM + 4;
  extern __shared__ float4 smem4[];  // declared as float4 for 16-byte alignment
  float* smem = reinterpret_cast<float*>(smem4);
  float* As = smem;                      // [2][BK][kAStride]
  float* Bs = smem + 2 * BK * kAStride;  // [2][BK][BN]

  // Blocks start roughly in the order of their linear id (x fastest). Row by row, the blocks in flight
  // would cover a few rows of tiles and every column of B; in groups of GROUP_M tile rows, walked
  // column by column, they cover a squarer patch of C, so the A and B panels they read are fewer and
  // stay in L2 while they are shared.
  int tile_m = blockIdx.y, tile_n = blockIdx.x;
  if constexpr (GROUP_M > 0) {
    const int id = blockIdx.y * gridDim.x + blockIdx.x, per_group = GROUP_M * gridDim.x;
    // The last group may hold fewer than GROUP_M tile rows.
    const int first_m = (id / per_group) * GROUP_M, rows = min(int(gridDim.y) - first_m, GROUP_M);
    tile_m = first_m + (id % per_group) % rows;
    tile_n = (id % per_group) / rows;
  }
  const int m0 = tile_m * BM, n0 = tile_n * BN;  // this block's tile of C
  const int tid = threadIdx.x;
  const int warp = tid / 32, lane = tid % 32;
  const int warp_row = (warp / (BN / WN)) * WM, warp_col = (warp % (BN / WN)) * WN;  // in the block tile
  // The warp tile's corner in the block tile comes from BN / WN warp tiles per row of warp tiles.
  // A lane's place in a sub-tile: WSUBN / TN lanes across, WSUBM / TM down. Lanes with the same
  // lane_row read the same A fragment (a shared-memory broadcast), and likewise for B.
  const int lane_row = lane / (WSUBN / TN), lane_col = lane % (WSUBN / TN);

  // The staging registers: tile t + 1 travels global -> registers while tile t is multiplied.
  float4 a_stage[kALoads], b_stage[kBLoads];
  auto load_tile = [&](int k0) {
#pragma unroll
    for (int l = 0; l < kALoads; ++l) {
      // Consecutive threads take consecutive float4s along a row of A: coalesced 16-byte loads.
      const int f = tid + l * NTHREADS;
      const int r = f / (BK / 4), c = (f % (BK / 4)) * 4;
      const int gm = m0 + r, gk = k0 + c;
      if constexpr (!CHECKED) {
        // 64-bit offsets: M * K may pass 2^31.
        a_stage[l] = *reinterpret_cast<const float4*>(A + static_cast<std::size_t>(gm) * K + gk);
      } else {
        // Outside A the tile holds 0: a zero term leaves every dot product unchanged. Element by
        // element, because a row of A need not start on 16 bytes when K % 4 != 0.
        const float* p = A + static_cast<std::size_t>(gm) * K + gk;
        const bool row_ok = gm < M;
        a_stage[l].x = row_ok && gk + 0 < K ? p[0] : 0.0f;
        a_stage[l].y = row_ok && gk + 1 < K ? p[1] : 0.0f;
        a_stage[l].z = row_ok && gk + 2 < K ? p[2] : 0.0f;
        a_stage[l].w = row_ok && gk + 3 < K ? p[3] : 0.0f;
      }
    }
#pragma unroll
    for (int l = 0; l < kBLoads; ++l) {
      const int f = tid + l * NTHREADS;
      const int r = f / (BN / 4), c = (f % (BN / 4)) * 4;
      const int gk = k0 + r, gn = n0 + c;
      if constexpr (!CHECKED) {
        b_stage[l] = *reinterpret_cast<const float4*>(B + static_cast<std::size_t>(gk) * N + gn);
      } else {
        const float* p = B + static_cast<std::size_t>(gk) * N + gn;
        const bool row_ok = gk < K;
        b_stage[l].x = row_ok && gn + 0 < N ? p[0] : 0.0f;
        b_stage[l].y = row_ok && gn + 1 < N ? p[1] : 0.0f;
        b_stage[l].z = row_ok && gn + 2 < N ? p[2] : 0.0f;
        b_stage[l].w = row_ok && gn + 3 < N ? p[3] : 0.0f;
      }
    }
  };
  auto store_tile = [&](int buf) {
    float* as = As + buf * BK * kAStride;
    float* bs = Bs + buf * BK * BN;
#pragma unroll
    for (int l = 0; l < kALoads; ++l) {
      const int f = tid + l * NTHREADS;
      const int r = f / (BK / 4), c = (f % (BK / 4)) * 4;
      // The transpose: A[r][c..c+3] becomes element r of rows c..c+3 of As.
      as[(c + 0) * kAStride + r] = a_stage[l].x;
      as[(c + 1) * kAStride + r] = a_stage[l].y;
      as[(c + 2) * kAStride + r] = a_stage[l].z;
      as[(c + 3) * kAStride + r] = a_stage[l].w;
    }
#pragma unroll
    for (int l = 0; l < kBLoads; ++l) {
      const int f = tid + l * NTHREADS;
      const int r = f / (BN / 4), c = (f % (BN / 4)) * 4;
      *reinterpret_cast<float4*>(bs + r * BN + c) = b_stage[l];
    }
  };

  // Every index into these arrays is a compile-time constant once the loops unroll, so they live in
  // registers (a runtime index would push them to local memory).
  float acc[WMITER * TM][WNITER * TN] = {};
  float a_frag[WMITER * TM], b_frag[WNITER * TN];

  const int num_tiles = wb::ceil_div(K, BK);  // 0 when K == 0: acc stays 0 and C becomes beta * C
  if (num_tiles > 0) {
    load_tile(0);
    store_tile(0);
  }
  // Tile 0 must be in shared memory before any warp reads it.
  __syncthreads();
  for (int t = 0; t < num_tiles; ++t) {
    const int buf = t % 2;
    // Issue the global loads of tile t + 1 first; their latency hides behind the FMAs below.
    if (t + 1 < num_tiles) load_tile((t + 1) * BK);
    const float* as = As + buf * BK * kAStride;
    const float* bs = Bs + buf * BK * BN;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      // Fragments: this lane's TM values of A and TN values of B in each sub-tile, at this k.
#pragma unroll
      for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
        for (int i = 0; i < TM; i += 4) {
          const float4 v =
              *reinterpret_cast<const float4*>(as + k * kAStride + warp_row + wm * WSUBM + lane_row * TM + i);
          a_frag[wm * TM + i + 0] = v.x;
          a_frag[wm * TM + i + 1] = v.y;
          a_frag[wm * TM + i + 2] = v.z;
          a_frag[wm * TM + i + 3] = v.w;
        }
#pragma unroll
      for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          const float4 v = *reinterpret_cast<const float4*>(bs + k * BN + warp_col + wn * WSUBN + lane_col * TN + j);
          b_frag[wn * TN + j + 0] = v.x;
          b_frag[wn * TN + j + 1] = v.y;
          b_frag[wn * TN + j + 2] = v.z;
          b_frag[wn * TN + j + 3] = v.w;
        }
        // The outer product: (WMITER * TM) x (WNITER * TN) FMAs from WMITER * TM + WNITER * TN loads.
#pragma unroll
      for (int i = 0; i < WMITER * TM; ++i)
#pragma unroll
        for (int j = 0; j < WNITER * TN; ++j) acc[i][j] = fmaf(a_frag[i], b_frag[j], acc[i][j]);
    }
    // Tile t + 1 goes into the other buffer, which nobody reads during tile t: the barrier at the
    // end of tile t - 1 saw every warp finish with it.
    if (t + 1 < num_tiles) store_tile(buf ^ 1);
    // One barrier per tile: tile t + 1 is complete before anyone reads it, and every warp is done
    // with buffer `buf` before tile t + 2 overwrites it.
    __syncthreads();
  }

  // The epilogue. beta == 0 must not read C (it may hold NaN, and 0 * NaN is NaN).
#pragma unroll
  for (int wm = 0; wm < WMITER; ++wm)
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int gm = m0 + warp_row + wm * WSUBM + lane_row * TM + i;
#pragma unroll
      for (int wn = 0; wn < WNITER; ++wn)
#pragma unroll
        for (int j = 0; j < TN; j += 4) {
          const int gn = n0 + warp_col + wn * WSUBN + lane_col * TN + j;
          float* c = C + static_cast<std::size_t>(gm) * N + gn;
          if constexpr (!CHECKED) {
            float4 out =
                make_float4(alpha * acc[wm * TM + i][wn * TN + j + 0], alpha * acc[wm * TM + i][wn * TN + j + 1],
                            alpha * acc[wm * TM + i][wn * TN + j + 2], alpha * acc[wm * TM + i][wn * TN + j + 3]);
            if (beta != 0.0f) {
              const float4 old = *reinterpret_cast<const float4*>(c);
              out.x += beta * old.x;
              out.y += beta * old.y;
              out.z += beta * old.z;
              out.w += beta * old.w;
            }
            *reinterpret_cast<float4*>(c) = out;
          } else {
            // Only the elements inside C: the last tiles overhang it.
            if (gm < M) {
#pragma unroll
              for (int e = 0; e < 4; ++e)
                if (gn + e < N) c[e] = alpha * acc[wm * TM + i][wn * TN + j + e] + (beta == 0.0f ? 0.0f : beta * c[e]);
            }
          }
        }
    }
}

// ---- launchers --------------------------------------------------------------------------------------

// Given: the tile shape, tuned on an H100 by a sweep of 21 configurations against cuBLAS at 4096 (see
// the phase README), and the only one the tests run: 128 x 128 x 8 block tiles, 8 warps of 64 x 32
// (one sub-tile each) where a lane owns 8 x 8 outputs. 64 accumulators per thread fit in 128
// registers, so two 256-thread blocks (16 warps) share an SM. Yours: kGroupM and kSmemBytes.
constexpr int BM = 128, BN = 128, BK = 8, WM = 64, WN = 32, WNITER = 1, TM = 8, TN = 8;
constexpr int kThreads = 256, kMinBlocksPerSm = 2;
// Groups of 8 tile rows, as in the tuned configuration: at 8192 the 264 blocks in flight (2 per SM)
// then read 8 panels of A and 33 of B, where the grid's own order has them read 5 of A and all 64 of B.
constexpr int kGroupM = 8;

template <bool CHECKED>
void launch_warptiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream) {
  // Block tiles along x over N (up to 2^31 - 1 of them), along y over M (at most 65535, so M <= 65535 * 128).
  const dim3 grid(static_cast<unsigned>(wb::ceil_div(N, BN)), static_cast<unsigned>(wb::ceil_div(M, BM)));
  // Two blocks per SM cap a thread at 128 registers; the guarded variant needs a few more (it only
  // runs on the tails and small shapes), so it asks for one block per SM rather than spill.
  // A launch may ask for up to 48 KiB of dynamic shared memory without first calling
  // cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize), which this launcher does not.
  // The two buffers of As and Bs: 2 * 8 * (132 + 128) floats = 16,640 bytes (16.25 KiB).
  constexpr std::size_t kSmemBytes = sizeof(float) * 2 * BK * (BM + 4 + BN);
  static_assert(kSmemBytes <= 48 * 1024, "above 48 KiB of shared memory, opt in with cudaFuncSetAttribute first");
  matmul_warptiling_kernel<BM, BN, BK, WM, WN, WNITER, TM, TN, kThreads, CHECKED ? 1 : kMinBlocksPerSm, kGroupM,
                           CHECKED><<<grid, kThreads, kSmemBytes, stream>>>(M, N, K, alpha, A, B, beta, C);
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

void matmul_warptiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                       cudaStream_t stream) {
  if (M == 0 || N == 0) return;  // nothing to write, and a grid of 0 blocks is an invalid launch
  // The fast kernel needs whole tiles (no bounds checks) and 16-byte rows (float4): M, N, K multiples
  // of the tile and 16-byte aligned pointers. Everything else takes the guarded one, K == 0 included:
  // 0 is a multiple of BK, but A and B are then empty, and the guarded kernel loads no tile and writes
  // C = beta * C (the phase header's rule for K == 0).
  const bool whole_tiles = K > 0 && M % BM == 0 && N % BN == 0 && K % BK == 0;
  if (whole_tiles && aligned16(A) && aligned16(B) && aligned16(C)) {
    launch_warptiling<false>(M, N, K, alpha, A, B, beta, C, stream);
  } else {
    launch_warptiling<true>(M, N, K, alpha, A, B, beta, C, stream);
  }
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 2 M N K = 137 GFLOP at 4096^3, 2.7 ms for cuBLAS (~51 TFLOP/s) on an H100 whose FP32
// peak is ~67 TFLOP/s. Per k a lane loads 8 + 8 floats from shared memory (4 float4 loads) for 64
// FMAs; per tile the block loads (128 + 128) x 8 floats from global (8 KiB) for 2 x 128 x 128 x 8 FLOP:
// 32 FLOP per byte, far above the H100's ~20 FLOP per byte of DRAM bandwidth (and L2 serves most of
// it). So issue slots bound this rung: FMAs, plus the loads, barriers and latency around them.
int warptiling_lesson(wb::Lesson& lesson) {
  return p1::run_matmul_lesson(lesson, "matmul_warptiling", matmul_warptiling);
}

}  // namespace

WB_LESSON(warptiling_lesson, "warptiling SGEMM: block, warp and thread tiles, double-buffered");
