// SPDX-License-Identifier: MIT
// Phase 0 launchers: the API the exercises implement and the graded tests call.
// Every launcher takes device pointers, sizes and a stream, enqueues its kernel(s) on that
// stream and checks the launch (CUDA_CHECK_KERNEL). Host code only here: tests include it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

// ---- 0.01 indexing ---------------------------------------------------------------------------------
// For every i < n: global_index[i] = i, block_index[i] = the block that handled i, thread_index[i] =
// its thread within that block, with `block_size` threads per block (1..1024). n = 0 launches nothing.
void record_thread_indices(int* global_index, int* block_index, int* thread_index, int n, int block_size,
                           cudaStream_t stream);

// ---- 0.02 vector_add -------------------------------------------------------------------------------
// c[i] = a[i] + b[i] for i < n. The grid is capped (a few blocks per SM), so each thread loops with a
// grid stride: n may be far larger than the grid.
void vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream);
// The same with 16-byte float4 loads and stores, and a scalar loop for the last n % 4 elements.
// a, b and c must be 16-byte aligned (cudaMalloc gives 256).
void vector_add_float4(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream);

// ---- 0.03 matrix_2d --------------------------------------------------------------------------------
// out[r][c] = in[r][c] * scale + bias[c] on a row-major rows x cols matrix, with a 2D grid of 2D blocks
// (x along columns). Any shape, including rows beyond the 65535-block limit of gridDim.y.
void matrix_scale_bias(const float* in, const float* bias, float* out, int rows, int cols, float scale,
                       cudaStream_t stream);

// ---- 0.04 memory_spaces ----------------------------------------------------------------------------
constexpr int kStencilRadius = 3;
constexpr int kStencilWidth = 2 * kStencilRadius + 1;
// Copies the kStencilWidth weights (host array) into constant memory.
void set_stencil_weights(const float* host_weights, cudaStream_t stream);
// out[i] = sum over k in [-R, R] of weight[k + R] * in[i + k], where in[j] = 0 outside [0, n).
// Each block stages its tile plus a halo of R elements on each side in shared memory.
void stencil_1d(const float* in, float* out, std::size_t n, cudaStream_t stream);

// ---- 0.05 coalescing -------------------------------------------------------------------------------
// Both compute out[r][c] = in[r][c] * s on a row-major rows x cols matrix; only the mapping differs.
// One thread per row, walking along it: neighbouring threads are `cols` floats apart (strided).
void scale_row_per_thread(const float* in, float* out, int rows, int cols, float s, cudaStream_t stream);
// One thread per column, walking down it: neighbouring threads touch neighbouring floats (coalesced).
void scale_column_per_thread(const float* in, float* out, int rows, int cols, float s, cudaStream_t stream);

// ---- 0.06 transpose --------------------------------------------------------------------------------
// out (cols x rows) = transpose of in (rows x cols), both row-major.
// Naive: coalesced reads, strided writes.
void transpose_naive(const float* in, float* out, int rows, int cols, cudaStream_t stream);
// Through a 32x32 shared-memory tile, without padding: coalesced both ways, but 32-way bank conflicts.
void transpose_tiled_no_padding(const float* in, float* out, int rows, int cols, cudaStream_t stream);
// The tile padded to 32x33, 32x8 threads per block, each thread moving 4 elements.
void transpose_tiled(const float* in, float* out, int rows, int cols, cudaStream_t stream);

// ---- 0.07 warp_primitives --------------------------------------------------------------------------
// The input is cut into segments of 32 consecutive elements, one per warp; the last may be partial.
// Elements past n count as 0. Outputs are written only for i < n (and for the sums, one per segment).
// out[i] = the element of lane `src_lane` (0..31) of i's segment.
void warp_broadcast(const float* in, float* out, std::size_t n, int src_lane, cudaStream_t stream);
// sums[s] = sum of segment s; ceil(n / 32) sums.
void warp_sums(const float* in, float* sums, std::size_t n, cudaStream_t stream);
// out[i] = sum of the elements of i's segment up to and including i (inclusive scan).
void warp_inclusive_scan(const float* in, float* out, std::size_t n, cudaStream_t stream);

// ---- 0.08 block_reduce -----------------------------------------------------------------------------
// *result = sum of in[0..n). Each block sums its elements in shared memory and one thread per block
// adds the block's sum with atomicAdd. The launcher zeroes *result first; n = 0 gives 0.
void reduce_sum_atomic(const float* in, float* result, std::size_t n, cudaStream_t stream);

// ---- 0.09 streams ----------------------------------------------------------------------------------
// One step of work: x -> x * (1 - 2^-10) + 2^-10. Both constants are exact in float and an fma rounds
// once, so the CPU's std::fma and the GPU's fmaf agree bit for bit (harness/reference.h).
constexpr float kProcessDecay = 0.9990234375f;
constexpr float kProcessStep = 0.0009765625f;
// out[i] = x after `work` steps of x = fma(x, kProcessDecay, kProcessStep) from x = in[i]: a kernel
// whose cost grows with `work`.
void process(const float* in, float* out, std::size_t n, int work, cudaStream_t stream);
// host_in -> dev_in, process, dev_out -> host_out on one stream, one after the other.
// host_in and host_out must be pinned (cudaMallocHost) for the copies to be asynchronous.
void pipeline_serial(const float* host_in, float* host_out, float* dev_in, float* dev_out, std::size_t n, int work,
                     cudaStream_t stream);
// The same work cut into num_chunks chunks issued round-robin on num_streams streams, so one chunk's
// copy overlaps another's kernel. Waits for nothing: synchronize the streams before reading host_out.
void pipeline_streams(const float* host_in, float* host_out, float* dev_in, float* dev_out, std::size_t n, int work,
                      const cudaStream_t* streams, int num_streams, int num_chunks);

// ---- 0.10 error_handling ---------------------------------------------------------------------------
// data[i] *= s for i < n, with `threads_per_block` threads per block. An invalid configuration (e.g.
// 2048 threads) must be reported by throwing wb::CudaError, and no thread may write past n.
void scale_in_place(float* data, std::size_t n, float s, int threads_per_block, cudaStream_t stream);

// ---- 0.11 histogram (capstone) ---------------------------------------------------------------------
// Byte v (0..255) falls into bin v * num_bins / 256, rounded down: equal-width bins over [0, 256), the
// same bins as cub::DeviceHistogram::HistogramEven with levels 0 and 256. With 256 bins, bin v.
constexpr int kHistogramMaxBins = 256;
// Counts are 32-bit and one bin may receive every byte, so n must stay below 2^32 (n itself is a
// std::size_t: inputs past 2^31 bytes are fine).
constexpr std::size_t kHistogramMaxBytes = 0xFFFFFFFFull;
// bins[b] = how many of data[0..n) fall into bin b, for b < num_bins (1..256). data may start at any
// byte address. bins may hold anything on entry (the tests fill it with poison): the launcher itself
// makes it hold exactly the histogram, on every call, and n = 0 gives num_bins zeros. Throws
// std::invalid_argument for num_bins outside 1..256 or n > kHistogramMaxBytes.
void histogram_bins(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins, cudaStream_t stream);
// The same with 256 bins: bins[v] = how many of data[0..n) equal v.
void histogram_256(const unsigned char* data, std::size_t n, unsigned int* bins, cudaStream_t stream);
