// SPDX-License-Identifier: MIT
// 0.09 streams: pinned memory and a 4-stream pipeline that hides copies behind the kernel.
//
// You learn: why cudaMemcpyAsync needs pinned host memory, that work on one stream runs in order
// while work on different streams may overlap, and how cutting a job into chunks lets chunk c+1's
// copy in, chunk c's kernel and chunk c-1's copy out run at the same time.
// Task: write pipeline_streams: cut n into num_chunks chunks (the last one shorter) and issue each
// chunk's copy in, process() and copy out on one stream, round-robin over the streams. process() and
// pipeline_serial() are given: the serial version is the yardstick.
// You decide: the chunk length and the last chunk's count; which stream each chunk goes to; what must
//             not wait for what (and so where no synchronize belongs).
// Source: Mark Harris, "How to Overlap Data Transfers in CUDA C/C++" (NVIDIA blog); CUDA C++ Programming
// Guide, "Asynchronous Concurrent Execution". For a light kernel the PCIe copies, not the kernel, cost the most.
// Run:   ./workbook run 0.09 [-- --size 64M]
// Check: ./workbook check 0.09
// Aim:   pipeline_streams >= 1.8x pipeline_serial and >= 90% of the overlap bound measured in the same run.
// Previous: 0.08 block_reduce. Next: 0.10 error_handling.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "common/workbook.h"
#include "phase0_basics/basics.cuh"
#include "phase0_basics/harness/reference.h"
#include "phase0_basics/harness/stream.h"

namespace {

constexpr int kBlockSize = 256;

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void process_kernel(const float* __restrict__ in, float* __restrict__ out, std::size_t n, int work) {
  // A grid-stride loop (0.02): the grid is sized for the GPU, so any chunk length works.
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float x = in[i];
    // `work` dependent fmas per element: the knob that makes the kernel cost as much as a copy.
    for (int k = 0; k < work; ++k) x = fmaf(x, kProcessDecay, kProcessStep);
    out[i] = x;
  }
}

// ---- launchers --------------------------------------------------------------------------------------

// Enough blocks for several waves on every SM and no more: the grid-stride loop does the rest.
constexpr int kBlocksPerSm = 32;

}  // namespace

void process(const float* in, float* out, std::size_t n, int work, cudaStream_t stream) {
  if (n == 0) return;  // a grid of 0 blocks is an invalid launch
  process_kernel<<<wb::grid_stride_blocks(n, kBlockSize, kBlocksPerSm), kBlockSize, 0, stream>>>(in, out, n, work);
  CUDA_CHECK_KERNEL();
}

void pipeline_serial(const float* host_in, float* host_out, float* dev_in, float* dev_out, std::size_t n, int work,
                     cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t bytes = n * sizeof(float);
  // Three steps on one stream run one after the other: while one copies, the others wait.
  CUDA_CHECK(cudaMemcpyAsync(dev_in, host_in, bytes, cudaMemcpyHostToDevice, stream));
  process(dev_in, dev_out, n, work, stream);
  CUDA_CHECK(cudaMemcpyAsync(host_out, dev_out, bytes, cudaMemcpyDeviceToHost, stream));
}

void pipeline_streams(const float* host_in, float* host_out, float* dev_in, float* dev_out, std::size_t n, int work,
                      const cudaStream_t* streams, int num_streams, int num_chunks) {
  if (n == 0) return;  // nothing to move, and a 0-block grid is an invalid launch
  if (host_in == nullptr || host_out == nullptr || dev_in == nullptr || dev_out == nullptr || streams == nullptr ||
      num_streams < 1 || num_chunks < 1 || work < 0)
    throw std::invalid_argument(
        "pipeline_streams: a null buffer or stream list, fewer than 1 stream or chunk, or work < 0");
  // Round up, so that num_chunks chunks cover all n elements; the last chunk gets what is left.
  const std::size_t chunk = wb::ceil_div(n, static_cast<std::size_t>(num_chunks));
  for (int c = 0; c < num_chunks; ++c) {
    const std::size_t offset = static_cast<std::size_t>(c) * chunk;
    if (offset >= n) break;  // because rounding up can empty the last chunks: n = 5 in 4 chunks of 2
    const std::size_t count = std::min(chunk, n - offset);
    const std::size_t bytes = count * sizeof(float);
    // Round-robin: chunk c + num_streams reuses chunk c's stream, so it queues behind c and only c.
    const cudaStream_t stream = streams[c % num_streams];
    // One stream runs its work in order: the kernel waits for its copy in, the copy out for its kernel.
    // Other streams are free to run at the same time: chunk c+1's copy in overlaps chunk c's kernel.
    CUDA_CHECK(cudaMemcpyAsync(dev_in + offset, host_in + offset, bytes, cudaMemcpyHostToDevice, stream));
    process(dev_in + offset, dev_out + offset, count, work, stream);
    CUDA_CHECK(cudaMemcpyAsync(host_out + offset, dev_out + offset, bytes, cudaMemcpyDeviceToHost, stream));
  }
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

constexpr int kNumStreams = 4;
// Try 4, 8, 16 and 64 chunks. Overlapped, the pipeline still pays its fill and drain: the first
// chunk's copy in and the last chunk's kernel and copy out run alone, about 1/C of a stage each.
// On the H100 at n = 64M, 16 chunks took ~6.3 ms and 32 ~6.1 ms against ~5.7 ms for both copies
// alone. Many tiny chunks pay a fixed cost per copy and per launch instead (try --size 1M).
constexpr int kNumChunks = 32;
constexpr int kCalibrationWork = 64;
static_assert(kNumStreams >= 2, "the concurrent H2D + D2H measurement needs two worker streams");

// The CPU needs n * work fmas to check every element: minutes at 64M elements and thousands of
// steps. So pipeline_serial is checked on evenly spread samples (the graded test checks every
// element), and pipeline_streams on every element against pipeline_serial, bit for bit.
bool check_samples(const char* what, const float* in, const float* out, std::size_t n, int work) {
  constexpr std::size_t kSamples = std::size_t(1) << 14;
  const std::size_t count = std::min(n, kSamples);
  std::size_t bad = 0;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t i = count == 1 ? 0 : k * (n - 1) / (count - 1);
    const float want = p0::process_reference(in[i], work);
    if (wb::same_bits(out[i], want)) continue;
    if (bad == 0) {
      std::fprintf(
          stderr, "%s: element %zu: expected %.9g, got %s\n", what, i, want,
          wb::same_bits(out[i], wb::poison_value<float>()) ? "untouched (poison)" : std::to_string(out[i]).c_str());
    }
    ++bad;
  }
  if (bad > 0) std::fprintf(stderr, "%s: %zu of %zu sampled elements are wrong\n", what, bad, count);
  return bad == 0;
}

bool check_against_serial(const char* what, const wb::PinnedBuffer<float>& serial, const wb::PinnedBuffer<float>& out) {
  const wb::CompareReport report = wb::compare(serial.data(), out.data(), serial.size(), wb::Tolerance{0, 0});
  if (!report.ok()) std::fprintf(stderr, "%s", report.describe(what).c_str());
  return report.ok();
}

void poison(wb::PinnedBuffer<float>& out) {
  std::fill(out.begin(), out.end(), wb::poison_value<float>());
}

// Napkin math: n = 64M floats is 256 MiB in and 256 MiB out over PCIe. Pinned copies on the H100
// machine (PCIe gen5 x16) run ~55 GB/s each way, ~4.9 ms per direction, and ~94 GB/s in total when
// both directions run at once (5.7 ms for the two). The kernel reads and writes 512 MiB of DRAM
// (0.2 ms at 3 TB/s), so copies dominate unless the kernel is heavy: `work` is calibrated so that
// process() costs about one copy. Serially H2D + kernel + D2H = 3 x 4.9 = 14.7 ms; overlapped, the
// longest stage (both copies, 5.7 ms) bounds it near 2.5x. With a free kernel the bound is
// 9.8 / 5.7 = 1.7x: then PCIe, not your code, is the limit.
int streams_lesson(wb::Lesson& lesson) {
  const std::size_t n = lesson.size_or(64 * wb::MiB);
  lesson.require_memory(8.0 * static_cast<double>(n), 24.0 * static_cast<double>(n));
  if (n == 0) throw wb::UsageError("--size must be at least 1");
  const std::size_t bytes = n * sizeof(float);  // one way
  // Pinned (page-locked) host memory: the copy engines read and write it directly. From pageable
  // memory cudaMemcpyAsync stages through a bounce buffer and does not overlap anything.
  wb::PinnedBuffer<float> host_in(n), serial_out(n), streams_out(n);
  wb::Rng rng(lesson.seed());
  for (float& x : host_in) x = rng.uniform(-1.0f, 1.0f);
  wb::DeviceBuffer<float> dev_in(n), dev_out(n);
  p0::StreamSet workers(kNumStreams), timing(1);
  const cudaStream_t s0 = workers[0], s1 = workers[1], main_stream = timing[0];
  const p0::OrderEvent fork_event, join_event;
  // No L2 flush: PCIe-bound stages, and 256 MiB per buffer is far beyond the 50 MB L2 anyway.
  const wb::BenchOptions options = lesson.bench_options(false);

  // (1) Each copy alone, then both directions at once on two streams (the H100 has a copy engine per direction).
  const auto copy_in = [&] {
    CUDA_CHECK(cudaMemcpyAsync(dev_in.data(), host_in.data(), bytes, cudaMemcpyHostToDevice, s0));
  };
  const auto copy_out = [&] {
    CUDA_CHECK(cudaMemcpyAsync(serial_out.data(), dev_out.data(), bytes, cudaMemcpyDeviceToHost, s0));
  };
  const auto copy_both = [&] {
    p0::fork_streams(s0, {s1}, fork_event);
    CUDA_CHECK(cudaMemcpyAsync(dev_in.data(), host_in.data(), bytes, cudaMemcpyHostToDevice, s0));
    CUDA_CHECK(cudaMemcpyAsync(serial_out.data(), dev_out.data(), bytes, cudaMemcpyDeviceToHost, s1));
    p0::join_streams({s1}, s0, join_event);
  };
  const double h2d_ms = wb::bench(s0, options, copy_in).median_ms;

  // (2) Make process() cost about one H2D copy. Timed at work = 64 and scaled linearly; at 64 steps
  // the kernel's own DRAM traffic still weighs in (so it looks slower per step than it is), and
  // one more round of scaling from the first guess lands within a few percent.
  const auto time_process = [&](int w) {
    return wb::bench(s0, options, [&] { process(dev_in.data(), dev_out.data(), n, w, s0); }).median_ms;
  };
  const auto scale_work = [&](int w, double ms) {
    const double scaled = static_cast<double>(w) * h2d_ms / std::max(ms, 1e-6);
    return static_cast<int>(std::clamp(std::lround(scaled), 1L, 100000L));
  };
  int work = scale_work(kCalibrationWork, time_process(kCalibrationWork));
  work = scale_work(work, time_process(work));
  const double kernel_ms = time_process(work);

  // process() filled dev_out above, so the copies out below move real numbers.
  const double d2h_ms = wb::bench(s0, options, copy_out).median_ms;
  const double both_ms = wb::bench(s0, options, copy_both).median_ms;

  // (3) The two pipelines. Timing several streams honestly: bench() records its start and stop
  // events on main_stream; the fork makes every worker wait for the start event and the join makes
  // the stop event wait for every worker, so one repeat spans the whole pipeline, from its first
  // copy in to its last copy out, and repeats never overlap each other.
  const auto run_serial = [&] {
    pipeline_serial(host_in.data(), serial_out.data(), dev_in.data(), dev_out.data(), n, work, s0);
  };
  const auto run_streams = [&] {
    p0::fork_streams(main_stream, workers.handles(), fork_event);
    pipeline_streams(host_in.data(), streams_out.data(), dev_in.data(), dev_out.data(), n, work,
                     workers.handles().data(), kNumStreams, kNumChunks);
    p0::join_streams(workers.handles(), main_stream, join_event);
  };
  poison(serial_out);
  poison(streams_out);
  run_serial();
  run_streams();
  // The host may read what the copies wrote only after they finished: wait for both streams.
  CUDA_CHECK(cudaStreamSynchronize(s0));
  CUDA_CHECK(cudaStreamSynchronize(main_stream));
  bool serial_ok = check_samples("pipeline_serial", host_in.data(), serial_out.data(), n, work);
  bool streams_ok = check_against_serial("pipeline_streams", serial_out, streams_out);

  poison(serial_out);  // so that the checks after timing see what the timed calls wrote
  poison(streams_out);
  const wb::TimingStats serial_time = wb::bench(s0, options, run_serial);
  const wb::TimingStats streams_time = wb::bench(main_stream, options, run_streams);
  CUDA_CHECK(cudaDeviceSynchronize());  // bench waited for its last stop event; be sure of the rest

  // (4) Verify again after timing: a pipeline that breaks only on later calls is caught.
  serial_ok = check_samples("pipeline_serial (after timing)", host_in.data(), serial_out.data(), n, work) && serial_ok;
  streams_ok = check_against_serial("pipeline_streams (after timing)", serial_out, streams_out) && streams_ok;

  // (5) No pipeline beats its longest stage: the kernel alone, or both copies sharing PCIe.
  const double serial_ms = serial_time.median_ms;
  const double overlap_bound = serial_ms / std::max({kernel_ms, both_ms, 1e-6});
  if (!lesson.options().csv) {
    std::printf(
        "stages: H2D %.3g ms  process %.3g ms at work=%d  D2H %.3g ms  H2D+D2H together %.3g ms  "
        "overlap bound %.2fx with %d streams and %d chunks\n",
        h2d_ms, kernel_ms, work, d2h_ms, both_ms, overlap_bound, kNumStreams, kNumChunks);
  }

  // (6) Rate = bytes over PCIe (in + out) per second; the speedup is compared with the bound.
  const auto line_for = [&](const char* name, const wb::TimingStats& time, bool pass) {
    wb::ResultLine line;
    line.id = lesson.id();
    line.name = name;
    line.problem = "n=" + wb::format_count(n);
    line.time = time;
    line.rate = wb::gb_per_s(2.0 * static_cast<double>(bytes), time.median_ms);
    const double speedup = time.median_ms > 0 ? serial_ms / time.median_ms : 0.0;
    line.peak_pct = overlap_bound > 0 ? 100.0 * speedup / overlap_bound : 0.0;
    line.peak_label = "overlap bound";
    line.ref_value = speedup;
    line.ref_style = wb::RefStyle::Speedup;
    line.ref_label = "serial";
    line.pass = pass;
    return line;
  };
  lesson.report(line_for("pipeline_serial", serial_time, serial_ok));
  lesson.report(line_for("pipeline_streams", streams_time, streams_ok && serial_ok));
  return serial_ok && streams_ok ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(streams_lesson, "a 4-stream pipeline that overlaps copies with the kernel");
