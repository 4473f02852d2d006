// SPDX-License-Identifier: MIT
// 6.05 tensor_parallel_mlp: one MLP layer split across GPUs, Megatron-style, with one all-reduce.
//
// You learn: tensor parallelism as Megatron-LM splits a transformer's MLP: the first weight matrix by
// columns, so each GPU computes its own slice of the hidden activation and applies the non-linear GELU
// to it alone; the second by rows, so each GPU's product is a partial sum of the whole output; one
// all-reduce of those partial sums per step, nothing else communicated; what is replicated (the input)
// and what is not; why the reduction cannot come before the GELU; and when splitting pays (the GEMMs
// must dwarf the all-reduce).
// Task: the two shardings (which part of W1 and of W2 a rank holds) and the step: two GEMMs, the GELU
// and the one all-reduce, on every rank.
// Source: Shoeybi et al., "Megatron-LM: Training multi-billion parameter language models using model
// parallelism" (arXiv 1909.08053, 2019), section 3 and figure 3a.
// You decide: which slice of W1 and which slice of W2 each rank holds, and how they must match; where the
//             single all-reduce goes and what it sums; what every rank needs a whole copy of.
// Run:   ./workbook run 6.05 [-- --size 8192x8192x32768]   (tokens x model x hidden)
// Check: ./workbook check 6.05
// Aim:   >= 1.7x one GPU's step on 2 GPUs at 8192x8192x32768.
// Previous: 6.04 overlap (gradient buckets). Next: 6.06 ring_attention (the phase.s capstone).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/bf16.h"
#include "common/device.h"
#include "common/workbook.h"
#include "phase6_multi_gpu/harness/lesson_support.h"
#include "phase6_multi_gpu/harness/nccl_support.h"
#include "phase6_multi_gpu/harness/topology.h"
#include "phase6_multi_gpu/multi_gpu.cuh"

// ---- shards ------------------------------------------------------------------------------------------

std::vector<p6::bf16> shard_w1(const std::vector<p6::bf16>& w1, const p6::MlpShape& shape, int rank, int ranks) {
  std::vector<p6::bf16> shard;
  // TODO(6.05): rank's part of W1 (model x hidden, row-major): the slice whose product with the whole X
  //             lets this rank apply GELU without anything from the other ranks, laid out row-major as
  //             its GEMM takes it (model x hidden / ranks) (about 8 lines).
  (void)w1, (void)shape, (void)rank, (void)ranks;  // TODO(6.05): delete
  return shard;
}

std::vector<p6::bf16> shard_w2(const std::vector<p6::bf16>& w2, const p6::MlpShape& shape, int rank, int ranks) {
  std::vector<p6::bf16> shard;
  // TODO(6.05): rank's part of W2 (hidden x model, row-major), matching the part of W1 it holds
  //             (hidden / ranks x model) (about 5 lines).
  (void)w2, (void)shape, (void)rank, (void)ranks;  // TODO(6.05): delete
  return shard;
}

// ---- the step ----------------------------------------------------------------------------------------

void tensor_parallel_mlp(const p6::bf16* const* x, const p6::bf16* const* w1, const p6::bf16* const* w2,
                         p6::bf16* const* hidden, float* const* y, const p6::MlpShape& shape, p6::MlpEngine& engine,
                         const p6::NcclComms& comms) {
  // TODO(6.05): the step on every rank of engine.group(): its two GEMMs (engine.gemm) with the GELU between
  //             them (engine.gelu_to_bf16, its FP32 input in engine.scratch), then whatever communication
  //             makes y[r] the whole Y on every rank (comms.comm(r), the ranks' streams), enqueued without
  //             waiting on the host (about 15 lines).
  (void)x, (void)w1, (void)w2, (void)hidden, (void)y, (void)shape, (void)engine, (void)comms;  // TODO(6.05): delete
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

p6::MlpShape parse_shape(const wb::Lesson& lesson, int ranks) {
  p6::MlpShape shape{8192, 8192, 32768};
  if (!lesson.options().size.empty()) {
    std::vector<std::size_t> dims;
    if (!wb::parse_dims(lesson.options().size, &dims) || dims.size() != 3 || dims[0] == 0 || dims[1] == 0 ||
        dims[2] == 0)
      throw wb::UsageError("--size is tokens x model x hidden, e.g. 8192x8192x32768, got '" + lesson.options().size +
                           "'");
    shape = p6::MlpShape{dims[0], dims[1], dims[2]};
  }
  if (shape.hidden % static_cast<std::size_t>(ranks) != 0)
    throw wb::UsageError("the hidden size (" + std::to_string(shape.hidden) + ") must divide by the GPU count (" +
                         std::to_string(ranks) + "): each GPU holds hidden / GPUs of the hidden units");
  const std::size_t int_max = 2147483647;
  if (shape.tokens > int_max || shape.model > int_max || shape.hidden > int_max)
    throw wb::UsageError("each dimension must fit cuBLAS's int");
  return shape;
}

int tensor_parallel_mlp_lesson(wb::Lesson& lesson) {
  // Napkin math: 4 T D H FLOPs (two GEMMs): 8192 x 8192 x 32768 is 8.8 TFLOP, ~13 ms on one H100 at ~700
  // TFLOP/s; split over 2 GPUs each does half, and the all-reduce of Y (T x D floats, 256 MiB) costs ~0.8 ms
  // at NVLink's ~330 GB/s bus bandwidth: ~1.8x.
  if (const int skip = p6::skip_unless_gpus(lesson.id(), lesson.name(), 2, "tensor parallelism splits across GPUs"))
    return skip;
  const int n = std::min(p6::visible_gpu_count(), 8);
  const p6::MlpShape shape = parse_shape(lesson, n);
  const double T = static_cast<double>(shape.tokens), D = static_cast<double>(shape.model),
               H = static_cast<double>(shape.hidden);
  // GPU 0 holds the one-GPU step (full weights, T x H FP32 and BF16 activations) beside its shard's.
  lesson.require_memory(
      2 * (T * D + 2 * D * H) + 6 * T * H + 4 * T * D + 2 * (T * D + 2 * D * H / n) + 6 * T * H / n + 4 * T * D,
      2 * (T * D + 4 * D * H));
  p6::RankGroup group = p6::RankGroup::real(n);
  std::printf("ranks: %s; Y = GELU(X W1) W2 with X %zux%zu, W1 %zux%zu, W2 %zux%zu (BF16, FP32 accumulation)\n",
              group.describe().c_str(), shape.tokens, shape.model, shape.model, shape.hidden, shape.hidden,
              shape.model);
  p6::NcclComms comms(group);
  p6::MlpEngine engine(group);

  // The whole problem on GPU 0 (random, scaled so every activation is of order 1), then copied to the host.
  const std::size_t TD = shape.tokens * shape.model, DH = shape.model * shape.hidden, TH = shape.tokens * shape.hidden;
  wb::DeviceBuffer<p6::bf16> x_full, w1_full, w2_full, hidden_full;
  wb::DeviceBuffer<float> y_one;
  std::vector<p6::bf16> x(TD), w1(DH), w2(DH);
  {
    p6::DeviceScope scope(0);
    x_full = wb::DeviceBuffer<p6::bf16>(TD);
    w1_full = wb::DeviceBuffer<p6::bf16>(DH);
    w2_full = wb::DeviceBuffer<p6::bf16>(DH);
    hidden_full = wb::DeviceBuffer<p6::bf16>(TH);
    y_one = wb::DeviceBuffer<float>(TD);
    p6::fill_uniform_bf16(x_full.data(), TD, lesson.seed(), 1.0f, group.stream(0));
    p6::fill_uniform_bf16(w1_full.data(), DH, lesson.seed() + 1, static_cast<float>(2.0 / std::sqrt(D)),
                          group.stream(0));
    p6::fill_uniform_bf16(w2_full.data(), DH, lesson.seed() + 2, static_cast<float>(2.0 / std::sqrt(H)),
                          group.stream(0));
    CUDA_CHECK(cudaStreamSynchronize(group.stream(0)));
    CUDA_CHECK(cudaMemcpy(x.data(), x_full.data(), TD * sizeof(p6::bf16), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(w1.data(), w1_full.data(), DH * sizeof(p6::bf16), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(w2.data(), w2_full.data(), DH * sizeof(p6::bf16), cudaMemcpyDeviceToHost));
  }
  // Every rank: the whole X, its shards of W1 and W2, its hidden scratch.
  std::vector<wb::DeviceBuffer<p6::bf16>> xs, w1s, w2s, hiddens;
  std::vector<const p6::bf16*> x_ptrs, w1_ptrs, w2_ptrs;
  std::vector<p6::bf16*> hidden_ptrs;
  bool shards_ok = true;
  for (int r = 0; r < n; ++r) {
    p6::DeviceScope scope(group.device(r));
    const std::vector<p6::bf16> s1 = shard_w1(w1, shape, r, n), s2 = shard_w2(w2, shape, r, n);
    if (s1.size() != DH / n || s2.size() != DH / n) {
      std::fprintf(stderr, "rank %d: shard_w1 gave %zu values and shard_w2 %zu, expected %zu each\n", r, s1.size(),
                   s2.size(), DH / n);
      wb::note_check_failure("shards", s1.empty() ? "shards empty" : "wrong shard sizes");
      shards_ok = false;
      break;
    }
    xs.emplace_back(x);
    w1s.emplace_back(s1);
    w2s.emplace_back(s2);
    hiddens.emplace_back(TH / n);
    x_ptrs.push_back(xs.back().data());
    w1_ptrs.push_back(w1s.back().data());
    w2_ptrs.push_back(w2s.back().data());
    hidden_ptrs.push_back(hiddens.back().data());
  }
  if (!shards_ok) return wb::kExitFail;
  p6::RankBuffers<float> y(group, TD);

  // Verify: rows 0 and T - 1 of every rank's Y, and of the one-GPU Y, against the FP64 reference.
  y.fill(wb::poison_value<float>());
  tensor_parallel_mlp(x_ptrs.data(), w1_ptrs.data(), w2_ptrs.data(), hidden_ptrs.data(), y.pointers(), shape, engine,
                      comms);
  group.synchronize();
  mlp_one_gpu(engine, 0, x_full.data(), w1_full.data(), w2_full.data(), hidden_full.data(), y_one.data(), shape);
  group.synchronize();
  std::vector<float> one(TD);
  {
    p6::DeviceScope scope(0);
    CUDA_CHECK(cudaMemcpy(one.data(), y_one.data(), TD * sizeof(float), cudaMemcpyDeviceToHost));
  }
  bool pass = true;
  double worst_tp = 0, worst_one = 0;
  std::vector<std::vector<float>> ys;
  for (int r = 0; r < n; ++r) ys.push_back(y.download(r));
  for (std::size_t t : {std::size_t(0), shape.tokens - 1}) {
    std::vector<double> ref, tol;
    p6::mlp_reference_row(x, w1, w2, shape, t, &ref, &tol);
    for (std::size_t k = 0; k < shape.model; ++k) {
      worst_one = std::max(worst_one, std::fabs(one[t * shape.model + k] - ref[k]) / tol[k]);
      for (int r = 0; r < n; ++r) {
        const float got = ys[static_cast<std::size_t>(r)][t * shape.model + k];
        const double ratio = std::fabs(got - ref[k]) / tol[k];
        worst_tp = std::max(worst_tp, std::isnan(ratio) ? 1e30 : ratio);
        if (!(ratio <= 1.0) && pass) {
          std::fprintf(stderr, "rank %d: Y[%zu][%zu] = %g, expected %g within %.3g\n", r, t, k, got, ref[k], tol[k]);
          wb::note_check_failure("tensor_parallel_mlp",
                                 wb::same_bits(got, wb::poison_value<float>()) ? "output untouched" : "wrong values");
          pass = false;
        }
      }
    }
  }
  for (int r = 1; r < n && pass; ++r)
    if (ys[static_cast<std::size_t>(r)] != ys[0]) {
      std::fprintf(stderr, "rank %d's Y differs from rank 0's: every rank must end with the same sum\n", r);
      wb::note_check_failure("tensor_parallel_mlp", "ranks disagree");
      pass = false;
    }
  std::printf("checked rows 0 and %zu: worst error %.3f of the tolerance on %d GPUs, %.3f on one GPU\n",
              shape.tokens - 1, worst_tp, n, worst_one);
  for (std::size_t r = 0; r < ys.size(); ++r) ys[r] = std::vector<float>();

  // Time: one GPU's step against the n-GPU step, and the all-reduce alone.
  const wb::BenchOptions options = lesson.bench_options(false);
  const wb::TimingStats one_time = p6::bench_group(group, options, [&] {
    mlp_one_gpu(engine, 0, x_full.data(), w1_full.data(), w2_full.data(), hidden_full.data(), y_one.data(), shape);
  });
  const wb::TimingStats tp_time = p6::bench_group(group, options, [&] {
    tensor_parallel_mlp(x_ptrs.data(), w1_ptrs.data(), w2_ptrs.data(), hidden_ptrs.data(), y.pointers(), shape, engine,
                        comms);
  });
  const wb::TimingStats ar_time =
      p6::bench_group(group, options, [&] { comms.allreduce_sum(y.const_pointers(), y.pointers(), TD); });
  std::printf(
      "one GPU %.3f ms (%.0f TFLOP/s); %d GPUs %.3f ms, of which the all-reduce of Y (%s floats) alone "
      "takes %.3f ms (%.0f%%)\n",
      one_time.median_ms, shape.flops() / one_time.median_ms * 1e-9, n, tp_time.median_ms, wb::format_count(TD).c_str(),
      ar_time.median_ms, 100.0 * ar_time.median_ms / tp_time.median_ms);

  wb::ResultLine line;
  line.id = lesson.id();
  line.name = "tensor_parallel_mlp";
  line.problem = shape.describe() + " x" + std::to_string(n);
  line.time = tp_time;
  line.rate = shape.flops() / tp_time.median_ms * 1e-6;  // GFLOP/s
  line.unit = wb::RateUnit::GFLOPs;
  line.peak_label = std::to_string(n) + "x BF16 peak";
  wb::set_peak(line, n * wb::bf16_peak_gflops(wb::query_device(0)));
  line.ref_value = one_time.median_ms / tp_time.median_ms;
  line.ref_label = "one GPU";
  line.ref_style = wb::RefStyle::Speedup;
  line.pass = pass;
  lesson.report(line);
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(tensor_parallel_mlp_lesson, "a Megatron-style MLP over several GPUs with one all-reduce");
