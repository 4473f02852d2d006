// SPDX-License-Identifier: MIT
// 1.09 tensor_cores: the same block tiling, with the inner product done by tensor cores (WMMA, TF32).
//
// You learn: a warp-wide matrix instruction. With nvcuda::wmma a warp loads a 16x8 slice of A and
// an 8x16 slice of B from shared memory into opaque "fragments" and one mma_sync adds their product
// to a 16x16 accumulator fragment: 2048 multiply-adds in one instruction instead of 64 FMAs per lane.
// TF32 keeps FP32's 8-bit exponent but only 10 mantissa bits, so the inputs are rounded first
// (wmma::__float_to_tf32) and the results differ from FP32 by ~1e-3 relative, not ~1e-6.
// Task: in matmul_tensor_core_tf32_kernel place each warp in the block tile, run the fragment
// loads and mma_sync over each shared-memory tile, and write the accumulators out through a
// per-warp shared-memory scratch tile with alpha, beta and bounds checks.
// You decide: which warp owns which warp tile; the order of fragment loads and mma_sync over a tile;
//             how 32 lanes share a scratch tile's 256 elements, and which __syncwarp guards it.
// Source: CUDA C++ Programming Guide, "Warp Matrix Functions" (nvcuda::wmma, TF32).
// Run:   ./workbook run 1.09 [-- --size 4096]
// Check: ./workbook check 1.09
// Aim:   >= 50% of cublasGemmEx TF32. The rest of the way needs Hopper's wgmma (asynchronous
//        warpgroup MMA fed straight from shared memory) and TMA copies, which WMMA cannot reach.
// Previous: 1.08 cublas. Next: 1.10 mma_sync (BF16 tensor cores).

#include <mma.h>

#include <cstdint>

#include "common/workbook.h"
#include "phase1_matmul/harness/lesson_support.h"
#include "phase1_matmul/matmul.cuh"

namespace {

namespace wmma = nvcuda::wmma;

// The one TF32 WMMA shape: (16 x 8) x (8 x 16) accumulated into 16 x 16.
constexpr int kFragM = 16, kFragN = 16, kFragK = 8;
constexpr int kWarpSize = 32;
// Shared-memory row padding, in floats. A fragment load reads 8 rows x 4 columns of A (or 4 rows x
// 8 columns of B) in one step; a row stride of 4 (mod 32) banks for A and 8 (mod 32) for B puts
// those 32 floats in 32 different banks. Multiples of 4 also keep every row 16-byte aligned for
// float4 stores and fragment pointers 32-byte aligned, as load_matrix_sync requires.
constexpr int kPadA = 4, kPadB = 8, kPadScratch = 4;

// ---- kernels ----------------------------------------------------------------------------------------

// Copies a ROWS x COLS tile of a row-major matrix into registers (zeros outside the matrix), then
// into shared memory rounded to TF32. V = 4 moves float4s (needs 16-byte aligned rows), V = 1 floats.
template <int ROWS, int COLS, int V, int THREADS>
struct TileCopy {
  static constexpr int kPerRow = COLS / V;                // threads along one row
  static constexpr int kRowsPerPass = THREADS / kPerRow;  // rows the block covers in one pass
  static constexpr int kPasses = ROWS / kRowsPerPass;
  static constexpr int kRegs = kPasses * V;
  static_assert(COLS % V == 0 && THREADS % kPerRow == 0 && ROWS % kRowsPerPass == 0,
                "a tile copy needs the block's threads to cover whole rows and the tile in whole passes");

  // Consecutive threads take consecutive columns: a warp reads whole row segments (coalesced).
  __device__ static void load(const float* __restrict__ src, int ld, int row0, int col0, int rows, int cols,
                              float (&regs)[kRegs]) {
    const int r = threadIdx.x / kPerRow, c = (threadIdx.x % kPerRow) * V;
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
      const int row = row0 + r + p * kRowsPerPass, col = col0 + c;
      // Out-of-range elements become 0: they add nothing to the dot products, so tails in M, N and
      // K need no special case in the math. With V = 4 the launcher guarantees cols % 4 == 0, so a
      // float4 that starts inside the matrix ends inside it.
      const bool inside = row < rows && col < cols;
      if constexpr (V == 4) {
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (inside) v = *reinterpret_cast<const float4*>(src + static_cast<std::size_t>(row) * ld + col);
        regs[4 * p + 0] = v.x;
        regs[4 * p + 1] = v.y;
        regs[4 * p + 2] = v.z;
        regs[4 * p + 3] = v.w;
      } else {
        regs[p] = inside ? src[static_cast<std::size_t>(row) * ld + col] : 0.0f;
      }
    }
  }

  // Rounds to TF32 once here, where each element is stored, instead of in every fragment that
  // later loads it (each A element feeds several warps): the fragments then hold TF32 values as
  // the tensor cores require.
  __device__ static void store(float* dst, int ld, const float (&regs)[kRegs]) {
    const int r = threadIdx.x / kPerRow, c = (threadIdx.x % kPerRow) * V;
#pragma unroll
    for (int p = 0; p < kPasses; ++p) {
      float* out = dst + (r + p * kRowsPerPass) * ld + c;
      if constexpr (V == 4) {
        *reinterpret_cast<float4*>(out) =
            make_float4(wmma::__float_to_tf32(regs[4 * p + 0]), wmma::__float_to_tf32(regs[4 * p + 1]),
                        wmma::__float_to_tf32(regs[4 * p + 2]), wmma::__float_to_tf32(regs[4 * p + 3]));
      } else {
        *out = wmma::__float_to_tf32(regs[p]);
      }
    }
  }
};

// Block tile BM x BN, K in steps of BK; each warp owns a WM x WN piece made of 16x16 fragments.
// Shared memory (dynamic): two A tiles [BM][BK + kPadA] and two B tiles [BK][BN + kPadB], so the
// next tile can be stored while the current one is read.
template <int BM, int BN, int BK, int WM, int WN, bool VEC4>
__global__ void __launch_bounds__((BM / WM) * (BN / WN) * kWarpSize)
    matmul_tensor_core_tf32_kernel(int M, int N, int K, float alpha, const float* __restrict__ A,
                                   const float* __restrict__ B, float beta, float* __restrict__ C) {
  constexpr int kWarpsN = BN / WN;
  constexpr int kThreads = (BM / WM) * kWarpsN * kWarpSize;
  constexpr int kFragsM = WM / kFragM, kFragsN = WN / kFragN;
  constexpr int LDA = BK + kPadA, LDB = BN + kPadB, LDS = kFragN + kPadScratch;
  static_assert(BM % WM == 0 && BN % WN == 0, "the warp tiles must tile the block tile");
  static_assert(WM % kFragM == 0 && WN % kFragN == 0 && BK % kFragK == 0,
                "warp tiles are whole 16x16 fragments and BK whole steps of 8");
  static_assert((kThreads / kWarpSize) * kFragM * LDS <= 2 * BM * LDA,
                "the epilogue's per-warp scratch tiles reuse the A buffers and must fit in them");
  using CopyA = TileCopy<BM, BK, VEC4 ? 4 : 1, kThreads>;
  using CopyB = TileCopy<BK, BN, VEC4 ? 4 : 1, kThreads>;

  extern __shared__ __align__(128) float smem[];
  float* As = smem;                 // [2][BM][LDA]
  float* Bs = smem + 2 * BM * LDA;  // [2][BK][LDB]

  // Which warp tile this warp computes: warps laid out kWarpsM x kWarpsN over the block tile.
  // TODO(1.09): which of the (BM / WM) x kWarpsN warp tiles this warp computes, and this thread's lane
  //             (about 2 lines).
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;

  wmma::fragment<wmma::accumulator, kFragM, kFragN, kFragK, float> acc[kFragsM][kFragsN];
#pragma unroll
  for (int i = 0; i < kFragsM; ++i)
#pragma unroll
    for (int j = 0; j < kFragsN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  // Double buffering through registers: global loads of tile t + 1 are issued before the math on
  // tile t and stored to the other buffer after it, so their latency hides behind the mma_syncs.
  float a_regs[CopyA::kRegs], b_regs[CopyB::kRegs];
  const int tiles = (K + BK - 1) / BK;  // K = 0: no tiles, the accumulators stay 0 and C = beta C
  if (tiles > 0) {
    CopyA::load(A, K, m0, 0, M, K, a_regs);
    CopyB::load(B, N, 0, n0, K, N, b_regs);
    CopyA::store(As, LDA, a_regs);
    CopyB::store(Bs, LDB, b_regs);
    __syncthreads();  // tile 0 is in shared memory before any warp loads a fragment from it
  }
  for (int t = 0; t < tiles; ++t) {
    const int cur = t & 1;
    const bool has_next = t + 1 < tiles;
    if (has_next) {
      CopyA::load(A, K, m0, (t + 1) * BK, M, K, a_regs);
      CopyB::load(B, N, (t + 1) * BK, n0, K, N, b_regs);
    }
    // TODO(1.09): add this warp's share of tile `cur` to acc with TF32 wmma fragments read from buffer
    //             `cur`, each fragment loaded once per kFragK-deep step (about 20 lines).
    if (has_next) {
      // The other buffer was last read in iteration t - 1, which every warp finished before the
      // barrier that ended it: writing it now races with nobody.
      CopyA::store(As + (cur ^ 1) * BM * LDA, LDA, a_regs);
      CopyB::store(Bs + (cur ^ 1) * BK * LDB, LDB, b_regs);
    }
    __syncthreads();  // tile t + 1 is complete, and tile t is no longer read, before the next round
  }

  // Epilogue. Which lane holds which element of an accumulator fragment is unspecified, so each
  // fragment goes through a 16x16 scratch tile in shared memory (this warp's own, in the A buffers,
  // free since the last barrier), from which the lanes write C with bounds checks, alpha and beta.
  // TODO(1.09): every accumulator fragment to C through this warp's own scratch tile (kFragM rows of
  //             LDS floats), its 256 elements shared by the 32 lanes: only those inside C, with alpha
  //             and beta, and beta == 0 never reads C. Lanes read what other lanes stored, and the
  //             next fragment overwrites the scratch (about 25 lines).
}

// ---- launchers --------------------------------------------------------------------------------------

// The float4 path: 128 x 128 block tiles, BK = 32, four warps of 64 x 64 (4 x 4 fragments, 128
// accumulator floats per lane), so each fragment load feeds 4 mma_syncs; 2 x (128 x 36 + 32 x 136)
// floats = 70 KB of shared memory, two blocks per SM. The scalar path issues 4x more loads per
// tile, each with its own address and bounds test, so it keeps eight warps of 64 x 32 and BK = 16
// (37 KB), which do not spill. Measured on an H100 at 4096: 89 TFLOP/s for the first, 75 for the
// second; 256 x 128 tiles gave 80.
template <int BM, int BN, int BK, int WM, int WN, bool VEC4>
void launch_tensor_core_tf32(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                             cudaStream_t stream) {
  constexpr int kThreads = (BM / WM) * (BN / WN) * kWarpSize;
  constexpr std::size_t kSmemBytes = sizeof(float) * (2 * BM * (BK + kPadA) + 2 * BK * (BN + kPadB));
  const auto kernel = matmul_tensor_core_tf32_kernel<BM, BN, BK, WM, WN, VEC4>;
  // Above 48 KB a block must opt in to more dynamic shared memory.
  if constexpr (kSmemBytes > 48 * 1024)
    CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmemBytes)));
  // x along N, y along M: neighbouring blocks share a row of A tiles, which L2 then serves.
  const dim3 grid(static_cast<unsigned>(wb::ceil_div(N, BN)), static_cast<unsigned>(wb::ceil_div(M, BM)));
  kernel<<<grid, kThreads, kSmemBytes, stream>>>(M, N, K, alpha, A, B, beta, C);
  CUDA_CHECK_KERNEL();
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

void matmul_tensor_core_tf32(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                             cudaStream_t stream) {
  if (M == 0 || N == 0) return;  // nothing to write, and a grid with 0 blocks is an invalid launch
  // float4 loads need every row start 16-byte aligned: K % 4 == 0 for A, N % 4 == 0 for B, and
  // aligned base pointers. Any other shape takes the scalar copy, which is slower but exact.
  if (K % 4 == 0 && N % 4 == 0 && aligned16(A) && aligned16(B))
    launch_tensor_core_tf32<128, 128, 32, 64, 64, true>(M, N, K, alpha, A, B, beta, C, stream);
  else
    launch_tensor_core_tf32<128, 128, 16, 64, 32, false>(M, N, K, alpha, A, B, beta, C, stream);
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 2 M N K = 137 GFLOP at 4096^3. H100 SXM dense TF32 peak ~495 TFLOP/s (0.28 ms) vs
// ~67 TFLOP/s FP32. One 128 x 128 x 32 tile step moves (128 + 128) x 32 x 4 = 32 KB into shared
// memory for 2 x 128 x 128 x 32 = 1 MFLOP: 32 FLOP/byte from L2, so at 300 TFLOP/s the SMs would
// pull ~9 TB/s out of L2, more than it delivers: 4-byte inputs make TF32 hungrier than FP16. Per
// k-step of 8 each warp also issues 32 shared loads (8 fragments) for 16 mma_syncs, all of them
// synchronous. wgmma reads its operands from shared memory itself and runs asynchronously, and
// TMA with thread-block clusters multicasts tiles to several SMs: that is how cuBLAS gets ~4x more.
int tensor_cores_lesson(wb::Lesson& lesson) {
  return p1::run_matmul_lesson(lesson, "matmul_tensor_core_tf32", matmul_tensor_core_tf32, p1::MatmulPrecision::TF32);
}

}  // namespace

WB_LESSON(tensor_cores_lesson, "tensor cores through WMMA: TF32 inputs, FP32 accumulation");
