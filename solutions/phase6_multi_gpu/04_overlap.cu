// SPDX-License-Identifier: MIT
// 6.04 overlap: a data-parallel step whose gradient all-reduce hides behind the backward pass.
//
// You learn: why data-parallel training all-reduces gradients in buckets (the last layers' gradients are
// ready long before the first layers' are, so their communication can run while the rest of the
// backward computes); how two streams per GPU (compute and communication) and events between them
// order that work: a bucket's all-reduce may start only after every layer that writes it, and the step
// is over only when the last bucket is reduced; and how close overlap comes to its bound,
// max(compute alone, communication alone), measured in the same run.
// Task: the step: the backward's layers on the compute streams, the buckets, the events, and the end.
// Source: Li et al., "PyTorch Distributed: Experiences on Accelerating Data Parallel Training" (VLDB
// 2020), gradient bucketing in DistributedDataParallel; NCCL's documentation on streams and CUDA
// events.
// You decide: the bucket size (bigger buckets: fewer, more efficient all-reduces, but the first starts
//             later and the last one after the backward is longer); which event each bucket's
//             all-reduce waits for, on which stream; what the compute streams wait for before the step
//             may end.
// Run:   ./workbook run 6.04 [-- --size 64M]
// Check: ./workbook check 6.04
// Aim:   >= 90% of the overlap bound (max of compute alone and communication alone) on two GPUs.
// Previous: 6.03 nccl_collectives (NCCL drives the all-reduce here). Next: 6.05 tensor_parallel_mlp.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase6_multi_gpu/harness/lesson_support.h"
#include "phase6_multi_gpu/harness/topology.h"
#include "phase6_multi_gpu/multi_gpu.cuh"

namespace {

// The bucket size when the caller passes 0, in floats (maybe_unused: the stub has no buckets yet).
[[maybe_unused]] constexpr std::size_t kBucketFloats = (std::size_t(25) << 20) / sizeof(float);
// because PyTorch's DistributedDataParallel defaults to 25 MB buckets (bucket_cap_mb): large enough
// that each all-reduce runs near the link's bandwidth, small enough that the first one starts early.

}  // namespace

void overlap_step(const p6::BackwardModel& model, float* const* grad, std::size_t bucket_floats, p6::RankGroup& group,
                  p6::GradientComm& comm) {
  const int n = group.size();
  const std::size_t cap = bucket_floats == 0 ? kBucketFloats : bucket_floats;
  std::size_t filled = 0;  // floats of the bucket being filled: layers layer .. top
  int bucket = 0;
  for (int layer = model.layers() - 1; layer >= 0; --layer) {
    for (int r = 0; r < n; ++r) model.backward(r, layer, grad[r], group.stream(r));
    filled += model.size(layer);
    if (filled < cap && layer > 0) continue;
    // because the bucket's last layer (this one) was enqueued last on each compute stream: an event
    // recorded now follows every layer that writes the bucket.
    const int slot = bucket % p6::RankGroup::kEventsPerRank;
    for (int r = 0; r < n; ++r) {
      p6::DeviceScope scope(group.device(r));
      CUDA_CHECK(cudaEventRecord(group.event(r, slot), group.stream(r)));
      CUDA_CHECK(cudaStreamWaitEvent(comm.stream(r), group.event(r, slot), 0));
    }
    comm.allreduce_sum(grad, model.offset(layer), filled);
    filled = 0;
    ++bucket;
  }
  // because the step is over only when every bucket is reduced: each compute stream waits for its
  // communication stream's last all-reduce.
  for (int r = 0; r < n; ++r) {
    p6::DeviceScope scope(group.device(r));
    CUDA_CHECK(cudaEventRecord(comm.event(r, 0), comm.stream(r)));
    CUDA_CHECK(cudaStreamWaitEvent(group.stream(r), comm.event(r, 0), 0));
  }
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

constexpr int kLessonLayers = 16;
// Multiply-adds per gradient: the backward's arithmetic, about five times the all-reduce's time on two
// H100s (4.6 against 0.9 ms measured), as in a step whose communication can hide entirely (at a 1:1
// ratio the first bucket's compute and the last bucket's all-reduce, which nothing overlaps, cost ~10%
// of the bound).
constexpr int kLessonWork = 1024;

// The serial step, for comparison: the whole backward, then one all-reduce of everything.
void serial_step(const p6::BackwardModel& model, float* const* grad, p6::RankGroup& group, p6::GradientComm& comm,
                 bool compute, bool communicate) {
  const int n = group.size();
  if (compute)
    for (int layer = model.layers() - 1; layer >= 0; --layer)
      for (int r = 0; r < n; ++r) model.backward(r, layer, grad[r], group.stream(r));
  if (!communicate) return;
  for (int r = 0; r < n; ++r) {
    p6::DeviceScope scope(group.device(r));
    CUDA_CHECK(cudaEventRecord(group.event(r, 0), group.stream(r)));
    CUDA_CHECK(cudaStreamWaitEvent(comm.stream(r), group.event(r, 0), 0));
  }
  comm.allreduce_sum(grad, 0, model.total());
  for (int r = 0; r < n; ++r) {
    p6::DeviceScope scope(group.device(r));
    CUDA_CHECK(cudaEventRecord(comm.event(r, 0), comm.stream(r)));
    CUDA_CHECK(cudaStreamWaitEvent(group.stream(r), comm.event(r, 0), 0));
  }
}

int overlap_lesson(wb::Lesson& lesson) {
  // Napkin math: 64M floats of gradients (256 MiB) on two GPUs: NCCL's all-reduce at ~300 GB/s busbw
  // takes ~0.9 ms; the backward's 1024 multiply-adds per gradient ran 4.6 ms on an H100. Serially
  // ~5.5 ms; overlapped, at best the longer of the two.
  const std::size_t count = lesson.size_or(std::size_t(64) << 20);
  if (count < static_cast<std::size_t>(kLessonLayers)) {
    std::fprintf(stderr, "6.04: --size must be at least %d floats (one per layer)\n", kLessonLayers);
    return wb::kExitUsage;
  }
  const int gpus = p6::visible_gpu_count();
  const bool real = gpus >= 2;
  const int n = real ? std::min(gpus, 8) : 4;
  lesson.require_memory(3.0 * 4.0 * static_cast<double>(count) * (real ? 1 : n), 3.0 * 4.0 * count * n);
  p6::RankGroup group = real ? p6::RankGroup::real(n) : p6::RankGroup::virtual_ranks(n, 0);
  std::printf("ranks: %s\n", group.describe().c_str());
  // Layers of growing size, as a network's later layers often are; the rest goes to the last.
  std::vector<std::size_t> sizes;
  std::size_t used = 0;
  for (int l = 0; l < kLessonLayers; ++l) {
    const std::size_t s = l + 1 < kLessonLayers ? count * static_cast<std::size_t>(l + 1) / 136 : count - used;
    sizes.push_back(s);
    used += s;
  }
  std::vector<std::vector<float>> inputs;
  std::vector<float> expected(count, 0.0f);
  for (int r = 0; r < n; ++r) {
    // Small integers in float: every sum over up to 8 ranks is exact, so each element is checked exactly.
    const std::vector<int> ints = wb::random_ints(count, lesson.seed() + static_cast<std::uint64_t>(r), -8, 8);
    inputs.emplace_back(ints.begin(), ints.end());
    for (std::size_t i = 0; i < count; ++i) expected[i] += inputs.back()[i];
  }
  p6::BackwardModel model(group, sizes, kLessonWork, inputs);
  inputs.clear();
  p6::RankBuffers<float> grad(group, count);
  p6::GradientComm comm(group);
  std::printf("all-reduce: %s; %d layers, %s gradients per rank\n", comm.engine(), kLessonLayers,
              wb::format_count(count).c_str());
  auto verify = [&](const std::string& what) {
    for (int r = 0; r < n; ++r) {
      const std::vector<float> got = grad.download(r);
      std::size_t bad = 0, first = count;
      for (std::size_t i = 0; i < count; ++i)
        if (got[i] != expected[i] && bad++ == 0) first = i;
      const std::string guards = grad.check_guards(r, what);
      if (bad > 0) {
        std::fprintf(stderr, "%s: rank %d: %zu of %zu gradients wrong, the first at [%zu]: expected %g, got %g\n",
                     what.c_str(), r, bad, count, first, expected[first], got[first]);
        wb::note_check_failure(
            what, wb::same_bits(got[first], wb::poison_value<float>()) ? "output untouched" : "wrong sums");
        return false;
      }
      if (!guards.empty()) {
        std::fprintf(stderr, "%s", guards.c_str());
        wb::note_check_failure(what, "wrote outside its buffer");
        return false;
      }
    }
    return true;
  };
  grad.fill(wb::poison_value<float>());
  overlap_step(model, grad.pointers(), 0, group, comm);
  group.synchronize();
  bool pass = verify("overlap_step");
  if (!real) {
    std::printf("overlap_step on %d virtual ranks: %s\n", n, pass ? "PASS" : "FAIL");
    if (!pass) return wb::kExitFail;
    return p6::skip_unless_gpus(lesson.id(), lesson.name(), 2, "the overlap is measured with NCCL on real GPUs");
  }
  const wb::BenchOptions options = lesson.bench_options(false);
  float* const* g = grad.pointers();
  const wb::TimingStats compute =
      p6::bench_group(group, options, [&] { serial_step(model, g, group, comm, true, false); });
  const wb::TimingStats communicate =
      p6::bench_group(group, options, [&] { serial_step(model, g, group, comm, false, true); });
  const wb::TimingStats serial =
      p6::bench_group(group, options, [&] { serial_step(model, g, group, comm, true, true); });
  const wb::TimingStats overlapped = p6::bench_group(group, options, [&] { overlap_step(model, g, 0, group, comm); });
  pass = verify("overlap_step (after timing)") && pass;
  const double bound_ms = std::max(compute.median_ms, communicate.median_ms);
  const double bytes = 4.0 * static_cast<double>(count);
  std::printf("backward alone         %8.3f ms\n", compute.median_ms);
  std::printf("all-reduce alone       %8.3f ms  busbw %.0f GB/s (%s, one call)\n", communicate.median_ms,
              p6::allreduce_busbw_gbs(bytes, communicate.median_ms, n), comm.engine());
  std::printf("serial step            %8.3f ms\n", serial.median_ms);
  std::printf("overlap bound          %8.3f ms  max(backward, all-reduce)\n", bound_ms);
  std::printf("overlapped step        %8.3f ms  %.1f%% of the bound, %.2fx the serial step\n", overlapped.median_ms,
              100.0 * bound_ms / overlapped.median_ms, serial.median_ms / overlapped.median_ms);

  wb::ResultLine line;
  line.id = lesson.id();
  line.name = "overlap_step";
  line.problem = "n=" + wb::format_count(count) + " x" + std::to_string(n) + " " + p6::link_label(0, 1);
  line.time = overlapped;
  line.rate = p6::allreduce_busbw_gbs(bytes, overlapped.median_ms, n);
  line.unit = wb::RateUnit::GBps;
  line.peak_label = p6::link_label(0, 1) + " bound";
  wb::set_peak(line, p6::nvlink_bound_gbs(0, 1));
  line.ref_value = 100.0 * bound_ms / overlapped.median_ms;
  line.ref_label = "overlap bound";
  line.pass = pass;
  lesson.report(line);
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(overlap_lesson, "gradient buckets all-reduced while the backward computes");
