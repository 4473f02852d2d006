// SPDX-License-Identifier: MIT
// 6.01 peer_access: one GPU reading another's memory, against the copy engines and the links' bound.
//
// You learn: what peer access is (a kernel on one GPU dereferencing a pointer into another GPU's memory,
// over NVLink or PCIe, once the driver has mapped it) and how to turn it on; how a copy kernel that
// loads from the peer compares with cudaMemcpyPeerAsync (the copy engines) in one direction and in both
// at once; why it needs many loads in flight (a load that crosses the link waits a microsecond or more);
// what the links can carry (nvidia-smi topo -m: NV18 is 18 NVLinks) and what the path without peer
// access costs (staged through host memory).
// Task: enable peer access, then write the copy kernel that reads the peer (its launcher is given).
// Source: CUDA C++ Programming Guide, "Peer-to-Peer Memory Access"; NVIDIA's p2pBandwidthLatencyTest
// (cuda-samples).
// You decide: how many 16-byte loads each thread keeps in flight, and how many blocks; what happens
//             to the floats past the last whole vector and to buffers that do not start on 16 bytes.
// Run:   ./workbook run 6.01 [-- --size 64M]
// Check: ./workbook check 6.01
// Aim:   >= 90% of cudaMemcpyPeerAsync one way (about 72% of the NVLink bound on an H100 pair).
// Previous: 5.08 flash_hopper (the last rung on one GPU). Next: 6.02 ring_allreduce.

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

constexpr int kThreads = 512;
constexpr int kVectorsPerThread = 8;  // 16-byte peer loads in flight per thread per iteration
constexpr int kBlocksPerSm = 4;

// ---- kernels ----------------------------------------------------------------------------------------

// dst[i] = src[i]: src on the peer, dst here. Every load of src crosses the link and waits about a
// microsecond: the link stays busy only if the whole GPU keeps tens of thousands of them outstanding.
__global__ void peer_copy_read_kernel(float* dst, const float* src, std::size_t count) {
  // TODO(6.01): copy the count floats of src (the peer's memory) to dst: 16-byte loads where both
  //             addresses allow them, several of them in flight per thread before the first store waits,
  //             a loop that covers any count with any grid, and the floats past the last whole vector
  //             (or all of them, when an address is not on 16 bytes) one by one (about 25 lines).
  (void)dst, (void)src, (void)count;  // TODO(6.01): delete: it only silences unused-parameter warnings
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void enable_peer_access(int device, int peer) {
  // TODO(6.01): let kernels running on `device` read and write `peer`'s memory; calling it again for a
  //             pair that is already enabled must succeed, and must leave no error behind (about 6 lines).
  (void)device, (void)peer;  // TODO(6.01): delete: it only silences unused-parameter warnings
}

void peer_copy_read(float* dst, const float* src, std::size_t count, cudaStream_t stream) {
  if (count == 0) return;
  cudaPointerAttributes where{};
  CUDA_CHECK(cudaPointerGetAttributes(&where, dst));
  const int device = where.device;  // dst lives on the stream's device
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  p6::DeviceScope scope(device);
  const std::size_t per_block = static_cast<std::size_t>(kThreads) * kVectorsPerThread * 4;
  const int blocks = static_cast<int>(
      std::min<std::size_t>(wb::ceil_div(count, per_block), static_cast<std::size_t>(sms) * kBlocksPerSm));
  peer_copy_read_kernel<<<blocks, kThreads, 0, stream>>>(dst, src, count);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

int peer_access_lesson(wb::Lesson& lesson) {
  if (const int skip = p6::skip_unless_gpus(lesson.id(), lesson.name(), 2, "it copies between GPUs 0 and 1"))
    return skip;
  // Napkin math: 256 MiB over NV18 (18 links x 26.6 GB/s = 478 GB/s per direction) is 0.56 ms at the
  // bound; the copy engines reach about 385 GB/s on an H100 pair.
  const std::size_t count = lesson.size_or(std::size_t(64) << 20);
  lesson.require_memory(3.0 * 4.0 * static_cast<double>(count), 2.0 * 4.0 * static_cast<double>(count));
  const double bytes = 4.0 * static_cast<double>(count);
  enable_peer_access(0, 1);
  enable_peer_access(1, 0);
  const bool enabled = p6::peer_access_enabled(0, 1) && p6::peer_access_enabled(1, 0);
  if (!enabled) wb::note_check_failure("enable_peer_access", "peer access not enabled both ways");
  p6::RankGroup group = p6::RankGroup::real(2);  // streams on GPUs 0 and 1 (it enables access too)
  std::printf("GPUs 0 and 1: %s, %s\n", group.describe().c_str(), p6::link_label(0, 1).c_str());
  const std::vector<float> host0 = wb::random_floats(count, lesson.seed());
  const std::vector<float> host1 = wb::random_floats(count, lesson.seed() + 1);
  p6::RankBuffers<float> src(group, count), dst(group, count);  // src[r], dst[r] on GPU r
  src.upload(0, host0);
  src.upload(1, host1);
  // dst[r] must equal the other GPU's src.
  auto verify = [&](const std::string& what, int r) {
    const std::vector<float> got = dst.download(r);
    const std::vector<float>& want = r == 1 ? host0 : host1;
    const std::size_t bad =
        count - static_cast<std::size_t>(std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin());
    const std::string guards = dst.check_guards(r, what);
    if (bad > 0) {
      std::fprintf(stderr, "%s: GPU %d's copy differs from index %zu on\n", what.c_str(), r, count - bad);
      wb::note_check_failure(what, "copy wrong");
    }
    if (!guards.empty()) {
      std::fprintf(stderr, "%s", guards.c_str());
      wb::note_check_failure(what, "wrote past the end");
    }
    return bad == 0 && guards.empty();
  };
  const wb::BenchOptions options = lesson.bench_options(false);
  const double bound = p6::nvlink_bound_gbs(1, 0);
  const std::string bound_label = p6::link_label(0, 1) + " bound";
  auto line_for = [&](const std::string& name, const wb::TimingStats& t, double moved, double peak,
                      double reference_gbs, const std::string& reference, bool pass) {
    wb::ResultLine line;
    line.id = lesson.id();
    line.name = name;
    line.problem = "n=" + wb::format_count(count) + (moved > bytes ? " both ways" : " one way");
    line.time = t;
    line.rate = p6::algbw_gbs(moved, t.median_ms);
    line.peak_label = bound_label;
    wb::set_peak(line, peak);
    line.ref_value = reference_gbs > 0 ? 100.0 * line.rate / reference_gbs : 0.0;
    line.ref_label = reference;
    line.pass = pass;
    lesson.report(line);
    return pass;
  };

  // The copy engines, one way and both ways, as the yardstick.
  auto engine_one = [&] {
    p6::DeviceScope scope(1);
    CUDA_CHECK(cudaMemcpyPeerAsync(dst[1], 1, src[0], 0, count * sizeof(float), group.stream(1)));
  };
  auto engine_both = [&] {
    engine_one();
    p6::DeviceScope scope(0);
    CUDA_CHECK(cudaMemcpyPeerAsync(dst[0], 0, src[1], 1, count * sizeof(float), group.stream(0)));
  };
  const double engine_one_gbs = p6::algbw_gbs(bytes, p6::bench_group(group, options, engine_one).median_ms);
  const double engine_both_gbs = p6::algbw_gbs(2 * bytes, p6::bench_group(group, options, engine_both).median_ms);
  std::printf("cudaMemcpyPeerAsync: %.0f GB/s one way, %.0f GB/s both ways together\n", engine_one_gbs,
              engine_both_gbs);

  // Your kernel: GPU 1 reads GPU 0, then both read each other at once.
  auto kernel_one = [&] { peer_copy_read(dst[1], src[0], count, group.stream(1)); };
  auto kernel_both = [&] {
    kernel_one();
    peer_copy_read(dst[0], src[1], count, group.stream(0));
  };
  bool pass = enabled;
  dst.fill(wb::poison_value<float>());
  kernel_both();
  group.synchronize();
  pass = verify("peer_copy_read", 1) && verify("peer_copy_read", 0) && pass;
  const wb::TimingStats one = p6::bench_group(group, options, kernel_one);
  const wb::TimingStats both = p6::bench_group(group, options, kernel_both);
  pass = verify("peer_copy_read (after timing)", 1) && verify("peer_copy_read (after timing)", 0) && pass;

  // Without peer access: through pinned host memory, down one bus and up the other.
  wb::PinnedBuffer<float> staging(count);
  auto staged = [&] {
    p6::DeviceScope scope(1);
    CUDA_CHECK(cudaMemcpyAsync(staging.data(), src[0], count * sizeof(float), cudaMemcpyDeviceToHost, group.stream(1)));
    CUDA_CHECK(cudaMemcpyAsync(dst[1], staging.data(), count * sizeof(float), cudaMemcpyHostToDevice, group.stream(1)));
  };
  const double staged_gbs = p6::algbw_gbs(bytes, p6::bench_group(group, options, staged).median_ms);
  std::printf("without peer access (staged through pinned host memory): %.0f GB/s one way\n", staged_gbs);

  line_for("peer_copy_read", one, bytes, bound, engine_one_gbs, "memcpyPeer", pass);
  line_for("peer_copy_read", both, 2 * bytes, 2 * bound, engine_both_gbs, "memcpyPeer", pass);
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(peer_access_lesson, "peer access: a kernel that reads another GPU's memory");
