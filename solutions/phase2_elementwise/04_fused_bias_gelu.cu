// SPDX-License-Identifier: MIT
// 2.04 fused_bias_gelu: one pass instead of two, and the memory traffic that fusion saves.
//
// You learn: why two cheap elementwise kernels in a row cost twice the time of one (the intermediate
// makes a round trip through DRAM), and how fusing them keeps it in a register instead.
// Task: bias_gelu_fused computes out[r][c] = gelu_tanh(in[r][c] + bias[c]) in one kernel. Write
// bias_gelu_fused_kernel, one template that the given launcher runs on float4 elements when every row
// and pointer allows 16-byte accesses, on floats otherwise. add_bias and the in-place GELU, the unfused
// pair, are given: the lesson times them against your kernel.
// You decide: which element (or float4) each thread takes and how it covers every row of any height;
//             which bias value goes with it; one template body for both element types.
// Run:   ./workbook run 2.04 [-- --size 16384x4096]
// Check: ./workbook check 2.04
// Aim:   bias_gelu_fused at >= 90% of the cudaMemcpy bandwidth measured in the same run, about 2x faster
//        than the unfused pair.
// Previous: 2.03 vectorized. Next: 2.05 rmsnorm_block.

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "common/workbook.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/activations.cuh"
#include "phase2_elementwise/harness/reference.h"

namespace {

constexpr int kBlockSize = 256;

// ---- kernels ----------------------------------------------------------------------------------------

// One float or four: the row kernels below are templates over the element type T, and these overloads
// do the arithmetic for either.
__device__ __forceinline__ float add_values(float a, float b) {
  return a + b;
}
__device__ __forceinline__ float4 add_values(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__device__ __forceinline__ float gelu_values(float x) {
  return gelu_tanh_device(x);
}
__device__ __forceinline__ float4 gelu_values(float4 v) {
  return make_float4(gelu_tanh_device(v.x), gelu_tanh_device(v.y), gelu_tanh_device(v.z), gelu_tanh_device(v.w));
}

// Given, the first half of the unfused pair: out = in + bias. `cols` counts T's (a row of 4096 floats
// is 1024 float4s wide). Block b takes rows b, b + gridDim.x, ... (a grid sized to the GPU covers any
// number of rows); its threads sweep the row together, so a warp reads 32 neighbouring T's (coalesced)
// and the column of an element, the index into bias, is simply c. Every row reads the same bias, so
// after the first row it comes from L1/L2, not DRAM.
template <typename T>
__global__ void add_bias_kernel(const T* __restrict__ in, const T* __restrict__ bias, T* __restrict__ out, int rows,
                                int cols) {
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const std::size_t row = static_cast<std::size_t>(r) * cols;  // rows * cols may pass 2^31
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[row + c] = add_values(in[row + c], bias[c]);
  }
}

// Given, the second half of the unfused pair: GELU in place over n floats, the first n4 of them as
// float4s (x is 16-byte aligned when n4 > 0), the rest one by one. It reads back what add_bias_kernel
// just wrote: that round trip through DRAM is what fusion removes.
__global__ void gelu_in_place_kernel(float* __restrict__ x, std::size_t n4, std::size_t n) {
  float4* x4 = reinterpret_cast<float4*>(x);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t i = first; i < n4; i += stride) x4[i] = gelu_values(x4[i]);
  for (std::size_t i = 4 * n4 + first; i < n; i += stride) x[i] = gelu_values(x[i]);
}

// out = gelu(in + bias) in one pass: the sum lives in a register for the moment between the two
// operations and never touches memory.
template <typename T>
__global__ void bias_gelu_fused_kernel(const T* __restrict__ in, const T* __restrict__ bias, T* __restrict__ out,
                                       int rows, int cols) {
  for (int r = blockIdx.x; r < rows; r += gridDim.x) {
    const std::size_t row = static_cast<std::size_t>(r) * cols;
    // The float sum rounds once, then GELU runs on it: the same float the unfused pair stores.
    for (int c = threadIdx.x; c < cols; c += blockDim.x) out[row + c] = gelu_values(add_values(in[row + c], bias[c]));
  }
}

// ---- launchers --------------------------------------------------------------------------------------

// Enough blocks for several waves on every SM and no more: the kernels' row loops do the rest.
constexpr int kBlocksPerSm = 32;

bool is_aligned_16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

// float4 views need every row to start on a 16-byte boundary (cols % 4 == 0, given an aligned matrix)
// and all three pointers 16-byte aligned: in + 1 is a legal float pointer but not a legal float4 one,
// and a misaligned float4 access stops the kernel with "misaligned address".
bool can_use_float4(const float* in, const float* bias, const float* out, int cols) {
  return cols % 4 == 0 && is_aligned_16(in) && is_aligned_16(bias) && is_aligned_16(out);
}

// One block per row, at most kBlocksPerSm blocks per SM.
int row_blocks(int rows) {
  return wb::grid_stride_blocks(static_cast<std::size_t>(rows), 1, kBlocksPerSm);
}

// The unfused pair's second launch (a helper of this lesson, not an elementwise.cuh launcher).
void gelu_in_place(float* x, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t n4 = is_aligned_16(x) ? n / 4 : 0;
  gelu_in_place_kernel<<<wb::grid_stride_blocks(std::max<std::size_t>(n4, 1), kBlockSize, kBlocksPerSm), kBlockSize, 0,
                         stream>>>(x, n4, n);
  CUDA_CHECK_KERNEL();
}

}  // namespace

void add_bias(const float* in, const float* bias, float* out, int rows, int cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // nothing to do, and a grid of 0 blocks is an invalid launch
  if (can_use_float4(in, bias, out, cols)) {
    add_bias_kernel<float4><<<row_blocks(rows), kBlockSize, 0, stream>>>(
        reinterpret_cast<const float4*>(in), reinterpret_cast<const float4*>(bias), reinterpret_cast<float4*>(out),
        rows, cols / 4);
  } else {
    add_bias_kernel<float><<<row_blocks(rows), kBlockSize, 0, stream>>>(in, bias, out, rows, cols);
  }
  CUDA_CHECK_KERNEL();
}

void bias_gelu_fused(const float* in, const float* bias, float* out, int rows, int cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  if (can_use_float4(in, bias, out, cols)) {
    bias_gelu_fused_kernel<float4><<<row_blocks(rows), kBlockSize, 0, stream>>>(
        reinterpret_cast<const float4*>(in), reinterpret_cast<const float4*>(bias), reinterpret_cast<float4*>(out),
        rows, cols / 4);
  } else {
    bias_gelu_fused_kernel<float><<<row_blocks(rows), kBlockSize, 0, stream>>>(in, bias, out, rows, cols);
  }
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Both launchers round s = in + bias to float exactly as the CPU does, so the reference is GELU of that
// float s in double, and the tolerance covers only GELU's float evaluation (u = 2^-24): the inner
// argument takes ~5 roundings (constants included), which moves tanh by <= max(t sech^2 t) * 5u = 2.3u;
// tanhf errs by <= 2 ulp (<= 2u below 1); 1 + tanh rounds (<= 2u). So 1 + tanh is off by <= 6.3u in
// absolute terms, times 0.5 |s|, plus the final product's rounding and the reference's rounding to float
// (u |out| each). Bound 3.2u |s| + 2u |out|; the tolerance allows 8u |s| + 4u |out|. (Feeding GELU the
// exact double sum instead would need another ~1.1 u |s| for the sum's rounding: the float sum is what the
// kernel really computes, so the tighter check is the honest one.) tanh.approx (2^-11) fails it.
wb::Tolerance gelu_of_sum_tolerance(double max_abs_sum) {
  return wb::Tolerance{8.0 * wb::kFloatEpsilon * max_abs_sum, 4.0 * wb::kFloatEpsilon};
}

// Napkin math, 16384 x 4096 (64M floats, 256 MiB): the unfused pair reads X, writes Y, reads Y, writes
// Z: 16 bytes per element, 1074 MB, about 0.36 ms at the H100's ~3 TB/s. Fused reads X and writes Z:
// 8 bytes per element, 537 MB, about 0.18 ms. The bias row (16 KB) counts once; it stays in cache. GELU's
// ~25 instructions per element hide under the memory time, so halving the bytes halves the time.
int fused_bias_gelu_lesson(wb::Lesson& lesson) {
  const std::vector<std::size_t> dims = lesson.dims_or({16384, 4096});
  const double count_d = static_cast<double>(dims[0]) * static_cast<double>(dims[1]);
  lesson.require_memory(8.0 * count_d + 4.0 * static_cast<double>(dims[1]), 16.0 * count_d);
  if (dims[0] > INT_MAX || dims[1] > INT_MAX)
    throw wb::UsageError("--size: rows and cols must each be below 2^31 (the launchers take ints)");
  const int rows = static_cast<int>(dims[0]), cols = static_cast<int>(dims[1]);
  const std::size_t count = dims[0] * dims[1];
  // in in [-3, 3) and bias in [-1, 1): sums in (-4, 4), across GELU's curved part and both tails.
  const std::vector<float> in = wb::random_floats(count, lesson.seed(), -3.0f, 3.0f);
  const std::vector<float> bias = wb::random_floats(dims[1], lesson.seed() + 1);
  std::vector<float> expected(count);
  for (std::size_t r = 0; r < dims[0]; ++r) {
    for (std::size_t c = 0; c < dims[1]; ++c) {
      const float sum = in[r * dims[1] + c] + bias[c];  // the kernels' float sum, rounded once
      expected[r * dims[1] + c] = static_cast<float>(p2::gelu_tanh_reference(sum));
    }
  }

  wb::DeviceBuffer<float> din(in), dbias(bias);
  wb::GuardedDeviceBuffer<float> dout(count);
  const std::string problem = std::to_string(rows) + "x" + std::to_string(cols);
  const wb::Tolerance tolerance = gelu_of_sum_tolerance(4.0);  // |s| < 4: one bound for every element
  const double bias_bytes = 4.0 * static_cast<double>(cols);
  const double pair_bytes = 16.0 * count_d + bias_bytes;
  const double fused_bytes = 8.0 * count_d + bias_bytes;
  // The pair is timed as one unit: both launches, Y written into out and turned into Z in place.
  const wb::ResultLine pair = lesson.run_memory_bound(
      "add_bias+gelu_tanh", problem, pair_bytes, dout, expected, tolerance,
      [&] {
        add_bias(din.data(), dbias.data(), dout.data(), rows, cols, nullptr);
        gelu_in_place(dout.data(), count, nullptr);
      },
      dims[1]);
  const wb::ResultLine fused = lesson.run_memory_bound(
      "bias_gelu_fused", problem, fused_bytes, dout, expected, tolerance,
      [&] { bias_gelu_fused(din.data(), dbias.data(), dout.data(), rows, cols, nullptr); }, dims[1]);
  const bool pass = pair.pass && fused.pass;
  if (pass && !lesson.options().csv && fused.time.median_ms > 0) {
    std::printf(
        "Fusion skips writing and re-reading the intermediate: %.0f MB instead of %.0f MB per call (%.0f MB saved), "
        "%.3f ms instead of %.3f ms: %.2fx faster than the unfused pair.\n",
        fused_bytes / 1e6, pair_bytes / 1e6, (pair_bytes - fused_bytes) / 1e6, fused.time.median_ms,
        pair.time.median_ms, pair.time.median_ms / fused.time.median_ms);
  }
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(fused_bias_gelu_lesson, "fused bias + GELU against the unfused pair, and the traffic fusion saves");
