// SPDX-License-Identifier: MIT
// 2.03 vectorized: float4 loads and stores for any n and any float-aligned pointer.
//
// You learn: how 16-byte accesses cut the number of memory instructions by four (one float4 puts in
// flight the 16 bytes that took 2.01 four loads), why a float4 needs a 16-byte-aligned address
// (in + 1 is not), and how to split any array into a scalar head, an aligned float4 body and a
// scalar tail.
// Task: in vectorized_kernel, compute the head/body/tail split from out's address and n, then apply
// op to the float4 body, one float4 per thread of a grid that covers it.
// Holds 2.01's answer: solve 2.01 first (its kItemsPerThread kernel is scalar_kernel here).
// Source: NVIDIA blog, "CUDA Pro Tip: Increase Performance with Vectorized Memory Access" (float4, 128-bit loads).
// Run:   ./workbook run 2.03 [-- --size 64M]
// Check: ./workbook check 2.03
// Aim:   relu_float4 and gelu_tanh_float4 at >= 98% of the cudaMemcpy bandwidth of the same run on
//        an H100, level with PyTorch; a misaligned start (in + 1, out + 1) within a few percent.
// Previous: 2.02 gelu. Next: 2.04 fused_bias_gelu.

#include <cstdint>
#include <vector>

#include "common/workbook.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/activations.cuh"
#include "phase2_elementwise/harness/reference.h"

namespace {

constexpr int kBlockSize = 256;
// The scalar fallback's elements per thread, loaded before any is stored, as in 2.01.
constexpr int kItemsPerThread = 4;
// A cache line: the head aligns out to it, so no warp's stores split a line with another warp.
constexpr std::size_t kLineBytes = 128;
static_assert(kLineBytes % sizeof(float4) == 0, "a line holds whole float4s");

// The activation as a type, so one kernel template serves both launchers (and inlines the call).
struct Relu {
  __device__ float operator()(float x) const { return relu_device(x); }
};
struct GeluTanh {
  __device__ float operator()(float x) const { return gelu_tanh_device(x); }
};

template <typename Op>
__device__ __forceinline__ float4 apply4(Op op, float4 v) {
  return make_float4(op(v.x), op(v.y), op(v.z), op(v.w));
}

// ---- kernels ----------------------------------------------------------------------------------------

// The fallback when in and out sit at different offsets from a 16-byte boundary (in + 1, out + 0):
// whatever head you peel off, one of the two streams stays misaligned, and a float4 access at a
// misaligned address is a hard error, not a slow path. 2.01's kernel shape serves: kItemsPerThread
// coalesced 4-byte loads per thread, all in flight at once (at a copy's speed in 2.01's lesson; this
// case is graded by the tests but not timed by the lesson).
template <typename Op>
__global__ void scalar_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n, Op op) {
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x * kItemsPerThread + threadIdx.x;
  float x[kItemsPerThread] = {};
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * blockDim.x;
    if (i < n) x[k] = in[i];
  }
#pragma unroll
  for (int k = 0; k < kItemsPerThread; ++k) {
    const std::size_t i = first + static_cast<std::size_t>(k) * blockDim.x;
    if (i < n) out[i] = op(x[k]);
  }
}

// in and out have the same address % 16 (the launcher checks). Elements [0, head) take out to the
// next 128-byte boundary, [head, head + 4 * n4) are n4 aligned float4s, [head + 4 * n4, n) is the
// tail. The head holds at most 31 elements, the tail at most 3: the first threads of block 0 do them.
// Why 128 bytes and not 16: a float4 at in + 3 is already legal, but then each warp's 512-byte
// access starts mid-sector (sectors are 32 bytes) and shares its edge sectors with the neighbouring
// warps; with a head that stopped at 16 bytes, in + 1 / out + 1 measured 85% of memcpy on an H100
// against 94% aligned (an earlier, grid-stride version of this kernel). From a line boundary every
// warp stores whole lines, as in the aligned case.
template <typename Op>
__global__ void vectorized_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n, Op op) {
  // TODO(2.03): first, this thread's index in the whole grid, as a std::size_t (1 line).
  // out is float-aligned, so it is 0..31 floats past a 128-byte line boundary; the head walks to
  // the next boundary (0 floats when already there), but never past n. out + head is then 16-byte
  // aligned, and so is in + head: in sits as far past a 16-byte boundary as out does.
  // TODO(2.03): compute head, n4 and tail as the comment above the kernel defines them, from out's
  //             address and n (about 5 lines). No unsigned subtraction may wrap, even when n is
  //             smaller than the distance to the next line. Then apply op to every head and tail
  //             element, each exactly once, with the grid's first threads (2 lines).

  // in + head and out + head are now 16-byte aligned, so their float4 views are legal.
  // TODO(2.03): in4 and out4, float4 views of the body of in and of out (2 lines).
  // One float4 per thread: the launcher's grid has a thread for every body float4, and a warp reads
  // 512 contiguous bytes. 16 bytes in flight per thread already, so no unrolling is needed.
  // TODO(2.03): apply op (apply4 does a float4) to the body float4 this thread owns, if it owns one:
  //             never touch a float4 at or past n4 (1 line).
}

// ---- launchers --------------------------------------------------------------------------------------

std::uintptr_t offset_in_16_bytes(const float* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16;
}

template <typename Op>
void launch_elementwise(const float* in, float* out, std::size_t n, cudaStream_t stream, Op op) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch
  if (offset_in_16_bytes(in) == offset_in_16_bytes(out)) {
    // A thread per float4 of n / 4, at least one block: the body has at most that many float4s, and
    // the head's up to 31 and the tail's up to 3 elements need threads 0..30 of block 0.
    vectorized_kernel<<<wb::covering_blocks(n / 4, kBlockSize), kBlockSize, 0, stream>>>(in, out, n, op);
  } else {
    scalar_kernel<<<wb::covering_blocks(n, kBlockSize * kItemsPerThread), kBlockSize, 0, stream>>>(in, out, n, op);
  }
  CUDA_CHECK_KERNEL();
}

}  // namespace

void relu_float4(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  launch_elementwise(in, out, n, stream, Relu{});
}

void gelu_tanh_float4(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  launch_elementwise(in, out, n, stream, GeluTanh{});
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

constexpr float kInputRange = 5.0f;  // inputs uniform in [-5, 5): GELU's curved part and both flat ends

// Napkin math: 1 float read + 1 written = 8 bytes per element; n = 64M moves 537 MB, about
// 0.18 ms at the H100's ~3 TB/s. GELU's ~20 FLOPs per element (tanhf included) are ~1.3 GFLOP,
// 0.02 ms of the FP32 units: both activations are pure memory traffic, so both should run at
// the speed of a copy. The misaligned run adds 31 + 3 scalar elements to 64M.
int vectorized_lesson(wb::Lesson& lesson) {
  const std::size_t n = lesson.size_or(64 * wb::MiB);
  // Device: input and output, each aligned and at + 1, and the cudaMemcpy reference's two buffers.
  // Host: the input, two expected arrays and the checker's temporaries.
  lesson.require_memory(24.0 * static_cast<double>(n), 24.0 * static_cast<double>(n));
  const std::vector<float> x = wb::random_floats(n, lesson.seed(), -kInputRange, kInputRange);
  std::vector<float> relu_expected(n), gelu_expected(n);
  for (std::size_t i = 0; i < n; ++i) {
    relu_expected[i] = static_cast<float>(p2::relu_reference(x[i]));
    gelu_expected[i] = static_cast<float>(p2::gelu_tanh_reference(x[i]));
  }

  // A guard of kDefaultGuard + 1 floats puts data() 4 bytes past a 16-byte boundary: in + 1 and
  // out + 1, with canaries right next to the data.
  const std::size_t shifted = wb::GuardedDeviceBuffer<float>::kDefaultGuard + 1;
  wb::DeviceBuffer<float> din(x);
  wb::GuardedDeviceBuffer<float> din_shifted(n, shifted);
  din_shifted.upload(x);
  wb::GuardedDeviceBuffer<float> dout(n);
  wb::GuardedDeviceBuffer<float> dout_shifted(n, shifted);

  const std::string problem = "n=" + wb::format_count(n);
  const double bytes = 8.0 * static_cast<double>(n);
  const wb::Tolerance exact{0, 0};  // relu is a select: it rounds nothing
  // GELU in float against the double reference: tanhf (<= 2 ulp) and 7 roundings give at most
  // 0.5|x| (6u (1 - t^2)|inner| + 4u|t|) + 3u|out| (derivation in the test); with |x| <= 5 and
  // (1 - t^2)|inner| <= 0.45 that is below 3.4u * 5 + 3u|out|, rounded up here.
  const wb::Tolerance gelu_tol{4.0 * wb::kFloatEpsilon * kInputRange, 4.0 * wb::kFloatEpsilon};

  bool pass = lesson
                  .run_memory_bound("relu_float4", problem, bytes, dout, relu_expected, exact,
                                    [&] { relu_float4(din.data(), dout.data(), n, nullptr); })
                  .pass;
  pass = lesson
             .run_memory_bound("gelu_tanh_float4", problem, bytes, dout, gelu_expected, gelu_tol,
                               [&] { gelu_tanh_float4(din.data(), dout.data(), n, nullptr); })
             .pass &&
         pass;
  pass = lesson
             .run_memory_bound("gelu_tanh_float4", problem + " in+1 out+1", bytes, dout_shifted, gelu_expected,
                               gelu_tol, [&] { gelu_tanh_float4(din_shifted.data(), dout_shifted.data(), n, nullptr); })
             .pass &&
         pass;
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(vectorized_lesson, "ReLU and GELU with float4 loads, odd sizes and misaligned starts");
