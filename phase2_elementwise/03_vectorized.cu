// SPDX-License-Identifier: MIT
// 2.03 vectorized: float4 loads and stores for any n and any float-aligned pointer.
//
// You learn: how 16-byte accesses cut the number of memory instructions by four, why a float4
// needs a 16-byte-aligned address (in + 1 is not), and how to split any array into a scalar head,
// an aligned float4 body and a scalar tail; how several loads in flight per thread keep HBM busy.
// Task: in vectorized_kernel, compute the head/body/tail split from out's address and n, then write
// the float4 body as a grid-stride loop that issues kUnroll loads before it stores anything.
// Seed idea: "float4 for 128-bit wide loads"; ReLU and GELU at ~91% of peak bandwidth (seed 003).
// Run:   build/default/phase2_elementwise/p2_03_vectorized [--size 64M]
// Check: ctest --preset learner -R '^2.03'
// Aim:   relu_float4 and gelu_tanh_float4 at >= 90% of the cudaMemcpy bandwidth of the same run;
//        a misaligned start (in + 1, out + 1) within a few percent of the aligned one.
// Previous: 2.02 gelu. Next: 2.04 fused_bias_gelu.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/workbook.h"
#include "phase2_elementwise/activations.cuh"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/reference.h"

namespace {

constexpr int kBlockSize = 256;
// float4s each thread loads before it stores any: 4 x 16 bytes in flight per thread, so even at
// half occupancy an SM keeps ~64 KB of reads outstanding, enough to cover HBM latency.
constexpr int kUnroll = 4;
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
// misaligned address is a hard error, not a slow path. Plain coalesced floats are still close to
// full speed: each warp touches 128 contiguous bytes per access.
template <typename Op>
__global__ void scalar_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n, Op op) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = op(in[i]);
  }
}

// in and out have the same address % 16 (the launcher checks). Elements [0, head) take out to the
// next 128-byte boundary, [head, head + 4 * n4) are n4 aligned float4s, [head + 4 * n4, n) is the
// tail. The head holds at most 31 elements, the tail at most 3: the first threads of block 0 do them.
// Why 128 bytes and not 16: a float4 at in + 3 is already legal, but then each warp's 512-byte
// access starts mid-sector (sectors are 32 bytes) and shares its edge sectors with the neighbouring
// warps; with a head that stopped at 16 bytes, in + 1 / out + 1 measured 85% of memcpy on an H100
// against 94% aligned. From a line boundary every warp stores whole lines, as in the aligned case.
template <typename Op>
__global__ void vectorized_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n, Op op) {
  // TODO(2.03): stride and first, the grid-stride loop's step and this thread's start, as in
  //             scalar_kernel (2 lines).
  // out is float-aligned, so it is 0..31 floats past a 128-byte line boundary; the head walks to
  // the next boundary (0 floats when already there), but never past n. out + head is then 16-byte
  // aligned, and so is in + head: in sits as far past a 16-byte boundary as out does.
  // TODO(2.03): compute head, n4 and tail as the comment above the kernel defines them, from out's
  //             address and n (about 5 lines). No unsigned subtraction may wrap, even when n is
  //             smaller than the distance to the next line. Then apply op to every head and tail
  //             element, each exactly once, with the grid's first threads (2 lines).

  // in + head and out + head are now 16-byte aligned, so their float4 views are legal.
  // TODO(2.03): in4 and out4, float4 views of the body of in and of out (2 lines).
  // Up to kUnroll float4s per trip, each a grid stride apart so every warp still reads 512
  // contiguous bytes per load. All loads are issued before the first store: the thread waits on
  // one HBM round trip for kUnroll values instead of kUnroll round trips. The last trip is partial:
  // the same `< n4` test guards each load and its store.
  // TODO(2.03): apply op (apply4 does a float4) to each of the n4 body float4s exactly once: a
  //             grid-stride loop whose trips each load up to kUnroll float4s before storing any, and
  //             never touch a float4 at or past n4 (about 10 lines). Keep the loaded values in a small
  //             array indexed only by unrolled loops (#pragma unroll), so it stays in registers.
}

// ---- launchers --------------------------------------------------------------------------------------

// The scalar fallback: a few waves of blocks on every SM; the grid-stride loop does the rest.
constexpr int kBlocksPerSm = 32;

// The float4 path: exactly as many blocks as the SMs hold at once (the registers decide: ask the
// occupancy calculator, once per activation). One full wave, every thread looping over an equal
// share, so no half-empty last wave leaves HBM idle at the end.
template <typename Op>
int resident_blocks_per_sm() {
  static const int blocks = [] {
    int count = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&count, vectorized_kernel<Op>, kBlockSize, 0));
    return count > 0 ? count : 1;
  }();
  return blocks;
}

std::uintptr_t offset_in_16_bytes(const float* p) { return reinterpret_cast<std::uintptr_t>(p) % 16; }

template <typename Op>
void launch_elementwise(const float* in, float* out, std::size_t n, cudaStream_t stream, Op op) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch
  if (offset_in_16_bytes(in) == offset_in_16_bytes(out)) {
    // One thread per kUnroll float4s at most (at least one block: head and tail need threads 0..2).
    const std::size_t threads = std::max<std::size_t>(n / (4 * kUnroll), 1);
    const int blocks = wb::grid_stride_blocks(threads, kBlockSize, resident_blocks_per_sm<Op>());
    vectorized_kernel<<<blocks, kBlockSize, 0, stream>>>(in, out, n, op);
  } else {
    scalar_kernel<<<wb::grid_stride_blocks(n, kBlockSize, kBlocksPerSm), kBlockSize, 0, stream>>>(in, out, n, op);
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
    relu_expected[i] = static_cast<float>(relu_reference(x[i]));
    gelu_expected[i] = static_cast<float>(gelu_tanh_reference(x[i]));
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
  const wb::Tolerance exact{0, 0};  // fmaxf(x, 0) is exact
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
                               gelu_tol,
                               [&] { gelu_tanh_float4(din_shifted.data(), dout_shifted.data(), n, nullptr); })
             .pass &&
         pass;
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(vectorized_lesson, "ReLU and GELU with float4 loads, odd sizes and misaligned starts");
