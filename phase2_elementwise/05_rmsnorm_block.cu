// SPDX-License-Identifier: MIT
// 2.05 rmsnorm_block: RMSNorm with one block per row and a shared-memory reduction.
//
// You learn: how a block shares one row's reduction among its threads, which barriers a block-wide
// reduction needs and who must reach them, what eps is for, and where the bytes of a row come from.
// Task: out[r][c] = in[r][c] * rsqrt(mean over c of in[r][c]^2 + eps) * weight[c], one block per row.
// Write rmsnorm_block_kernel (a float4 path and a plain one) and the launch shape in rmsnorm_block.
// Any rows and cols >= 1 (rows * cols may pass 2^31); an all-zero row gives zeros, never NaN.
// Constraints: every thread's registers fit the given __launch_bounds__ (32 per thread, whatever
// blockDim.x you launch); the reduction is race-free (racecheck) and no block hangs, for every
// blockDim.x your launcher can pick.
// You decide: which items of the row each thread reads, and how many bytes it has in flight;
//             how the threads' sums meet in shared memory, and where the barriers go;
//             how many threads a row gets, and the shared memory that takes.
// Source: Zhang & Sennrich, "Root Mean Square Layer Normalization" (2019).
// Run:   ./workbook run 2.05 [-- --size 16384x4096]
// Check: ./workbook check 2.05
// Aim:   >= 80% of the cudaMemcpy bandwidth at 16384 x 4096 (H100).
// Previous: 2.04 fused_bias_gelu. Next: 2.06 rmsnorm_warp.

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/lesson_support.h"

namespace {

// A load takes several hundred nanoseconds from DRAM, up to ~1 us under full load, and ~3 TB/s times
// that is 2-3 MB that must be in flight at every moment to keep the bus busy: 15-23 KB per SM of an
// H100 (the napkin math below counts yours).
// TODO(2.05): any constant your kernel and launcher share (as few lines as you need).

// ---- kernels ----------------------------------------------------------------------------------------

// One block per row: blockIdx.x is the row. blockDim.x and the dynamic shared memory are your
// launcher's choice (below): make them what this kernel assumes. With kFloat4 the launcher has checked
// that cols % 4 == 0 and that in, weight and out are 16-byte aligned, so every row starts on a float4
// boundary. __launch_bounds__ (given, a constraint): ptxas compiles one kernel for every block size,
// sized for two blocks of 1024 threads per SM (Ampere's 2048 threads per SM on), so every thread gets
// at most 32 registers even when your launcher picks 64 or 256 threads; whatever a thread keeps in
// flight must fit in them (ptxas warns of a spill when building for sm_90 and newer; with
// WORKBOOK_WERROR=ON, as in the gpu preset and CI, the warning fails the build).
template <bool kFloat4>
__global__ void __launch_bounds__(1024, wb::kMaxThreadsPerSm / 1024)
    rmsnorm_block_kernel(const float* __restrict__ in, const float* __restrict__ weight, float* __restrict__ out,
                         int cols, float eps) {
  // TODO(2.05): this block's row of out: in's row scaled by the header's rsqrt(mean of squares + eps)
  //             and by weight, column by column. Right for every shape the header allows; float4
  //             loads and stores on the kFloat4 path, plain floats on the other; nothing read or
  //             written past the row; race-free and hang-free for every blockDim.x your launcher picks.
  //             Whether the row is read once or twice, and where each read is served from, is the
  //             napkin math's question (below) (about 45 lines).
}

// ---- launchers --------------------------------------------------------------------------------------

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

void rmsnorm_block(const float* in, const float* weight, float* out, int rows, int cols, float eps,
                   cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // a grid of 0 blocks is an invalid launch
  // The float4 path needs whole float4 rows and 16-byte aligned pointers (given: a misaligned float4
  // access is a fault, not a slow path).
  const bool use_float4 = cols % 4 == 0 && aligned16(in) && aligned16(weight) && aligned16(out);
  // The launch shape. As given, one warp per row and no shared memory: it runs, it does not pass.
  int threads = 32;
  std::size_t shared_bytes = 0;
  // TODO(2.05): threads for a row of cols floats (cols / 4 float4s on the float4 path): what your
  //             kernel assumes of blockDim.x, at most 1024, for every cols >= 1; shared_bytes, the
  //             dynamic shared memory your kernel uses, if it uses any (about 4 lines).
  if (use_float4) {
    rmsnorm_block_kernel<true><<<rows, threads, shared_bytes, stream>>>(in, weight, out, cols, eps);
  } else {
    rmsnorm_block_kernel<false><<<rows, threads, shared_bytes, stream>>>(in, weight, out, cols, eps);
  }
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 4 bytes read + 4 written per element, plus the weight once: 16384 x 4096 moves
// 537 MB, 0.18 ms at ~3 TB/s, if DRAM sees each float of in once. Can a row wait on chip until its
// scale is known, and if it is read again, from L1, L2 or DRAM? Count the rows your launch keeps in
// flight (blocks per SM x 132 SMs) times a row's bytes, at 4096 and at 32768 columns, against the
// H100's 256 KB of L1 per SM and 50 MB of L2. What limits you then is bytes in flight: a block waits
// at its barriers for its slowest thread's chain of loads. Count the bytes one thread has requested
// and not yet used, times the threads an SM holds, against the 15-23 KB per SM at the top of this file.
int rmsnorm_block_lesson(wb::Lesson& lesson) {
  return p2::rmsnorm_lesson(lesson, "rmsnorm_block", rmsnorm_block);
}

}  // namespace

WB_LESSON(rmsnorm_block_lesson, "RMSNorm with one block per row and a shared-memory reduction");
