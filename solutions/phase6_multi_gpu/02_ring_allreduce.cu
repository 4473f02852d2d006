// SPDX-License-Identifier: MIT
// 6.02 ring_allreduce: your own all-reduce, around a ring of ranks, against NCCL in the same run.
//
// You learn: the ring all-reduce that data-parallel training runs after every backward pass: a
// reduce-scatter (n - 1 steps, after which each rank holds one chunk summed over all ranks) and an
// all-gather (n - 1 more, passing the finished chunks on), each step moving one chunk per rank to its
// neighbour, so every link carries 2 (n - 1) / n of the buffer whatever n is; how kernels read a
// neighbour's memory over peer access (6.01); and how events order steps that run on different GPUs.
// Task: ring_allreduce (multi_gpu.cuh) as a ring: the step kernel, the cut into chunks, and the
// launcher that chains 2 (n - 1) steps over the ranks. Correct means every element of every rank's output
// exact, for any count, 1 to 8 ranks, in place or not, whatever the ranks' streams were still running.
// Source: Patarasuk and Yuan, "Bandwidth optimal all-reduce algorithms for clusters of workstations"
// (JPDC 2009); Baidu Research's "Bringing HPC techniques to deep learning" (2017); NCCL's ring algorithm.
// You decide: how the buffer is cut into chunks, and what that cut lets the step kernel assume; which
//             chunk each rank works on at each step, and from which of its neighbour's buffers; which
//             events each step records and waits for, at the call's entry and exit too; how the step
//             kernel keeps the link busy (threads, blocks, loads in flight: 6.01 measured what it takes).
// Run:   ./workbook run 6.02 [-- --size 64M]
// Check: ./workbook check 6.02
// Aim:   >= 80% of NCCL's bus bandwidth on the same GPUs at 256 MiB (64M floats).
// Previous: 6.01 peer_access (peer loads, link bound). Next: 6.03 nccl_collectives (NCCL's collectives).

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase6_multi_gpu/harness/lesson_support.h"
#include "phase6_multi_gpu/harness/nccl_support.h"
#include "phase6_multi_gpu/harness/topology.h"
#include "phase6_multi_gpu/multi_gpu.cuh"

namespace {

constexpr int kThreads = 512;
constexpr int kVectorsPerThread = 4;  // 16-byte loads of the peer in flight per thread per iteration
constexpr int kBlocksPerSm = 4;

// ---- kernels ----------------------------------------------------------------------------------------

// One step of the ring on one rank, over one chunk of `count` floats: the reduce-scatter's
// dst = mine + theirs (kAdd), or the all-gather's dst = theirs. The kernel runs on the rank that owns
// dst and mine; `theirs` lives on its upstream neighbour (a peer GPU, or the same GPU for virtual ranks),
// so every load of it crosses the link. dst, mine and theirs may be the same chunk of different buffers,
// never overlapping ones.
template <bool kAdd>
__global__ void ring_step_kernel(float* dst, const float* mine, const float* theirs, std::size_t count) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const bool aligned = ((reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(theirs) |
                         (kAdd ? reinterpret_cast<std::uintptr_t>(mine) : 0)) &
                        15) == 0;
  // because 16-byte loads need 16-byte addresses: the chunks are cut at multiples of 4 floats, so only
  // a buffer that starts off that boundary takes the scalar path.
  std::size_t done = 0;
  if (aligned) {
    const std::size_t vectors = count / 4;
    const float4* t4 = reinterpret_cast<const float4*>(theirs);
    const float4* m4 = reinterpret_cast<const float4*>(mine);
    float4* d4 = reinterpret_cast<float4*>(dst);
    for (std::size_t base = tid; base < vectors; base += threads * kVectorsPerThread) {
      float4 v[kVectorsPerThread];
#pragma unroll
      for (int u = 0; u < kVectorsPerThread; ++u) {
        const std::size_t i = base + u * threads;
        if (i < vectors) v[u] = t4[i];
      }
#pragma unroll
      for (int u = 0; u < kVectorsPerThread; ++u) {
        const std::size_t i = base + u * threads;
        if (i < vectors) {
          if (kAdd) {
            const float4 m = m4[i];
            v[u].x += m.x;
            v[u].y += m.y;
            v[u].z += m.z;
            v[u].w += m.w;
          }
          d4[i] = v[u];
        }
      }
    }
    done = vectors * 4;
  }
  // because the last count % 4 floats (or all of them, unaligned) fit no vector.
  for (std::size_t i = done + tid; i < count; i += threads) dst[i] = kAdd ? mine[i] + theirs[i] : theirs[i];
}

// ---- launcher ---------------------------------------------------------------------------------------

int blocks_for(std::size_t count, int device) {
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::size_t per_block = static_cast<std::size_t>(kThreads) * kVectorsPerThread * 4;
  const std::size_t wanted = std::max<std::size_t>(1, wb::ceil_div(count, per_block));
  return static_cast<int>(std::min<std::size_t>(wanted, static_cast<std::size_t>(sms) * kBlocksPerSm));
}

// Chunk c of n: [begin, end) of the buffer.
struct ChunkRange {
  std::size_t begin, end;
};

// (maybe_unused: the stub does not call it until its ring is written.)
[[maybe_unused]] ChunkRange chunk_range(int c, int n, std::size_t count) {
  // because chunk boundaries at multiples of 4 floats keep every chunk 16-byte aligned; the last chunks
  // take what is left (possibly nothing).
  const std::size_t chunk = wb::ceil_div(wb::ceil_div(count, static_cast<std::size_t>(n)), std::size_t(4)) * 4;
  const std::size_t begin = std::min(count, static_cast<std::size_t>(c) * chunk);
  return {begin, std::min(count, begin + chunk)};
}

}  // namespace

void ring_allreduce(const float* const* send, float* const* recv, std::size_t count, p6::RankGroup& group) {
  const int n = group.size();
  if (count == 0) return;
  if (n == 1) {
    p6::DeviceScope scope(group.device(0));
    if (send[0] != recv[0])
      CUDA_CHECK(cudaMemcpyAsync(recv[0], send[0], count * sizeof(float), cudaMemcpyDeviceToDevice, group.stream(0)));
    return;
  }
  if (2 * (n - 1) > p6::RankGroup::kEventsPerRank) throw std::invalid_argument("ring_allreduce: too many ranks");
  // because every rank's input may still be in flight on its own stream.
  group.barrier();
  for (int step = 0; step < 2 * (n - 1); ++step) {
    for (int q = 0; q < n; ++q) {
      const int up = (q + n - 1) % n;  // the upstream neighbour q reads from
      p6::DeviceScope scope(group.device(q));
      // because step s of q reads what its upstream neighbour wrote at step s - 1.
      if (step > 0) CUDA_CHECK(cudaStreamWaitEvent(group.stream(q), group.event(up, step - 1), 0));
      const bool reduce = step < n - 1;
      // because in the reduce-scatter q adds into chunk q - 1 - s, which its neighbour summed at s - 1, and
      // ends owning chunk q + 1; in the all-gather q copies chunk q - t, which its neighbour finished at t - 1.
      const int c = reduce ? ((q - 1 - step) % n + 2 * n) % n : ((q - (step - (n - 1))) % n + 2 * n) % n;
      const ChunkRange range = chunk_range(c, n, count);
      const std::size_t len = range.end - range.begin;
      if (len > 0) {
        const int blocks = blocks_for(len, group.device(q));
        if (reduce) {
          const float* theirs = (step == 0 ? send[up] : recv[up]) + range.begin;
          ring_step_kernel<true>
              <<<blocks, kThreads, 0, group.stream(q)>>>(recv[q] + range.begin, send[q] + range.begin, theirs, len);
        } else {
          ring_step_kernel<false>
              <<<blocks, kThreads, 0, group.stream(q)>>>(recv[q] + range.begin, nullptr, recv[up] + range.begin, len);
        }
        CUDA_CHECK_KERNEL();
      }
      CUDA_CHECK(cudaEventRecord(group.event(q, step), group.stream(q)));
    }
  }
  // because a rank's buffers are read by its downstream neighbour until that one's last step.
  group.barrier();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

int ring_allreduce_lesson(wb::Lesson& lesson) {
  // Napkin math: a ring all-reduce moves 2 (n - 1) / n of the buffer over every link, each direction;
  // 256 MiB on two GPUs is 256 MiB each way, 0.7 ms at NV18's ~370 GB/s per direction.
  const std::size_t count = lesson.size_or(std::size_t(64) << 20);
  const int gpus = p6::visible_gpu_count();
  const bool real = gpus >= 2;
  const int n = real ? std::min(gpus, 8) : 4;
  lesson.require_memory(3.0 * 4.0 * static_cast<double>(count) * (real ? 1 : n), 3.0 * 4.0 * count * n);
  p6::RankGroup group = real ? p6::RankGroup::real(n) : p6::RankGroup::virtual_ranks(n, 0);
  std::printf("ranks: %s\n", group.describe().c_str());
  std::vector<float> expected(count, 0.0f);
  p6::RankBuffers<float> send(group, count), recv(group, count);
  for (int r = 0; r < n; ++r) {
    // Small integers in float: every sum over up to 8 ranks is exact, so each element is checked exactly.
    const std::vector<int> ints = wb::random_ints(count, lesson.seed() + static_cast<std::uint64_t>(r), -8, 8);
    const std::vector<float> input(ints.begin(), ints.end());
    for (std::size_t i = 0; i < count; ++i) expected[i] += input[i];
    send.upload(r, input);
  }
  auto verify = [&](const std::string& what) {
    bool ok = true;
    for (int r = 0; r < n && ok; ++r) {
      const std::vector<float> got = recv.download(r);
      std::size_t bad = 0, first = count;
      for (std::size_t i = 0; i < count; ++i)
        if (got[i] != expected[i]) {
          if (bad++ == 0) first = i;
        }
      const std::string guards = recv.check_guards(r, what);
      if (bad > 0) {
        std::fprintf(stderr, "%s: rank %d: %zu of %zu elements wrong, the first at [%zu]: expected %g, got %g\n",
                     what.c_str(), r, bad, count, first, expected[first], got[first]);
        wb::note_check_failure(
            what, wb::same_bits(got[first], wb::poison_value<float>()) ? "output untouched" : "wrong sums");
        ok = false;
      }
      if (!guards.empty()) {
        std::fprintf(stderr, "%s", guards.c_str());
        wb::note_check_failure(what, "wrote outside its buffer");
        ok = false;
      }
    }
    return ok;
  };
  recv.fill(wb::poison_value<float>());
  ring_allreduce(send.const_pointers(), recv.pointers(), count, group);
  group.synchronize();
  bool pass = verify("ring_allreduce");
  if (!real) {
    std::printf("ring_allreduce on %d virtual ranks: %s\n", n, pass ? "PASS" : "FAIL");
    if (!pass) return wb::kExitFail;
    return p6::skip_unless_gpus(lesson.id(), lesson.name(), 2, "the comparison with NCCL runs on real GPUs");
  }
  const double bytes = 4.0 * static_cast<double>(count);
  const wb::BenchOptions options = lesson.bench_options(false);
  const wb::TimingStats ring_time =
      p6::bench_group(group, options, [&] { ring_allreduce(send.const_pointers(), recv.pointers(), count, group); });
  pass = verify("ring_allreduce (after timing)") && pass;

  // NCCL on the same buffers, checked like yours (into the same outputs, poisoned first).
  p6::NcclComms comms(group);
  recv.fill(wb::poison_value<float>());
  comms.allreduce_sum(send.const_pointers(), recv.pointers(), count);
  group.synchronize();
  const bool nccl_ok = verify("ncclAllReduce");
  const wb::TimingStats nccl_time =
      p6::bench_group(group, options, [&] { comms.allreduce_sum(send.const_pointers(), recv.pointers(), count); });
  const double nccl_busbw = p6::allreduce_busbw_gbs(bytes, nccl_time.median_ms, n);
  std::printf("NCCL %s ncclAllReduce  n=%s x%d  %.3f ms  algbw %.0f GB/s  busbw %.0f GB/s  %s\n",
              p6::nccl_version().c_str(), wb::format_count(count).c_str(), n, nccl_time.median_ms,
              p6::algbw_gbs(bytes, nccl_time.median_ms), nccl_busbw, nccl_ok ? "PASS" : "FAIL");

  wb::ResultLine line;
  line.id = lesson.id();
  line.name = "ring_allreduce";
  line.problem = "n=" + wb::format_count(count) + " x" + std::to_string(n) + " " + p6::link_label(0, 1);
  line.time = ring_time;
  line.rate = p6::allreduce_busbw_gbs(bytes, ring_time.median_ms, n);
  line.unit = wb::RateUnit::GBps;
  line.peak_label = p6::link_label(0, 1) + " bound";
  wb::set_peak(line, p6::nvlink_bound_gbs(0, 1));
  line.ref_value = nccl_busbw > 0 ? 100.0 * line.rate / nccl_busbw : 0.0;
  line.ref_label = "NCCL busbw";
  line.pass = pass;
  lesson.report(line);
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(ring_allreduce_lesson, "ring all-reduce over peer access, against NCCL");
