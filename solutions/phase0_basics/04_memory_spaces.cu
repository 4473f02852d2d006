// SPDX-License-Identifier: MIT
// 0.04 memory_spaces: constant memory for values every thread reads, shared memory for values neighbours share.
//
// You learn: how __constant__ memory broadcasts one value to a whole warp, how a block stages its
// inputs plus a halo in __shared__ memory so that each input is read from DRAM once instead of
// 2R + 1 times, and why __syncthreads() must sit between writing the tile and reading it.
// Task: out[i] = sum over k in [-3, 3] of w[k + 3] * in[i + k], with in[j] = 0 outside [0, n).
// The weights live in constant memory (filled by set_stencil_weights), the block's inputs and their
// halos in one shared tile.
// You decide: which slot of the tile holds which input, and so where each thread's own input and the
//             halos go; which threads load the halos; which threads may skip the sum, and when.
// Source: CUDA C++ Programming Guide, "Memory Hierarchy": constant memory broadcast, shared-memory tiles.
// Run:   ./workbook run 0.04 [-- --size 64M]
// Check: ./workbook check 0.04
// Aim:   stencil_1d near 70% of the cudaMemcpy bandwidth (H100): 7 reads per output cost no more than 1.
// Previous: 0.03 matrix_2d. Next: 0.05 coalescing.

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/workbook.h"
#include "phase0_basics/basics.cuh"
#include "phase0_basics/harness/reference.h"

namespace {

constexpr int kBlockSize = 256;

// All 32 threads of a warp read the same weight at the same moment (w[k] for the same k). The
// constant cache serves such a uniform read as one broadcast. (64 KB in all; only the host writes it.)
__constant__ float c_weights[kStencilWidth];

// ---- kernels ----------------------------------------------------------------------------------------

// Launched with exactly kBlockSize threads per block: the tile's size is fixed at compile time.
__global__ void stencil_1d_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  // The block's kBlockSize outputs need the inputs from R before its first element to R after its
  // last: one tile holds them all, in order.
  __shared__ float tile[kBlockSize + 2 * kStencilRadius];
  const std::size_t block_start = static_cast<std::size_t>(blockIdx.x) * kBlockSize;
  const std::size_t i = block_start + threadIdx.x;
  // Every thread loads, even with i >= n (it stores a 0, the value of in[] outside [0, n)), and no
  // thread returns early: all of them must reach the __syncthreads() below.
  tile[threadIdx.x + kStencilRadius] = i < n ? in[i] : 0.0f;
  // The first R threads also load the halos, one slot on each side each: the R inputs before the
  // block (negative indices, so 0, in block 0) and the R after it (0 past the end).
  if (threadIdx.x < kStencilRadius) {
    const long long left = static_cast<long long>(block_start) + threadIdx.x - kStencilRadius;
    tile[threadIdx.x] = (left >= 0 && left < static_cast<long long>(n)) ? in[left] : 0.0f;
    const std::size_t right = block_start + kBlockSize + threadIdx.x;
    tile[threadIdx.x + kBlockSize + kStencilRadius] = right < n ? in[right] : 0.0f;
  }
  // Thread t reads tile[t .. t + 2R], written by other threads, some in other warps (and the halos
  // by threads 0..R-1). Without this barrier a warp may read a slot before its owner has written it
  // and sum stale shared memory from an earlier block: a race that is wrong only now and then.
  __syncthreads();
  // The bounds guard comes after the barrier: threads past n helped to load, they just store nothing.
  // Sum in a fixed order, k = -R..R: nvcc fuses each `sum + w * x` into one fma, as the CPU reference does.
  if (i < n) {
    float sum = 0.0f;
#pragma unroll
    for (int k = -kStencilRadius; k <= kStencilRadius; ++k) {
      sum += c_weights[k + kStencilRadius] * tile[threadIdx.x + kStencilRadius + k];
    }
    out[i] = sum;
  }
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void set_stencil_weights(const float* host_weights, cudaStream_t stream) {
  // Constant memory is read-only for kernels: the host writes it, by symbol, in stream order, so a
  // stencil launched later on `stream` sees these weights and one launched earlier the old ones.
  CUDA_CHECK(cudaMemcpyToSymbolAsync(c_weights, host_weights, kStencilWidth * sizeof(float), 0, cudaMemcpyHostToDevice,
                                     stream));
}

void stencil_1d(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch
  // One thread per output and no grid-stride loop: each block owns one tile of kBlockSize outputs.
  const unsigned blocks = static_cast<unsigned>(wb::ceil_div(n, static_cast<std::size_t>(kBlockSize)));
  stencil_1d_kernel<<<blocks, kBlockSize, 0, stream>>>(in, out, n);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 1 float read + 1 written = 8 bytes per element (the halos add 2R / 256 = 2% more
// reads, served by L2); n = 64M moves 537 MB, 0.18 ms at ~3 TB/s. The 7 FMAs are 14 FLOP per 8 bytes,
// far below the ~20 FLOP/byte at which an H100 stops being memory-bound. One 4-byte load per thread
// keeps at most 132 SMs x 2048 threads x 4 B = 1 MB in flight, less than the ~2 MB that 3 TB/s times
// DRAM latency needs: expect ~70% of memcpy (about 0.26 ms); 4 elements per thread reach ~99%.
int memory_spaces_lesson(wb::Lesson& lesson) {
  const std::size_t n = lesson.size_or(64 * wb::MiB);
  lesson.require_memory(8.0 * static_cast<double>(n), 16.0 * static_cast<double>(n));
  const std::vector<float> weights = wb::random_floats(kStencilWidth, lesson.seed());
  const std::vector<float> x = wb::random_floats(n, lesson.seed() + 1);
  std::vector<float> expected(n);
  const double largest = p0::stencil_reference(weights, x, expected);
  // Any order of summing 2R + 1 products errs by at most (2R + 1) * u * sum |w * x| (Jeannerod and
  // Rump, 2013); the GPU and the CPU may each be that far off, in opposite directions.
  const wb::Tolerance tol{2.0 * kStencilWidth * wb::kFloatEpsilon * largest, 0.0};

  wb::DeviceBuffer<float> din(x);
  wb::GuardedDeviceBuffer<float> dout(n);
  set_stencil_weights(weights.data(), nullptr);
  const double bytes = 8.0 * static_cast<double>(n);
  const bool pass = lesson
                        .run_memory_bound("stencil_1d", "n=" + wb::format_count(n), bytes, dout, expected, tol,
                                          [&] { stencil_1d(din.data(), dout.data(), n, nullptr); })
                        .pass;
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(memory_spaces_lesson, "a 7-point stencil with constant weights and a shared-memory tile");
