// SPDX-License-Identifier: MIT
// 6.03 nccl_collectives: NCCL's four collectives, communicators made two ways, and what their times say.
//
// You learn: the two ways to make NCCL communicators: one process driving every GPU (ncclCommInitAll,
// and group calls so that one thread can issue a collective for all of its ranks), and one process per
// GPU (a unique id made by the launcher and handed to every rank, then ncclCommInitRank), the form that
// scales past one host; the semantics of all-reduce, reduce-scatter, all-gather and broadcast (counts,
// in place); bus bandwidth as nccl-tests counts it; where latency and where bandwidth dominate a
// collective's time, and a model (alpha-beta, ring and tree) that predicts an all-reduce on many hosts
// from what two GPUs measure.
// Task: the communicators both ways, the group calls, each rank's call of each collective, and the bus
// bandwidth of each collective.
// Source: NCCL documentation ("Communicators", "Group calls", "Collective operations", "In-place
// operations"); nccl-tests' doc/PERFORMANCE.md; Thakur, Rabenseifner and Gropp, "Optimization of
// collective communication operations in MPICH" (IJHPCA 2005) for the alpha-beta costs; Sanders,
// Speck and Traeff, "Two-tree algorithms for full bandwidth broadcast, reduction and scan" (2009), the
// double binary tree NCCL uses since 2.4.
// You decide: what must hold before a single thread may issue a collective for several ranks; what
//             travels from the launcher to each rank process and in which order the two sides act;
//             where each collective's in-place input and output sit in the one buffer; how many bytes
//             each link must carry for each collective (the bus bandwidth's factor).
// Run:   ./workbook run 6.03 [-- --size 1G --net-gbps 400 --net-us 5]
// Check: ./workbook check 6.03
// Aim:   bus bandwidths within a few percent of NCCL's own all-reduce (the harness's) at 256 MiB.
// Previous: 6.02 ring_allreduce (your own ring against NCCL). Next: 6.04 overlap (gradient buckets).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase6_multi_gpu/harness/collectives.h"
#include "phase6_multi_gpu/harness/lesson_support.h"
#include "phase6_multi_gpu/harness/nccl_support.h"
#include "phase6_multi_gpu/harness/topology.h"
#include "phase6_multi_gpu/multi_gpu.cuh"

// ---- communicators: one process for every GPU ----------------------------------------------------------

std::vector<ncclComm_t> nccl_comms_one_process(const p6::RankGroup& group) {
  p6::require_nvls_disabled();  // NVLink multicast stays off (the phase README says why)
  std::vector<ncclComm_t> comms;
  // TODO(6.03): one communicator per rank of the group, rank r on group.device(r), made by this one
  //             process in one call (about 4 lines).
  (void)group;  // TODO(6.03): delete: it only silences unused-parameter warnings
  return comms;
}

// ---- one rank's call ---------------------------------------------------------------------------------

void nccl_issue(p6::Collective op, const float* send, float* recv, std::size_t count, int root, ncclComm_t comm,
                cudaStream_t stream) {
  // TODO(6.03): rank's call of `op` (ncclFloat; ncclSum where it reduces), counts as harness/collectives.h says.
  //             In place (send == recv, the start of the rank's one buffer), pass the pointers NCCL
  //             recognises as in place for this collective (NCCL's "In-place operations") (about 20 lines).
  (void)op, (void)send, (void)recv, (void)count, (void)root, (void)comm, (void)stream;  // TODO(6.03): delete
}

// ---- every rank from one thread ----------------------------------------------------------------------

void nccl_collective(p6::Collective op, const float* const* send, float* const* recv, std::size_t count, int root,
                     const std::vector<ncclComm_t>& comms, const p6::RankGroup& group) {
  // TODO(6.03): `op` on every rank of the group from this one thread, each on its own stream; no call
  //             may wait for a rank that this thread has not reached yet (about 5 lines).
  (void)op, (void)send, (void)recv, (void)count, (void)root, (void)comms, (void)group;  // TODO(6.03): delete
}

// ---- communicators: one process per GPU ----------------------------------------------------------------

void nccl_share_unique_id(p6::RankProcesses& processes) {
  // TODO(6.03): the launcher's half: make what every rank needs to find the others and send it to each
  //             rank process (processes.send) (about 4 lines).
  (void)processes;  // TODO(6.03): delete: it only silences unused-parameter warnings
}

ncclComm_t nccl_join_as_rank(int rank, int ranks, int from_parent) {
  p6::require_nvls_disabled();
  ncclComm_t comm = nullptr;
  // TODO(6.03): the rank's half: read what the launcher sent (p6::read_all from from_parent), make this
  //             process's GPU the rank's, join the communicator (about 6 lines).
  (void)rank, (void)ranks, (void)from_parent;  // TODO(6.03): delete: it only silences unused-parameter warnings
  return comm;
}

// ---- bus bandwidth -------------------------------------------------------------------------------------

double collective_busbw_gbs(p6::Collective op, double bytes, double ms, int ranks) {
  // TODO(6.03): nccl-tests' bus bandwidth of `op`: the algorithm bandwidth (p6::algbw_gbs) times the
  //             share of the data each link carries, per collective (about 8 lines).
  (void)op, (void)bytes, (void)ms, (void)ranks;  // TODO(6.03): delete: it only silences unused-parameter warnings
  return 0.0;                                    // TODO(6.03): replace
}

const char* nccl_collectives_worker() {
  return std::string(WB_VARIANT) == "solution" ? "p6_03_nccl_collectives_solution_rank" : "p6_03_nccl_collectives_rank";
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Every rank's result of one job checked exactly; "" when right.
std::string check_job(p6::CollectiveWorkers& workers, const p6::CollectiveJob& job) {
  const std::vector<std::vector<float>> outputs = workers.run(job);
  const int n = workers.ranks();
  for (int r = 0; r < n; ++r) {
    const p6::RankLayout layout = p6::rank_layout(job, r, n);
    const std::vector<float> expected = p6::expected_result(job, r, n);
    const std::vector<float>& got = outputs[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i < expected.size(); ++i)
      if (got[layout.result_at + i] != expected[i])
        return std::string(p6::collective_name(job.op)) + ": rank " + std::to_string(r) + " [" + std::to_string(i) +
               "] expected " + std::to_string(expected[i]) + ", got " + std::to_string(got[layout.result_at + i]);
  }
  return "";
}

// t = alpha + beta x through the smallest point (all latency) and the largest (all bandwidth): a least-squares
// line would let the large sizes' noise swing alpha, even below zero.
void fit_line(const std::vector<double>& x, const std::vector<double>& t, double* alpha, double* beta) {
  *beta = (t.back() - t.front()) / (x.back() - x.front());
  *alpha = t.front() - *beta * x.front();
}

int nccl_collectives_lesson(wb::Lesson& lesson) {
  // Napkin math: an all-reduce of S bytes on n GPUs moves 2 (n - 1) / n x S over every link; 256 MiB on
  // two H100s over NV18 (~370 GB/s a direction in practice) is ~0.7 ms; a 4 KiB one is all latency (~10 us).
  if (const int skip = p6::skip_unless_gpus(lesson.id(), lesson.name(), 2, "collectives run between real GPUs"))
    return skip;
  const int n = std::min(p6::visible_gpu_count(), 8);
  const std::size_t max_bytes = lesson.size_or(std::size_t(1) << 30);
  if (max_bytes < 65536 || max_bytes % (4 * static_cast<std::size_t>(n)) != 0)
    throw wb::UsageError("--size is the largest collective in bytes: at least 64K and a multiple of 4 x " +
                         std::to_string(n) + " (e.g. 1G, 256M)");
  lesson.require_memory(2.0 * static_cast<double>(max_bytes), 0.0);
  const p6::NetworkModelOptions net = p6::network_model_options();

  // 1. Both set-ups, every collective checked exactly (1M + 3 floats each, out of place and in place).
  bool pass = true;
  for (const bool per_process : {false, true}) {
    std::string verdict;
    try {
      p6::CollectiveWorkers workers(nccl_collectives_worker(), n, per_process, 120.0);
      if (per_process) nccl_share_unique_id(workers.processes());
      for (p6::Collective op : p6::kCollectives)
        for (const bool in_place : {false, true})
          if (verdict.empty())
            verdict =
                check_job(workers, p6::CollectiveJob{op, (std::size_t(1) << 20) + 3, n - 1, in_place, lesson.seed()});
    } catch (const std::exception& e) {
      verdict = e.what();
    }
    std::printf("%-28s %d GPUs, 4 collectives, in and out of place: %s%s\n",
                per_process ? "one process per GPU:" : "one process for all GPUs:", n,
                verdict.empty() ? "PASS" : "FAIL: ", verdict.c_str());
    if (!verdict.empty()) wb::note_check_failure(per_process ? "one process per GPU" : "one process", verdict);
    pass = pass && verdict.empty();
  }
  if (!pass) return wb::kExitFail;

  // 2. The sweep, in this process: 4 KiB to --size, every collective, bus bandwidth by your formula.
  p6::RankGroup group = p6::RankGroup::real(n);
  std::printf("ranks: %s; NCCL %s\n", group.describe().c_str(), p6::nccl_version().c_str());
  const std::vector<ncclComm_t> comms = nccl_comms_one_process(group);
  p6::RankBuffers<float> send(group, max_bytes / 4), recv(group, max_bytes / 4);
  send.fill(1.0f);
  wb::BenchOptions options = lesson.bench_options(false);
  std::printf("\n%10s", "bytes");
  for (p6::Collective op : p6::kCollectives) std::printf("  %14s us  busbw", p6::collective_name(op));
  std::printf("\n");
  std::vector<double> sizes, x, t_ar;
  double peak_busbw = 0, busbw_256m = 0;
  wb::TimingStats time_256m;
  std::size_t ref_bytes = 0;
  std::size_t half_point = 0;
  for (std::size_t bytes = 4096; bytes <= max_bytes; bytes *= 4) {
    std::printf("%10s", wb::format_count(bytes).c_str());
    for (p6::Collective op : p6::kCollectives) {
      // nccl-tests' size: the larger buffer of a rank; the count NCCL is given follows from it.
      const std::size_t count = op == p6::Collective::ReduceScatter || op == p6::Collective::AllGather
                                    ? bytes / 4 / static_cast<std::size_t>(n)
                                    : bytes / 4;
      const wb::TimingStats time = p6::bench_group(
          group, options, [&] { nccl_collective(op, send.const_pointers(), recv.pointers(), count, 0, comms, group); });
      const double busbw = collective_busbw_gbs(op, static_cast<double>(bytes), time.median_ms, n);
      std::printf("  %17.1f %6.1f", 1000.0 * time.median_ms, busbw);
      if (op == p6::Collective::AllReduce) {
        sizes.push_back(static_cast<double>(bytes));
        x.push_back(2.0 * (n - 1) / n * static_cast<double>(bytes));
        t_ar.push_back(time.median_ms * 1e-3);
        if (busbw > peak_busbw) peak_busbw = busbw;
        if (bytes <= (std::size_t(256) << 20)) busbw_256m = busbw, time_256m = time, ref_bytes = bytes;
      }
    }
    std::printf("\n");
  }
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double busbw = x[i] / t_ar[i] / 1e9;
    if (half_point == 0 && busbw >= peak_busbw / 2) half_point = static_cast<std::size_t>(sizes[i]);
  }
  std::printf("all-reduce: latency dominates below ~%s (half the peak bus bandwidth of %.0f GB/s), bandwidth above\n",
              wb::format_count(half_point).c_str(), peak_busbw);

  // 3. The alpha-beta model of the measured all-reduce: t = alpha + x / B, x = 2 (n - 1) / n x bytes.
  double alpha = 0, beta = 0;
  fit_line(x, t_ar, &alpha, &beta);
  const double link_gbs = beta > 0 ? 1e-9 / beta : 0;
  std::printf(
      "\nalpha-beta through the smallest and largest points on %d GPUs: alpha %.1f us, link %.0f GB/s; the model "
      "against the measured points:\n",
      n, 1e6 * alpha, link_gbs);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const double model = alpha + beta * x[i];
    std::printf("  %10s  measured %10.1f us  model %10.1f us  error %+6.1f%%\n",
                wb::format_count(static_cast<std::size_t>(sizes[i])).c_str(), 1e6 * t_ar[i], 1e6 * model,
                100.0 * (model - t_ar[i]) / t_ar[i]);
  }
  // Past one host: k nodes of 8 GPUs, N = 8k ranks. One ring step costs the slower hop's latency; the
  // network hop carries what each GPU's share of the network allows. Ring: 2 (N - 1) steps, every step on
  // the critical path; tree (NCCL's double binary tree across nodes, a chain inside each): latency
  // 2 (7 + log2 k) hops, the same bandwidth term (both keep every network link busy).
  const double hop_alpha = alpha / (2.0 * (n - 1));
  const double net_gbs = net.gbps / 8.0, net_alpha = net.hop_us * 1e-6;
  std::printf(
      "\nall-reduce on k nodes of 8 GPUs (model: NVLink %.0f GB/s and %.1f us per hop as measured; network "
      "%.0f Gb/s per GPU, %.1f us per hop):\n",
      link_gbs, 1e6 * hop_alpha, net.gbps, net.hop_us);
  std::printf("  %5s %6s %12s %12s %12s %12s %12s %12s\n", "nodes", "GPUs", "4K ring us", "4K tree us", "1M ring us",
              "1M tree us", "1G ring ms", "1G tree ms");
  for (int k : {1, 2, 4, 8, 16, 32, 64}) {
    const double N = 8.0 * k;
    const double step_alpha = k > 1 ? std::max(hop_alpha, net_alpha) : hop_alpha;
    const double bw = (k > 1 ? std::min(link_gbs, net_gbs) : link_gbs) * 1e9;
    auto ring = [&](double bytes) { return 2.0 * (N - 1) * step_alpha + 2.0 * (N - 1) / N * bytes / bw; };
    auto tree = [&](double bytes) {
      return 2.0 * (7.0 * hop_alpha + std::log2(static_cast<double>(k)) * net_alpha) + 2.0 * (N - 1) / N * bytes / bw;
    };
    std::printf("  %5d %6.0f %12.1f %12.1f %12.1f %12.1f %12.2f %12.2f\n", k, N, 1e6 * ring(4096), 1e6 * tree(4096),
                1e6 * ring(1 << 20), 1e6 * tree(1 << 20), 1e3 * ring(1 << 30), 1e3 * tree(1 << 30));
  }
  std::printf(
      "(ring latency grows with N, the tree's with log2 of the node count: NCCL picks trees for small\n"
      " messages on many nodes and rings where bandwidth dominates; --net-gbps and --net-us change the network)\n\n");

  // 4. The result: your communicators and your busbw formula against the harness's NCCL all-reduce.
  p6::NcclComms yardstick(group);
  const wb::TimingStats ref_time = p6::bench_group(
      group, options, [&] { yardstick.allreduce_sum(send.const_pointers(), recv.pointers(), ref_bytes / 4); });
  const double ref_busbw = p6::allreduce_busbw_gbs(static_cast<double>(ref_bytes), ref_time.median_ms, n);
  const bool formula_ok =
      std::fabs(collective_busbw_gbs(p6::Collective::AllReduce, static_cast<double>(ref_bytes), ref_time.median_ms, n) -
                ref_busbw) <= 1e-9 * ref_busbw;
  if (!formula_ok) wb::note_check_failure("collective_busbw_gbs", "all-reduce busbw is not nccl-tests'");
  for (std::size_t r = 0; r < comms.size(); ++r) {
    p6::DeviceScope scope(group.device(static_cast<int>(r)));
    CUDA_CHECK(cudaStreamSynchronize(group.stream(static_cast<int>(r))));
    ncclCommDestroy(comms[r]);
  }
  wb::ResultLine line;
  line.id = lesson.id();
  line.name = "nccl_allreduce";
  line.problem = wb::format_count(ref_bytes) + "B x" + std::to_string(n) + " " + p6::link_label(0, 1);
  line.time = time_256m;
  line.rate = busbw_256m;
  line.unit = wb::RateUnit::GBps;
  line.peak_label = p6::link_label(0, 1) + " bound";
  wb::set_peak(line, p6::nvlink_bound_gbs(0, 1));
  line.ref_value = ref_busbw > 0 ? 100.0 * busbw_256m / ref_busbw : 0.0;
  line.ref_label = "harness NCCL busbw";
  line.pass = pass && formula_ok;
  lesson.report(line);
  return line.pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(nccl_collectives_lesson, "NCCL's collectives, communicators two ways, and a model past one host");
