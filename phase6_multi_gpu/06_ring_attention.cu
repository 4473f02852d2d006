// SPDX-License-Identifier: MIT
// 6.06 ring_attention: attention over a sequence too long for one GPU, its K/V blocks passed around a ring.
//
// You learn: how a long sequence is sharded across GPUs for attention: each rank keeps its queries
// and its own keys and values, and the K/V blocks travel around the ring, one hop per step, so after n
// steps every query has seen every key while no GPU ever held more than two blocks; how each block's
// partial softmax merges into a row's running (max, sum, output), the rule of 2.08 and 5.06, so the
// result equals attention on one GPU; and how the next block's copy hides behind this block's compute.
// Task: ring_attention (multi_gpu.cuh) from its API alone, with what RingKV (harness/ring_support.h)
// gives each rank. Correct means O and L of every rank equal attention over the whole sequence within
// phase 5's FP32 bound, whatever the ranks' streams were still running when the call began.
// Source: Liu, Zaharia, Abbeel, "Ring Attention with Blockwise Transformers for Near-Infinite Context"
// (arXiv 2310.01889, 2023); Milakov and Gimelshein, "Online normalizer calculation for softmax" (2018).
// You decide: how a block's kernel tiles queries and keys and how its logits merge into the running
//             state; which block each rank computes with at each step, and where its keys sit in the
//             sequence; which slot each block lands in, and which events each copy and each compute
//             waits for.
// Run:   ./workbook run 6.06 [-- --size 8x8192x128]
// Check: ./workbook check 6.06
// Aim:   >= 1.8x the same attention on one GPU, on two GPUs (FP32).
// Previous: 6.05 tensor_parallel_mlp (6.04 overlap taught the streams and events). Next: p6_bench.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase5_attention/harness/reference.h"
#include "phase6_multi_gpu/harness/lesson_support.h"
#include "phase6_multi_gpu/harness/topology.h"
#include "phase6_multi_gpu/multi_gpu.cuh"

namespace {

// TODO(6.06): your kernels and what launches them. What decides correctness: on every rank, O and L of
//             its queries against every key of the sequence (causal: the keys up to the query's own
//             token), within phase 5's FP32 bound, for d 64 and 128, shards of any size (empty ones
//             too) and logits near 1e4. kv's m, l and acc are each rank's memory between blocks (both
//             TODOs together: about 220 lines).

}  // namespace

void ring_attention(const float* const* Q, const float* const* K, const float* const* V, float* const* O,
                    float* const* L, const p6::RingAttentionShape& shape, p6::RankGroup& group, p6::RingKV& kv) {
  p6::validate_ring_shape(shape);
  const p6::RingAttentionShape& made = kv.shape();
  if (made.heads != shape.heads || made.seq != shape.seq || made.d != shape.d)
    throw std::invalid_argument("ring_attention: kv was made for another shape");
  if (group.size() > p6::RingKV::kEventsPerRank - 1) throw std::invalid_argument("ring_attention: too many ranks");
  // TODO(6.06): the ring, with your kernels, kv and the group's streams, events and barrier. What must
  //             hold: every query of every rank meets every key exactly once; every read of a buffer
  //             sees the block meant for it, on every rank, in every step; and the contract in
  //             multi_gpu.cuh about the work before the call and the buffers after it. The bar needs
  //             the copies to run while the ranks compute.
  (void)Q, (void)K, (void)V, (void)O, (void)L;  // TODO(6.06): delete: it only silences unused-parameter warnings
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

p6::RingAttentionShape parse_ring_size(const std::string& text) {
  std::vector<std::size_t> dims;
  if (text.empty()) {
    dims = {8, 8192, 128};
  } else if (!wb::parse_dims(text, &dims) || dims.size() != 3) {
    throw wb::UsageError("--size needs HEADSxSEQxD (like 8x8192x128), got '" + text + "'");
  }
  if (dims[0] < 1 || dims[0] > 4096 || dims[1] < 1 || dims[1] > (1u << 20) || (dims[2] != 64 && dims[2] != 128))
    throw wb::UsageError("--size: HEADS from 1 to 4096, SEQ from 1 to 1M, D 64 or 128, got '" + text + "'");
  p6::RingAttentionShape shape;
  shape.heads = static_cast<int>(dims[0]);
  shape.seq = static_cast<int>(dims[1]);
  shape.d = static_cast<int>(dims[2]);
  return shape;
}

// One group's shards of the whole problem: Q, K, V in, O and L out, and the ring's buffers.
struct Shards {
  std::unique_ptr<p6::RankBuffers<float>> q, k, v, o, l;
  std::unique_ptr<p6::RingKV> kv;
  Shards(const p6::RankGroup& group, const p6::RingAttentionShape& shape, const p5::AttentionInputs& in) {
    const int n = group.size();
    const std::size_t chunk = static_cast<std::size_t>(p6::ring_chunk(shape.seq, n)) * shape.heads;
    q = std::make_unique<p6::RankBuffers<float>>(group, chunk * shape.d);
    k = std::make_unique<p6::RankBuffers<float>>(group, chunk * shape.d);
    v = std::make_unique<p6::RankBuffers<float>>(group, chunk * shape.d);
    o = std::make_unique<p6::RankBuffers<float>>(group, chunk * shape.d);
    l = std::make_unique<p6::RankBuffers<float>>(group, chunk);
    kv = std::make_unique<p6::RingKV>(group, shape);
    const std::size_t d = static_cast<std::size_t>(shape.d);
    for (int r = 0; r < n; ++r) {
      const std::size_t begin = static_cast<std::size_t>(p6::ring_begin(r, n, shape.seq));
      const std::size_t rows = static_cast<std::size_t>(p6::ring_rows(r, n, shape.seq));
      std::vector<float> qs(chunk * d, 0.0f), ks(chunk * d, 0.0f), vs(chunk * d, 0.0f);
      for (int h = 0; h < shape.heads; ++h)
        for (std::size_t i = 0; i < rows * d; ++i) {
          const std::size_t from = (static_cast<std::size_t>(h) * shape.seq + begin) * d + i;
          const std::size_t to = static_cast<std::size_t>(h) * rows * d + i;
          qs[to] = in.q[from];
          ks[to] = in.k[from];
          vs[to] = in.v[from];
        }
      q->upload(r, qs);
      k->upload(r, ks);
      v->upload(r, vs);
    }
  }
  void run(const p6::RingAttentionShape& shape, p6::RankGroup& group) {
    ring_attention(q->const_pointers(), k->const_pointers(), v->const_pointers(), o->pointers(), l->pointers(), shape,
                   group, *kv);
  }
};

int ring_attention_lesson(wb::Lesson& lesson) {
  // Napkin math: 8 heads x 8192^2 x 128 is 275 GFLOP; at ~25 TFLOP/s of FP32 FMAs per H100 that is ~11 ms
  // on one GPU at best. Each of n GPUs computes 1/n of it while a K/V block of 8 heads x 8192/n x 128
  // floats, for K and V, crosses one link per step: 32 MiB at 2 GPUs, ~90 us at NV18's rate, easily
  // hidden.
  const p6::RingAttentionShape shape = parse_ring_size(lesson.options().size);
  const int gpus = p6::visible_gpu_count();
  const bool real = gpus >= 2;
  const int n = real ? std::min(gpus, 8) : 4;
  const double elements = static_cast<double>(shape.heads) * shape.seq * shape.d;
  lesson.require_memory(4.0 * 10.0 * elements / n * (real ? 1 : n) + 4.0 * 10.0 * elements, 4.0 * 8.0 * elements);
  p6::RankGroup group = real ? p6::RankGroup::real(n) : p6::RankGroup::virtual_ranks(n, 0);
  std::printf("ranks: %s; %d heads x seq %d x d %d, FP32, non-causal\n", group.describe().c_str(), shape.heads,
              shape.seq, shape.d);
  AttentionShape full;
  full.heads = shape.heads;
  full.seq_q = full.seq_k = shape.seq;
  full.d = shape.d;
  const p5::AttentionInputs in = p5::make_attention_inputs(full, p5::AttentionData::Uniform, lesson.seed());
  Shards shards(group, shape, in);
  // Rows checked against the CPU in double: the first and last of every rank's shard and a few more,
  // in the first and the last head.
  auto verify = [&](const std::string& what) {
    std::vector<int> rows = p5::sample_rows(shape.seq, 8, lesson.seed());
    for (int r = 0; r < n; ++r)
      if (p6::ring_rows(r, n, shape.seq) > 0) {
        rows.push_back(p6::ring_begin(r, n, shape.seq));
        rows.push_back(p6::ring_begin(r, n, shape.seq) + p6::ring_rows(r, n, shape.seq) - 1);
      }
    std::vector<std::vector<float>> o(static_cast<std::size_t>(n)), l(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) {
      o[static_cast<std::size_t>(r)] = shards.o->download(r);
      l[static_cast<std::size_t>(r)] = shards.l->download(r);
    }
    for (int head : {0, shape.heads - 1})
      for (int row : rows) {
        const int r = row / p6::ring_chunk(shape.seq, n);
        const int i = row - p6::ring_begin(r, n, shape.seq);
        const int rows_r = p6::ring_rows(r, n, shape.seq);
        const p5::RowReference ref = p5::attention_reference_row(full, in, head, row);
        const p5::RowTolerance tol = p5::attention_row_tolerance(ref, shape.d, false);
        const std::size_t at = static_cast<std::size_t>(head) * rows_r + i;
        const double l_err = std::fabs(l[static_cast<std::size_t>(r)][at] - ref.lse);
        bool ok = l_err <= tol.l_abs;
        int bad_c = -1;
        for (int c = 0; c < shape.d && ok; ++c) {
          const double err = std::fabs(o[static_cast<std::size_t>(r)][at * shape.d + c] - ref.o[c]);
          if (!(err <= tol.o_rel * ref.magnitude[c] + tol.o_abs)) {
            ok = false;
            bad_c = c;
          }
        }
        if (!ok) {
          const float got = bad_c >= 0 ? o[static_cast<std::size_t>(r)][at * shape.d + bad_c] : 0.0f;
          std::fprintf(stderr, "%s: head %d, token %d (rank %d): L %g (expected %g)%s\n", what.c_str(), head, row, r,
                       l[static_cast<std::size_t>(r)][at], ref.lse,
                       bad_c >= 0 ? (", O[" + std::to_string(bad_c) + "] " + std::to_string(got) + " (expected " +
                                     std::to_string(ref.o[bad_c]) + ")")
                                        .c_str()
                                  : "");
          const bool untouched = wb::same_bits(l[static_cast<std::size_t>(r)][at], wb::poison_value<float>());
          wb::note_check_failure(what, untouched ? "output untouched" : "wrong attention");
          return false;
        }
      }
    return true;
  };
  shards.o->fill(wb::poison_value<float>());
  shards.l->fill(wb::poison_value<float>());
  shards.run(shape, group);
  group.synchronize();
  bool pass = verify("ring_attention");
  if (!real) {
    std::printf("ring_attention on %d virtual ranks: %s\n", n, pass ? "PASS" : "FAIL");
    if (!pass) return wb::kExitFail;
    return p6::skip_unless_gpus(lesson.id(), lesson.name(), 2, "the speed-up is measured on real GPUs");
  }
  const wb::BenchOptions options = lesson.bench_options(false);
  const wb::TimingStats ring = p6::bench_group(group, options, [&] { shards.run(shape, group); });
  pass = verify("ring_attention (after timing)") && pass;
  // The yardstick: the same kernels on one GPU holding the whole sequence (a ring of one, no copies).
  p6::RankGroup one = p6::RankGroup::real(1);
  Shards single(one, shape, in);
  const wb::TimingStats alone = p6::bench_group(one, options, [&] { single.run(shape, one); });
  const double flop = 4.0 * shape.heads * static_cast<double>(shape.seq) * shape.seq * shape.d;
  std::printf("one GPU: %.3f ms (%.0f GFLOP/s); %d GPUs: %.3f ms, %.2fx\n", alone.median_ms,
              flop / alone.median_ms / 1e6, n, ring.median_ms, alone.median_ms / ring.median_ms);

  wb::ResultLine line;
  line.id = lesson.id();
  line.name = "ring_attention";
  line.problem = std::to_string(shape.heads) + "x" + std::to_string(shape.seq) + "x" + std::to_string(shape.d) + " x" +
                 std::to_string(n) + " " + p6::link_label(0, 1);
  line.time = ring;
  line.rate = flop / ring.median_ms / 1e6;
  line.unit = wb::RateUnit::GFLOPs;
  line.peak_label = "FP32 peak x" + std::to_string(n);
  wb::set_peak(line, n * wb::fp32_peak_gflops(wb::query_device(0)));
  line.ref_value = alone.median_ms / ring.median_ms;
  line.ref_label = "one GPU";
  line.ref_style = wb::RefStyle::Speedup;
  line.pass = pass;
  lesson.report(line);
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(ring_attention_lesson, "attention over a sequence sharded around a ring of GPUs");
