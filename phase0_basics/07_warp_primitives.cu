// SPDX-License-Identifier: MIT
// 0.07 warp_primitives: lanes of a warp trade registers with __shfl_*_sync, no shared memory needed.
//
// You learn: how __shfl_sync broadcasts one lane's value, how __shfl_down_sync folds 32 values
// into one in 5 steps (a tree), how __shfl_up_sync builds a prefix sum in 5 steps, and why every
// lane named in the mask must reach the shuffle, even lanes with nothing to do.
// Task: the input is cut into segments of 32, one per warp. Write warp_broadcast_kernel,
// warp_sums_kernel and warp_inclusive_scan_kernel: lanes past n contribute 0 and take part in
// every shuffle; only the loads and stores are guarded.
// You decide: the shuffle (and its offsets) for each kernel; which lanes of the scan keep what they
//             have at each step; what a lane past n holds so that it changes no sum.
// Source: CUDA C++ Programming Guide, "Warp Shuffle Functions"; NVIDIA blog, "Using CUDA Warp-Level Primitives".
// Run:   ./workbook run 0.07 [-- --size 64M]
// Check: ./workbook check 0.07
// Aim:   broadcast and scan at ~75% of the cudaMemcpy bandwidth, warp_sums ~50% (H100):
//        the shuffles cost little; one 4-byte load per thread limits them (napkin math below).
// Previous: 0.06 transpose. Next: 0.08 block_reduce.

#include <stdexcept>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase0_basics/basics.cuh"

namespace {

constexpr int kWarpSize = 32;
constexpr int kBlockSize = 256;  // 8 whole warps: a warp never straddles two blocks
static_assert(kBlockSize % kWarpSize == 0, "a block must hold whole warps");

// The mask of a *_sync shuffle is a promise: "all these lanes execute this shuffle together".
// With 0xffffffff all 32 lanes must arrive. A lane that skipped it (an `if (i < n)` around the
// shuffle, an early `return`) breaks the promise: undefined behaviour, which may return garbage
// or hang the GPU with no error message. A softmax kernel hangs for exactly this reason when it puts a
// full-mask __shfl_down_sync inside `if (lane < num_warps)`. So: every lane loads its value or a
// neutral 0 when it is past n, every lane shuffles, and only the loads and stores are guarded.
constexpr unsigned kFullMask = 0xffffffffu;
static_assert(kFullMask == (1ull << kWarpSize) - 1, "the full mask has one bit per lane of the warp");

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void warp_broadcast_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n,
                                      int src_lane) {
  // The block holds whole warps, so i % 32 is this thread's lane and i / 32 its segment.
  // TODO(0.07): load this thread's value x (0 past n); give every lane the x of lane src_lane with
  //             one shuffle that all lanes execute; store it where there is an element (about 4 lines).
}

__global__ void warp_sums_kernel(const float* __restrict__ in, float* __restrict__ sums, std::size_t n) {
  // TODO(0.07): load x as in the broadcast; fold the warp's 32 values into lane 0 in five shuffle
  //             steps that every lane executes; lane 0 stores the segment's sum in the segment's slot
  //             of sums, if its element exists (about 6 lines).
}

__global__ void warp_inclusive_scan_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n) {
  // TODO(0.07): load x (0 past n); in five shuffle steps that every lane executes, turn each lane's x
  //             into the sum of its own and all lower lanes' values; a lane near the bottom must not
  //             add what came from below lane 0. Store x where there is an element (about 8 lines).
}

// ---- launchers --------------------------------------------------------------------------------------

// One thread per element, rounded up to whole blocks: the threads past n fill the last warp.
unsigned grid_for(std::size_t n) {
  return static_cast<unsigned>(wb::ceil_div(n, std::size_t(kBlockSize)));
}

}  // namespace

void warp_broadcast(const float* in, float* out, std::size_t n, int src_lane, cudaStream_t stream) {
  if (src_lane < 0 || src_lane >= kWarpSize) {
    throw std::invalid_argument("warp_broadcast: src_lane must be in 0..31, got " + std::to_string(src_lane));
  }
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch
  warp_broadcast_kernel<<<grid_for(n), kBlockSize, 0, stream>>>(in, out, n, src_lane);
  CUDA_CHECK_KERNEL();
}

void warp_sums(const float* in, float* sums, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  warp_sums_kernel<<<grid_for(n), kBlockSize, 0, stream>>>(in, sums, n);
  CUDA_CHECK_KERNEL();
}

void warp_inclusive_scan(const float* in, float* out, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  warp_inclusive_scan_kernel<<<grid_for(n), kBlockSize, 0, stream>>>(in, out, n);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: broadcast and scan read and write 4 bytes per element (8n); the sums read 4n and
// write one float per 32 (4n + 4n/32). n = 64M moves 537 MB, about 0.18 ms at ~3 TB/s. Five
// shuffles per element cost far less than that. What limits these kernels is bytes in flight:
// one 4-byte load per thread, 2048 threads per SM, is 8 KB per SM, but ~3 TB/s at ~0.7 us of
// latency needs ~16 KB per SM. warp_sums, which only reads, suffers most.
int warp_primitives_lesson(wb::Lesson& lesson) {
  const std::size_t n = lesson.size_or(64 * wb::MiB);
  lesson.require_memory(12.0 * static_cast<double>(n), 24.0 * static_cast<double>(n));
  // Multiples of 1/256 in [-1, 1]: every partial sum of 32 of them is exact in float, so the
  // GPU's tree order and the CPU's left-to-right order agree bit for bit.
  const std::vector<float> in = wb::random_dyadic_floats(n, lesson.seed());
  const int src_lane = 0;
  const std::size_t segments = wb::ceil_div(n, std::size_t(kWarpSize));
  std::vector<float> broadcast(n), sums(segments, 0.0f), scan(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t src = i / kWarpSize * kWarpSize + src_lane;
    broadcast[i] = src < n ? in[src] : 0.0f;
    sums[i / kWarpSize] += in[i];
    scan[i] = (i % kWarpSize == 0 ? 0.0f : scan[i - 1]) + in[i];
  }

  wb::DeviceBuffer<float> din(in);
  wb::GuardedDeviceBuffer<float> dout(n), dsums(segments);
  const std::string problem = "n=" + wb::format_count(n);
  const double n_bytes = 4.0 * static_cast<double>(n);
  const wb::Tolerance exact{0, 0};  // dyadic inputs: every summation order is exact
  bool pass = lesson
                  .run_memory_bound("warp_broadcast", problem, 2 * n_bytes, dout, broadcast, exact,
                                    [&] { warp_broadcast(din.data(), dout.data(), n, src_lane, nullptr); })
                  .pass;
  pass = lesson
             .run_memory_bound("warp_sums", problem, n_bytes + n_bytes / kWarpSize, dsums, sums, exact,
                               [&] { warp_sums(din.data(), dsums.data(), n, nullptr); })
             .pass &&
         pass;
  pass = lesson
             .run_memory_bound("warp_inclusive_scan", problem, 2 * n_bytes, dout, scan, exact,
                               [&] { warp_inclusive_scan(din.data(), dout.data(), n, nullptr); })
             .pass &&
         pass;
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(warp_primitives_lesson, "warp shuffles: broadcast, reduce and scan without shared memory");
