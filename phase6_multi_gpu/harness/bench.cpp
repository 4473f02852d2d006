// SPDX-License-Identifier: MIT
// p6_bench: phase 6's reference launchers on every visible GPU (two or more; with fewer it prints one
// line and exits 77): 6.01's peer_copy_read between GPUs 0 and 1, one way and both ways, against
// cudaMemcpyPeerAsync; 6.02's ring_allreduce on all GPUs against NCCL's ncclAllReduce, as nccl-tests'
// bus bandwidth; 6.03's NCCL collectives (an all-reduce sweep from 4 KiB to 1 GiB against the ring, the
// other three collectives at each size); 6.04's overlapped step against its bound, max(backward alone,
// all-reduce alone); 6.05's tensor-parallel MLP step against one GPU's (GFLOP/s in the rate column); 6.06's
// ring attention against the same kernels on one GPU (GFLOP/s in the rate column, its percentage of
// the reference is the speed-up x 100).
// Every output checked exactly (random floats copied; small integers summed), the MLP and the ring
// attention on sampled rows against their FP64 references and tolerances. Writes the result CSV
// (common/result_csv.h): the gpus column says how many GPUs a row used, the note the link.
//   p6_bench [--sizes 64M,4M] [--repeat N] [--out p6_bench.csv]
// --sizes are float counts (64M floats: 256 MiB).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/args.h"
#include "common/bench_tool.h"
#include "common/buffer.h"
#include "common/check.h"
#include "common/data.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/report.h"
#include "common/timer.h"
#include "phase5_attention/harness/reference.h"
#include "phase6_multi_gpu/harness/lesson_support.h"
#include "phase6_multi_gpu/harness/nccl_support.h"
#include "phase6_multi_gpu/harness/topology.h"
#include "phase6_multi_gpu/multi_gpu.cuh"

namespace {

const wb::BenchToolSpec kTool = {
    "p6_bench",
    "usage: p6_bench [--sizes 64M,4M] [--repeat N] [--out p6_bench.csv]\n"
    "Times 6.01's peer_copy_read between GPUs 0 and 1 against cudaMemcpyPeerAsync, and 6.02's ring_allreduce\n"
    "on every visible GPU against NCCL's ncclAllReduce (bus bandwidth as nccl-tests counts it), 6.03's NCCL\n"
    "collectives (an all-reduce sweep from 4 KiB to 1 GiB against the ring; reduce-scatter, all-gather and\n"
    "broadcast at each size), checks every output, and writes the results as CSV. Needs two or more GPUs.\n",
    {"--sizes"},
    10,
    "p6_bench.csv"};

struct Row {
  std::string id, kernel;
  std::size_t count;
  int gpus;
  wb::TimingStats time;
  double gbps, peak_pct, ref_pct;
  std::string reference, status;
};

// The row as a row of the result CSV. GB/s rows are bandwidths as nccl-tests counts them (algorithm or bus
// bandwidth), their peak the link's bound; the MLP and ring-attention rows are GFLOP/s against the peak of
// all the GPUs they use.
wb::ResultRow result_row(const Row& r, const std::string& link) {
  const bool gflops = r.reference.find("one GPU") != std::string::npos;
  const bool bf16 = r.kernel.find("mlp") != std::string::npos;
  wb::ResultRow row = wb::bench_row(r.status == "REF" ? "library" : "solution", r.kernel,
                                    "n=" + wb::format_count(r.count), bf16 ? "bf16" : "fp32", r.time);
  row.id = r.id == "ref" ? "-" : r.id;
  row.gpus = r.gpus;
  row.rate = r.gbps;
  row.rate_unit = gflops ? "GFLOP/s" : "GB/s";
  row.peak_known = r.peak_pct > 0;
  row.peak_pct = r.peak_pct;
  row.peak_label = gflops ? (bf16 ? "BF16 peak" : "FP32 peak") : link + " bound";
  wb::set_reference(row, r.reference, r.ref_pct);
  row.status = r.status == "REF" ? "PASS" : r.status;
  row.note = link;
  return row;
}

// What every section of the bench shares: the GPUs, NCCL's communicators, the timing options, the
// link between GPUs 0 and 1 and its bound, and the rows so far (each printed as it is added).
struct Bench {
  p6::RankGroup& group;
  p6::NcclComms& comms;
  wb::BenchOptions options;
  std::string link;
  double bound;
  int n;
  std::vector<Row> rows;

  // One exercise's rows each (below), in the order main runs them.
  void peer_copy_rows(std::size_t count);
  void allreduce_rows(std::size_t count);
  void collective_rows(const std::vector<std::size_t>& sizes);
  void overlap_rows(std::size_t first_size);
  void tensor_parallel_rows();
  void ring_attention_rows();

  // A GB/s figure as a percentage of the link's bound (0 where the bound is unknown).
  double percent_of_bound(double gbs) const { return bound > 0 ? 100.0 * gbs / bound : 0; }

  void add(Row row) {
    std::printf("%-5s %-26s n=%-6s x%d %9.3f ms %7.0f GB/s %5.0f%% %s bound %6.1f%% of %s  %s\n", row.id.c_str(),
                row.kernel.c_str(), wb::format_count(row.count).c_str(), row.gpus, row.time.median_ms, row.gbps,
                row.peak_pct, link.c_str(), row.ref_pct, row.reference.c_str(), row.status.c_str());
    std::fflush(stdout);
    rows.push_back(std::move(row));
  }
};

// 6.01: GPU 1 reads GPU 0, then both ways at once.
void Bench::peer_copy_rows(std::size_t count) {
  const double bytes = 4.0 * static_cast<double>(count);
  p6::RankBuffers<float> src(group, count), dst(group, count);
  const std::vector<float> host = wb::random_floats(count, wb::kDefaultSeed);
  for (int r = 0; r < 2; ++r) src.upload(r, host);
  auto engine_one = [&] {
    p6::DeviceScope scope(1);
    CUDA_CHECK(cudaMemcpyPeerAsync(dst[1], 1, src[0], 0, count * sizeof(float), group.stream(1)));
  };
  auto engine_both = [&] {
    engine_one();
    p6::DeviceScope scope(0);
    CUDA_CHECK(cudaMemcpyPeerAsync(dst[0], 0, src[1], 1, count * sizeof(float), group.stream(0)));
  };
  auto kernel_one = [&] { peer_copy_read(dst[1], src[0], count, group.stream(1)); };
  auto kernel_both = [&] {
    kernel_one();
    peer_copy_read(dst[0], src[1], count, group.stream(0));
  };
  const wb::TimingStats e1 = p6::bench_group(group, options, engine_one);
  const wb::TimingStats e2 = p6::bench_group(group, options, engine_both);
  dst.fill(wb::poison_value<float>());
  const wb::TimingStats k1 = p6::bench_group(group, options, kernel_one);
  const wb::TimingStats k2 = p6::bench_group(group, options, kernel_both);
  const bool ok = dst.download(0) == host && dst.download(1) == host;
  const double e1_gbs = p6::algbw_gbs(bytes, e1.median_ms), e2_gbs = p6::algbw_gbs(2 * bytes, e2.median_ms);
  const double k1_gbs = p6::algbw_gbs(bytes, k1.median_ms), k2_gbs = p6::algbw_gbs(2 * bytes, k2.median_ms);
  const double pct1 = percent_of_bound(k1_gbs), pct2 = bound > 0 ? 50.0 * k2_gbs / bound : 0;
  add(Row{"ref", "cudaMemcpyPeerAsync", count, 2, e1, e1_gbs, percent_of_bound(e1_gbs), 100.0, "memcpyPeer", "REF"});
  add(Row{"6.01", "peer_copy_read", count, 2, k1, k1_gbs, pct1, 100.0 * k1_gbs / e1_gbs, "memcpyPeer",
          ok ? "PASS" : "FAIL"});
  add(Row{"ref", "cudaMemcpyPeerAsync_both", count, 2, e2, e2_gbs, bound > 0 ? 50.0 * e2_gbs / bound : 0, 100.0,
          "memcpyPeer", "REF"});
  add(Row{"6.01", "peer_copy_read_both", count, 2, k2, k2_gbs, pct2, 100.0 * k2_gbs / e2_gbs, "memcpyPeer",
          ok ? "PASS" : "FAIL"});
}

// 6.02: every GPU, against NCCL on the same buffers; small integers, so every sum is exact.
void Bench::allreduce_rows(std::size_t count) {
  const double bytes = 4.0 * static_cast<double>(count);
  p6::RankBuffers<float> send(group, count), recv(group, count);
  std::vector<float> expected(count, 0.0f);
  for (int r = 0; r < n; ++r) {
    const std::vector<int> ints = wb::random_ints(count, wb::kDefaultSeed + static_cast<std::uint64_t>(r), -8, 8);
    const std::vector<float> input(ints.begin(), ints.end());
    for (std::size_t i = 0; i < count; ++i) expected[i] += input[i];
    send.upload(r, input);
  }
  auto all_right = [&] {
    for (int r = 0; r < n; ++r)
      if (recv.download(r) != expected) return false;
    return true;
  };
  auto nccl = [&] { comms.allreduce_sum(send.const_pointers(), recv.pointers(), count); };
  auto ring = [&] { ring_allreduce(send.const_pointers(), recv.pointers(), count, group); };
  recv.fill(wb::poison_value<float>());
  const wb::TimingStats tn = p6::bench_group(group, options, nccl);
  const bool nccl_ok = all_right();
  recv.fill(wb::poison_value<float>());
  const wb::TimingStats tr = p6::bench_group(group, options, ring);
  const bool ring_ok = all_right();
  const double nb = p6::allreduce_busbw_gbs(bytes, tn.median_ms, n);
  const double rb = p6::allreduce_busbw_gbs(bytes, tr.median_ms, n);
  add(Row{"ref", "ncclAllReduce", count, n, tn, nb, percent_of_bound(nb), 100.0, "NCCL busbw",
          nccl_ok ? "REF" : "FAIL"});
  add(Row{"6.02", "ring_allreduce", count, n, tr, rb, percent_of_bound(rb), 100.0 * rb / nb, "NCCL busbw",
          ring_ok ? "PASS" : "FAIL"});
}

// 6.03: the solution's communicators and group calls; its all-reduce from 4 KiB to 1 GiB against
// 6.02's ring (latency first, bandwidth later), and the other three collectives at each --sizes size.
void Bench::collective_rows(const std::vector<std::size_t>& sizes) {
  const std::vector<ncclComm_t> solution_comms = nccl_comms_one_process(group);
  const std::size_t top = std::size_t(1) << 28;  // floats: 1 GiB
  p6::RankBuffers<float> send(group, top), recv(group, top);
  send.fill(1.0f);
  // Every input is 1: an all-reduce or reduce-scatter gives n everywhere, an all-gather or broadcast 1.
  auto right = [&](std::size_t floats, float value) {
    for (int r = 0; r < n; ++r) {
      const std::vector<float> got = recv.download(r);
      for (std::size_t i = 0; i < floats; ++i)
        if (got[i] != value) return false;
    }
    return true;
  };
  auto run = [&](p6::Collective op, std::size_t count) {
    return p6::bench_group(group, options, [&] {
      nccl_collective(op, send.const_pointers(), recv.pointers(), count, 0, solution_comms, group);
    });
  };
  for (std::size_t bytes = 4096; bytes <= 4 * top; bytes *= 16) {
    const std::size_t count = bytes / 4;
    recv.fill(wb::poison_value<float>());
    const wb::TimingStats tn = run(p6::Collective::AllReduce, count);
    const bool nccl_ok = right(count, static_cast<float>(n));
    recv.fill(wb::poison_value<float>());
    const wb::TimingStats tr =
        p6::bench_group(group, options, [&] { ring_allreduce(send.const_pointers(), recv.pointers(), count, group); });
    const bool ring_ok = right(count, static_cast<float>(n));
    const double nb = collective_busbw_gbs(p6::Collective::AllReduce, static_cast<double>(bytes), tn.median_ms, n);
    const double rb = p6::allreduce_busbw_gbs(static_cast<double>(bytes), tr.median_ms, n);
    add(Row{"6.02", "ring_allreduce_sweep", count, n, tr, rb, percent_of_bound(rb), 100.0 * rb / nb, "NCCL busbw",
            ring_ok ? "PASS" : "FAIL"});
    add(Row{"6.03", "nccl_allreduce_sweep", count, n, tn, nb, percent_of_bound(nb), 100.0 * nb / rb, "ring busbw",
            nccl_ok ? "PASS" : "FAIL"});
  }
  for (std::size_t size : sizes) {
    const std::size_t floats = std::min(size, top) / static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    const wb::TimingStats ta = run(p6::Collective::AllReduce, floats);
    const double ab = collective_busbw_gbs(p6::Collective::AllReduce, 4.0 * floats, ta.median_ms, n);
    for (p6::Collective op : {p6::Collective::ReduceScatter, p6::Collective::AllGather, p6::Collective::Broadcast}) {
      const bool per_rank = op != p6::Collective::Broadcast;
      const std::size_t count = per_rank ? floats / static_cast<std::size_t>(n) : floats;
      recv.fill(wb::poison_value<float>());
      const wb::TimingStats t = run(op, count);
      const bool ok =
          right(p6::recv_floats(op, count, n), op == p6::Collective::ReduceScatter ? static_cast<float>(n) : 1.0f);
      const double busbw = collective_busbw_gbs(op, 4.0 * floats, t.median_ms, n);
      add(Row{"6.03", std::string("nccl_") + p6::collective_name(op), floats, n, t, busbw, percent_of_bound(busbw),
              ab > 0 ? 100.0 * busbw / ab : 0, "all-reduce busbw", ok ? "PASS" : "FAIL"});
    }
  }
  for (std::size_t r = 0; r < solution_comms.size(); ++r) {
    p6::DeviceScope scope(group.device(static_cast<int>(r)));
    CUDA_CHECK(cudaStreamSynchronize(group.stream(static_cast<int>(r))));
    ncclCommDestroy(solution_comms[r]);
  }
}

// 6.04: the overlapped step (16 layers, the first size's floats of gradients per rank, buckets of its
// own choice) against its bound: the backward alone and NCCL's all-reduce of everything alone, the
// larger of the two; the serial step beside it. Small integers, so every sum is checked exactly.
void Bench::overlap_rows(std::size_t first_size) {
  const std::size_t count = std::max<std::size_t>(first_size, 16);
  std::vector<std::size_t> layer_sizes;
  std::size_t used = 0;
  for (int l = 0; l < 16; ++l) {
    const std::size_t s = l < 15 ? count * static_cast<std::size_t>(l + 1) / 136 : count - used;
    layer_sizes.push_back(s);
    used += s;
  }
  std::vector<std::vector<float>> inputs;
  std::vector<float> expected(count, 0.0f);
  for (int r = 0; r < n; ++r) {
    const std::vector<int> ints = wb::random_ints(count, wb::kDefaultSeed + static_cast<std::uint64_t>(r), -8, 8);
    inputs.emplace_back(ints.begin(), ints.end());
    for (std::size_t i = 0; i < count; ++i) expected[i] += inputs.back()[i];
  }
  p6::BackwardModel model(group, layer_sizes, 1024, inputs);  // 6.04 lesson's work
  inputs.clear();
  p6::RankBuffers<float> grad(group, count);
  p6::GradientComm gcomm(group);
  float* const* g = grad.pointers();
  auto join = [&](bool to_comm) {
    for (int r = 0; r < n; ++r) {
      p6::DeviceScope scope(group.device(r));
      if (to_comm) {
        CUDA_CHECK(cudaEventRecord(group.event(r, 0), group.stream(r)));
        CUDA_CHECK(cudaStreamWaitEvent(gcomm.stream(r), group.event(r, 0), 0));
      } else {
        CUDA_CHECK(cudaEventRecord(gcomm.event(r, 0), gcomm.stream(r)));
        CUDA_CHECK(cudaStreamWaitEvent(group.stream(r), gcomm.event(r, 0), 0));
      }
    }
  };
  auto backward = [&] {
    for (int l = model.layers() - 1; l >= 0; --l)
      for (int r = 0; r < n; ++r) model.backward(r, l, g[r], group.stream(r));
  };
  auto reduce_all = [&] {
    join(true);
    gcomm.allreduce_sum(g, 0, count);
    join(false);
  };
  const wb::TimingStats tc = p6::bench_group(group, options, backward);
  const wb::TimingStats ta = p6::bench_group(group, options, reduce_all);
  const wb::TimingStats ts = p6::bench_group(group, options, [&] {
    backward();
    reduce_all();
  });
  grad.fill(wb::poison_value<float>());
  const wb::TimingStats to = p6::bench_group(group, options, [&] { overlap_step(model, g, 0, group, gcomm); });
  bool ok = true;
  for (int r = 0; r < n; ++r) ok = ok && grad.download(r) == expected;
  const wb::TimingStats& tb = tc.median_ms >= ta.median_ms ? tc : ta;
  const double bytes = 4.0 * static_cast<double>(count);
  auto bus = [&](const wb::TimingStats& t) { return p6::allreduce_busbw_gbs(bytes, t.median_ms, n); };
  add(Row{"ref", "overlap_bound", count, n, tb, bus(tb), percent_of_bound(bus(tb)), 100.0, "overlap bound", "REF"});
  add(Row{"ref", "serial_step", count, n, ts, bus(ts), percent_of_bound(bus(ts)), 100.0 * tb.median_ms / ts.median_ms,
          "overlap bound", "REF"});
  add(Row{"6.04", "overlap_step", count, n, to, bus(to), percent_of_bound(bus(to)), 100.0 * tb.median_ms / to.median_ms,
          "overlap bound", ok ? "PASS" : "FAIL"});
}

// 6.05: the tensor-parallel MLP step on every GPU against the whole MLP on GPU 0, 8192x8192x32768.
// Its rate column is GFLOP/s (4 T D H per step), its peak n x the BF16 tensor peak, its reference the
// one-GPU step (a percentage of its time: 180% = 1.8x faster).
void Bench::tensor_parallel_rows() {
  const p6::MlpShape shape{8192, 8192, 32768};
  const std::size_t TD = shape.tokens * shape.model, DH = shape.model * shape.hidden;
  p6::MlpEngine engine(group);
  wb::DeviceBuffer<p6::bf16> x_full, w1_full, w2_full, hidden_full;
  wb::DeviceBuffer<float> y_one;
  std::vector<p6::bf16> x(TD), w1(DH), w2(DH);
  {
    p6::DeviceScope scope(0);
    x_full = wb::DeviceBuffer<p6::bf16>(TD);
    w1_full = wb::DeviceBuffer<p6::bf16>(DH);
    w2_full = wb::DeviceBuffer<p6::bf16>(DH);
    hidden_full = wb::DeviceBuffer<p6::bf16>(shape.tokens * shape.hidden);
    y_one = wb::DeviceBuffer<float>(TD);
    p6::fill_uniform_bf16(x_full.data(), TD, wb::kDefaultSeed, 1.0f, group.stream(0));
    p6::fill_uniform_bf16(w1_full.data(), DH, wb::kDefaultSeed + 1, 2.0f / 90.5f, group.stream(0));
    p6::fill_uniform_bf16(w2_full.data(), DH, wb::kDefaultSeed + 2, 2.0f / 181.0f, group.stream(0));
    CUDA_CHECK(cudaStreamSynchronize(group.stream(0)));
    CUDA_CHECK(cudaMemcpy(x.data(), x_full.data(), TD * sizeof(p6::bf16), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(w1.data(), w1_full.data(), DH * sizeof(p6::bf16), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(w2.data(), w2_full.data(), DH * sizeof(p6::bf16), cudaMemcpyDeviceToHost));
  }
  std::vector<wb::DeviceBuffer<p6::bf16>> xs, w1s, w2s, hiddens;
  std::vector<const p6::bf16*> xp, w1p, w2p;
  std::vector<p6::bf16*> hp;
  for (int r = 0; r < n; ++r) {
    p6::DeviceScope scope(group.device(r));
    xs.emplace_back(x);
    w1s.emplace_back(shard_w1(w1, shape, r, n));
    w2s.emplace_back(shard_w2(w2, shape, r, n));
    hiddens.emplace_back(shape.tokens * shape.hidden / static_cast<std::size_t>(n));
    xp.push_back(xs.back().data());
    w1p.push_back(w1s.back().data());
    w2p.push_back(w2s.back().data());
    hp.push_back(hiddens.back().data());
  }
  p6::RankBuffers<float> y(group, TD);
  auto one = [&] {
    mlp_one_gpu(engine, 0, x_full.data(), w1_full.data(), w2_full.data(), hidden_full.data(), y_one.data(), shape);
  };
  auto split = [&] {
    tensor_parallel_mlp(xp.data(), w1p.data(), w2p.data(), hp.data(), y.pointers(), shape, engine, comms);
  };
  const wb::TimingStats t1 = p6::bench_group(group, options, one);
  const wb::TimingStats tn = p6::bench_group(group, options, split);
  std::vector<double> ref, tol;
  p6::mlp_reference_row(x, w1, w2, shape, 0, &ref, &tol);
  const std::vector<float> got = y.download(n - 1);
  bool ok = true;
  for (std::size_t k = 0; k < shape.model; ++k) ok = ok && std::fabs(got[k] - ref[k]) <= tol[k];
  const double peak = wb::bf16_peak_gflops(wb::query_device(0));
  const double g1 = shape.flops() / t1.median_ms * 1e-6, gn = shape.flops() / tn.median_ms * 1e-6;
  add(Row{"ref", "mlp_one_gpu_gflops", TD, 1, t1, g1, peak > 0 ? 100.0 * g1 / peak : 0, 100.0, "one GPU", "REF"});
  add(Row{"6.05", "tensor_parallel_mlp_gflops", TD, n, tn, gn, peak > 0 ? 100.0 * gn / (n * peak) : 0,
          100.0 * t1.median_ms / tn.median_ms, "one GPU", ok ? "PASS" : "FAIL"});
}

// 6.06: ring attention on every GPU against the same kernels on GPU 0 alone (8 heads x 8192 x 128,
// FP32, non-causal), sampled rows checked against phase 5's CPU reference in double.
void Bench::ring_attention_rows() {
  p6::RingAttentionShape shape;
  shape.heads = 8;
  shape.seq = 8192;
  shape.d = 128;
  AttentionShape full;
  full.heads = shape.heads;
  full.seq_q = full.seq_k = shape.seq;
  full.d = shape.d;
  const p5::AttentionInputs in = p5::make_attention_inputs(full, p5::AttentionData::Uniform, wb::kDefaultSeed);
  auto shard_run = [&](p6::RankGroup& g, bool* ok) {
    const int m = g.size();
    const std::size_t chunk = static_cast<std::size_t>(p6::ring_chunk(shape.seq, m)) * shape.heads;
    const std::size_t d = static_cast<std::size_t>(shape.d);
    p6::RankBuffers<float> q(g, chunk * d), k(g, chunk * d), v(g, chunk * d), o(g, chunk * d), l(g, chunk);
    p6::RingKV kv(g, shape);
    for (int r = 0; r < m; ++r) {
      const std::size_t begin = static_cast<std::size_t>(p6::ring_begin(r, m, shape.seq));
      const std::size_t rows = static_cast<std::size_t>(p6::ring_rows(r, m, shape.seq));
      std::vector<float> qs(chunk * d, 0.0f), ks(chunk * d, 0.0f), vs(chunk * d, 0.0f);
      for (int h = 0; h < shape.heads; ++h)
        for (std::size_t i = 0; i < rows * d; ++i) {
          const std::size_t from = (static_cast<std::size_t>(h) * shape.seq + begin) * d + i;
          qs[static_cast<std::size_t>(h) * rows * d + i] = in.q[from];
          ks[static_cast<std::size_t>(h) * rows * d + i] = in.k[from];
          vs[static_cast<std::size_t>(h) * rows * d + i] = in.v[from];
        }
      q.upload(r, qs);
      k.upload(r, ks);
      v.upload(r, vs);
    }
    const wb::TimingStats t = p6::bench_group(g, options, [&] {
      ring_attention(q.const_pointers(), k.const_pointers(), v.const_pointers(), o.pointers(), l.pointers(), shape, g,
                     kv);
    });
    *ok = true;
    for (int row : {0, shape.seq / 2 + 1, shape.seq - 1}) {
      const int r = row / p6::ring_chunk(shape.seq, m), i = row - p6::ring_begin(r, m, shape.seq);
      const p5::RowReference ref = p5::attention_reference_row(full, in, 0, row);
      const p5::RowTolerance tol = p5::attention_row_tolerance(ref, shape.d, false);
      const std::vector<float> got_o = o.download(r), got_l = l.download(r);
      *ok = *ok && std::fabs(got_l[static_cast<std::size_t>(i)] - ref.lse) <= tol.l_abs;
      for (int c = 0; c < shape.d; ++c)
        *ok = *ok && std::fabs(got_o[static_cast<std::size_t>(i) * d + c] - ref.o[static_cast<std::size_t>(c)]) <=
                         tol.o_rel * ref.magnitude[static_cast<std::size_t>(c)] + tol.o_abs;
    }
    return t;
  };
  bool one_ok = false, ring_ok = false;
  p6::RankGroup one = p6::RankGroup::real(1);
  const wb::TimingStats t1 = shard_run(one, &one_ok);
  const wb::TimingStats tn = shard_run(group, &ring_ok);
  const double flop = 4.0 * shape.heads * static_cast<double>(shape.seq) * shape.seq * shape.d;
  const double peak = wb::fp32_peak_gflops(wb::query_device(0));
  const std::size_t tokens = static_cast<std::size_t>(shape.seq);
  add(Row{"ref", "ring_attention_one_gpu", tokens, 1, t1, flop / t1.median_ms / 1e6,
          peak > 0 ? 100.0 * flop / t1.median_ms / 1e6 / peak : 0, 100.0, "one GPU (GFLOP/s)",
          one_ok ? "REF" : "FAIL"});
  add(Row{"6.06", "ring_attention", tokens, n, tn, flop / tn.median_ms / 1e6,
          peak > 0 ? 100.0 * flop / tn.median_ms / 1e6 / (n * peak) : 0, 100.0 * t1.median_ms / tn.median_ms,
          "one GPU (GFLOP/s)", ring_ok ? "PASS" : "FAIL"});
}

}  // namespace

int main(int argc, char** argv) {
  p6::disable_nvls();
  std::vector<std::size_t> sizes = {std::size_t(64) << 20, std::size_t(4) << 20};
  auto take_sizes = [&sizes](const std::string&, const std::string& value) -> std::string {
    return wb::parse_count_list(value, &sizes, false) ? "" : "--sizes needs float counts like 64M,4M";
  };
  return wb::run_bench_tool(kTool, argc, argv, take_sizes, [&sizes](const wb::BenchToolArgs& args) {
    if (const int skip = p6::skip_unless_gpus("p6", "bench", 2, "phase 6 measures links between GPUs")) return skip;
    const int n = std::min(p6::visible_gpu_count(), 8);
    p6::RankGroup group = p6::RankGroup::real(n);
    p6::NcclComms comms(group);
    Bench bench{group, comms, wb::BenchOptions{3, args.repeat, false}, p6::link_label(0, 1), p6::nvlink_bound_gbs(0, 1),
                n,     {}};
    wb::BenchTable::check_writable(args.out);
    std::printf("%s; NCCL %s\n", group.describe().c_str(), p6::nccl_version().c_str());
    for (std::size_t count : sizes) {
      bench.peer_copy_rows(count);
      bench.allreduce_rows(count);
    }
    bench.collective_rows(sizes);
    bench.overlap_rows(sizes.front());
    bench.tensor_parallel_rows();
    bench.ring_attention_rows();
    wb::BenchTable table(wb::query_device(0).name);
    for (const Row& r : bench.rows) table.add(result_row(r, bench.link));
    table.write(args.out);
    return table.all_pass() ? wb::kExitPass : wb::kExitFail;
  });
}
