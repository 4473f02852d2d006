// SPDX-License-Identifier: MIT
#include "phase5_attention/lesson_support.h"

#include <cstdio>

#include "common/buffer.h"
#include "common/gpu.h"
#include "common/verify.h"
#include "phase5_attention/reference_gpu.h"

namespace p5 {

AttentionShape parse_attention_size(const std::string& text, bool causal) {
  std::vector<std::size_t> dims;
  if (text.empty()) {
    dims = {16, 4096, 64};
  } else if (!wb::parse_dims(text, &dims)) {
    throw wb::UsageError("--size needs SEQ, SEQxD or HEADSxSEQxD, got '" + text + "'");
  }
  if (dims.size() == 1) dims = {16, dims[0], 64};
  if (dims.size() == 2) dims = {16, dims[0], dims[1]};
  if (dims[0] < 1 || dims[0] > 4096 || dims[1] < 1 || dims[1] > (1u << 20))
    throw wb::UsageError("--size: HEADS from 1 to 4096 and SEQ from 1 to 1M, got '" + text + "'");
  if (dims[2] != 64 && dims[2] != 128) throw wb::UsageError("--size: the head dimension D must be 64 or 128");
  AttentionShape shape;
  shape.heads = static_cast<int>(dims[0]);
  shape.seq_q = shape.seq_k = static_cast<int>(dims[1]);
  shape.d = static_cast<int>(dims[2]);
  shape.causal = causal;
  return shape;
}

struct AttentionBench::Buffers {
  AttentionInputs host;
  wb::DeviceBuffer<float> q, k, v;
  wb::GuardedDeviceBuffer<float> o, l, scores;
  wb::DeviceBuffer<float> yard_o, yard_l;
  std::vector<int> rows;                 // sampled query rows (the same in every head)
  std::vector<RowReference> references;  // head-major: references[h * rows.size() + r]
  Buffers(const AttentionShape& s, std::uint64_t seed)
      : host(make_attention_inputs(s, AttentionData::Uniform, seed)),
        q(host.q),
        k(host.k),
        v(host.v),
        o(s.q_elements()),
        l(s.l_elements()),
        scores(attention_scores_elements(s)),
        yard_o(s.q_elements()),
        yard_l(s.l_elements()) {}
};

AttentionBench::AttentionBench(wb::Lesson& lesson, AttentionShape shape) : lesson_(lesson), shape_(shape) {
  // Device: Q, K, V, O twice, L twice and the scores of the unfused paths (4 bytes each).
  const double device = 4.0 * (5.0 * shape.q_elements() + 2.0 * shape.l_elements() +
                               static_cast<double>(attention_scores_elements(shape)));
  lesson.require_memory(device, 4.0 * 6.0 * static_cast<double>(shape.q_elements()));
  buffers_ = std::make_unique<Buffers>(shape, lesson.seed());
  Buffers& b = *buffers_;
  b.rows = sample_rows(shape.seq_q, 13, lesson.seed() + 3);
  for (int h = 0; h < shape.heads; ++h)
    for (int row : b.rows) b.references.push_back(attention_reference_row(shape, b.host, h, row));
}

AttentionBench::~AttentionBench() = default;

bool AttentionBench::verify(const std::string& what, const AttentionKernel& kernel) {
  Buffers& b = *buffers_;
  const int d = shape_.d;
  b.o.fill(wb::poison_value<float>());
  b.l.fill(wb::poison_value<float>());
  kernel(b.q.data(), b.k.data(), b.v.data(), b.o.data(), b.l.data(), shape_, b.scores.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<float> o = b.o.download(), l = b.l.download();
  // The sampled rows side by side: O's d values per row, then L, each with its own bound.
  std::vector<float> want_o, got_o, want_l, got_l;
  std::vector<wb::Tolerance> tol_o, tol_l;
  for (int h = 0; h < shape_.heads; ++h) {
    for (std::size_t r = 0; r < b.rows.size(); ++r) {
      const RowReference& ref = b.references[h * b.rows.size() + r];
      const RowTolerance t = attention_row_tolerance(ref, d, false);
      const std::size_t row = static_cast<std::size_t>(h) * shape_.seq_q + b.rows[r];
      for (int c = 0; c < d; ++c) {
        want_o.push_back(static_cast<float>(ref.o[c]));
        got_o.push_back(o[row * d + c]);
        tol_o.push_back({t.o_abs + t.o_rel * ref.magnitude[c], wb::kFloatEpsilon});  // + rounding the reference
      }
      want_l.push_back(static_cast<float>(ref.lse));
      got_l.push_back(l[row]);
      tol_l.push_back({t.l_abs, wb::kFloatEpsilon});
    }
  }
  const wb::CompareReport o_report = wb::compare_each(
      want_o.data(), got_o.data(), want_o.size(), [&](std::size_t i) { return tol_o[i]; }, static_cast<std::size_t>(d));
  const wb::CompareReport l_report =
      wb::compare_each(want_l.data(), got_l.data(), want_l.size(), [&](std::size_t i) { return tol_l[i]; });
  const wb::GuardReport o_guards = b.o.check_guards(), l_guards = b.l.check_guards();
  const wb::GuardReport s_guards = b.scores.check_guards();
  if (!o_report.ok()) std::fprintf(stderr, "%s", o_report.describe(what + ": O (sampled rows)").c_str());
  if (!l_report.ok()) std::fprintf(stderr, "%s", l_report.describe(what + ": L (sampled rows)").c_str());
  if (!o_guards.ok()) std::fprintf(stderr, "%s", o_guards.describe(what + ": O").c_str());
  if (!l_guards.ok()) std::fprintf(stderr, "%s", l_guards.describe(what + ": L").c_str());
  if (!s_guards.ok()) std::fprintf(stderr, "%s", s_guards.describe(what + ": the scores workspace").c_str());
  return o_report.ok() && l_report.ok() && o_guards.ok() && l_guards.ok() && s_guards.ok();
}

wb::TimingStats AttentionBench::time(const AttentionKernel& kernel) {
  Buffers& b = *buffers_;
  // Compute-bound (or bound by the scores' traffic, far larger than L2): no flush, as in phase 1.
  return wb::bench(nullptr, lesson_.bench_options(false), [&] {
    kernel(b.q.data(), b.k.data(), b.v.data(), b.o.data(), b.l.data(), shape_, b.scores.data(), nullptr);
  });
}

const wb::TimingStats& AttentionBench::yardstick() {
  if (!yardstick_done_) {
    Buffers& b = *buffers_;
    attention_reference(b.q.data(), b.k.data(), b.v.data(), b.yard_o.data(), b.yard_l.data(), shape_,
                        b.scores.data(), nullptr);  // creates the cuBLAS handle, outside the timing
    yardstick_ = wb::bench(nullptr, lesson_.bench_options(false), [&] {
      attention_reference(b.q.data(), b.k.data(), b.v.data(), b.yard_o.data(), b.yard_l.data(), shape_,
                          b.scores.data(), nullptr);
    });
    yardstick_done_ = true;
  }
  return yardstick_;
}

void AttentionBench::report(const std::string& launcher, const wb::TimingStats& time, bool pass) {
  const wb::TimingStats& yard = yardstick();
  wb::ResultLine line;
  line.id = lesson_.id();
  line.name = launcher;
  line.problem = std::to_string(shape_.heads) + "x" + std::to_string(shape_.seq_q) + "x" + std::to_string(shape_.d) +
                 (shape_.causal ? " causal" : "");
  line.time = time;
  line.unit = wb::RateUnit::GFLOPs;
  line.rate = wb::gflop_per_s(shape_.flop(), time.median_ms);
  const double peak = lesson_.fp32_peak_gflops();
  line.peak_label = "FP32 peak";
  line.peak_pct = peak > 0 ? 100.0 * line.rate / peak : 0.0;
  line.ref_style = wb::RefStyle::Speedup;  // "1.20x of 5.02": how much faster than the cuBLAS path
  line.ref_label = "of 5.02";
  line.ref_value = time.median_ms > 0 ? yard.median_ms / time.median_ms : 0.0;
  line.pass = pass;
  lesson_.report(line);
}

int run_attention_lesson(wb::Lesson& lesson, const char* launcher, const AttentionKernel& kernel, bool causal) {
  AttentionBench bench(lesson, parse_attention_size(lesson.options().size, causal));
  bool pass = bench.verify(launcher, kernel);
  const wb::TimingStats time = bench.time(kernel);
  pass = bench.verify(std::string(launcher) + " (after timing)", kernel) && pass;
  bench.report(launcher, time, pass);
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace p5
