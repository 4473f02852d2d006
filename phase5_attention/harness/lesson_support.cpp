// SPDX-License-Identifier: MIT
#include "phase5_attention/harness/lesson_support.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "common/bf16.h"
#include "common/buffer.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/measure.h"
#include "common/verify.h"
#include "phase5_attention/harness/reference.h"
#include "phase5_attention/harness/reference_gpu.h"

namespace p5 {

AttentionShape parse_attention_size(const std::string& text, bool causal, int default_d) {
  const std::size_t d = static_cast<std::size_t>(default_d);
  std::vector<std::size_t> dims;
  if (text.empty()) {
    dims = {16, 4096, d};
  } else if (!wb::parse_dim_list(text, &dims) || dims.size() > 4) {  // parse_dims stops at three
    throw wb::UsageError("--size needs SEQ, SEQxD, HEADSxSEQxD or HEADSxSEQQxSEQKxD, got '" + text + "'");
  }
  if (dims.size() == 1) dims = {16, dims[0], d};
  if (dims.size() == 2) dims = {16, dims[0], dims[1]};
  if (dims.size() == 3) dims = {dims[0], dims[1], dims[1], dims[2]};  // seq_q = seq_k = SEQ
  if (dims[0] < 1 || dims[0] > 4096 || dims[1] < 1 || dims[1] > (1u << 20) || dims[2] < 1 || dims[2] > (1u << 20))
    throw wb::UsageError("--size: HEADS from 1 to 4096 and SEQ (SEQQ, SEQK) from 1 to 1M, got '" + text + "'");
  if (dims[3] != 64 && dims[3] != 128) throw wb::UsageError("--size: the head dimension D must be 64 or 128");
  if (causal && dims[1] != dims[2])
    throw wb::UsageError("--size: this lesson's causal mask takes SEQQ == SEQK (a square), got '" + text + "'");
  AttentionShape shape;
  shape.heads = static_cast<int>(dims[0]);
  shape.seq_q = static_cast<int>(dims[1]);
  shape.seq_k = static_cast<int>(dims[2]);
  shape.d = static_cast<int>(dims[3]);
  shape.causal = causal;
  return shape;
}

AttentionShape parse_decoding_size(const std::string& text) {
  const std::string form = "--size needs SEQK or HEADSxSEQQxSEQKxD, got '" + text + "'";
  std::vector<std::size_t> dims;
  if (text.empty()) dims = {32, 1, 32768, 128};
  if (!text.empty() && !wb::parse_dim_list(text, &dims)) throw wb::UsageError(form);  // parse_dims stops at three
  if (dims.size() == 1) dims = {32, 1, dims[0], 128};
  if (dims.size() != 4) throw wb::UsageError(form);
  if (dims[0] < 1 || dims[0] > 4096 || dims[1] < 1 || dims[2] < 1 || dims[2] > (1u << 24) || dims[1] > dims[2])
    throw wb::UsageError("--size: HEADS from 1 to 4096, SEQK from 1 to 16M and SEQQ from 1 to SEQK, got '" + text +
                         "'");
  if (dims[3] != 64 && dims[3] != 128) throw wb::UsageError("--size: the head dimension D must be 64 or 128");
  AttentionShape shape;
  shape.heads = static_cast<int>(dims[0]);
  shape.seq_q = static_cast<int>(dims[1]);
  shape.seq_k = static_cast<int>(dims[2]);
  shape.d = static_cast<int>(dims[3]);
  shape.causal = true;  // decoding: query i is token seq_k - seq_q + i
  return shape;
}

struct AttentionBench::Buffers {
  AttentionInputs host;  // BF16: the BF16 values widened, which the references and the yardstick use
  wb::DeviceBuffer<float> q, k, v;
  wb::GuardedDeviceBuffer<float> o, l, scores;
  wb::DeviceBuffer<float> yard_o, yard_l;
  // BF16 benches only (empty otherwise): the inputs as the BF16 kernel gets them, and its output.
  wb::DeviceBuffer<__nv_bfloat16> q16, k16, v16;
  wb::GuardedDeviceBuffer<__nv_bfloat16> o16;
  std::vector<int> rows;                 // sampled query rows (the same in every head)
  std::vector<RowReference> references;  // head-major: references[h * rows.size() + r]
  Buffers(const AttentionShape& s, std::uint64_t seed, std::size_t workspace, AttentionPrecision precision)
      : host(make_attention_inputs(s, AttentionData::Uniform, seed, precision)),
        q(host.q),
        k(host.k),
        v(host.v),
        o(s.q_elements()),
        l(s.l_elements()),
        scores(std::max(attention_scores_elements(s), workspace)),
        yard_o(s.q_elements()),
        yard_l(s.l_elements()),
        o16(precision == AttentionPrecision::BF16 ? s.q_elements() : 0) {
    if (precision == AttentionPrecision::BF16) {
      q16 = wb::DeviceBuffer<__nv_bfloat16>(wb::to_bf16(host.q));
      k16 = wb::DeviceBuffer<__nv_bfloat16>(wb::to_bf16(host.k));
      v16 = wb::DeviceBuffer<__nv_bfloat16>(wb::to_bf16(host.v));
    }
  }
};

AttentionBench::AttentionBench(wb::Lesson& lesson, AttentionShape shape, std::size_t workspace_elements,
                               bool memory_bound, AttentionPrecision precision)
    : lesson_(lesson), shape_(shape), memory_bound_(memory_bound), precision_(precision) {
  // Device: Q and O twice, K, V, L twice and the workspace (scores or partials), 4 bytes each; BF16
  // adds Q, K, V and O in 2 bytes. Host: the inputs and a download of O, and BF16's copies on the way.
  const double workspace = static_cast<double>(std::max(attention_scores_elements(shape), workspace_elements));
  const double q = static_cast<double>(shape.q_elements()), k = static_cast<double>(shape.k_elements());
  const double bf16 = precision == AttentionPrecision::BF16 ? 2.0 * (2.0 * q + 2.0 * k) : 0.0;
  lesson.require_memory(4.0 * (3.0 * q + 2.0 * k + 2.0 * shape.l_elements() + workspace) + bf16,
                        4.0 * (4.0 * q + 2.0 * k) + bf16);
  buffers_ = std::make_unique<Buffers>(shape, lesson.seed(), workspace_elements, precision);
  Buffers& b = *buffers_;
  b.rows = sample_rows(shape.seq_q, 13, lesson.seed() + 3);
  for (int h = 0; h < shape.heads; ++h)
    for (int row : b.rows) b.references.push_back(attention_reference_row(shape, b.host, h, row));
}

AttentionBench::~AttentionBench() = default;

bool AttentionBench::check_rows(const std::string& what, const std::vector<float>& o, const std::vector<float>& l,
                                const std::vector<std::pair<std::string, wb::GuardReport>>& guards) {
  Buffers& b = *buffers_;
  const int d = shape_.d;
  // The sampled rows side by side: O's d values per row, then L, each with its own bound.
  std::vector<float> want_o, got_o, want_l, got_l;
  std::vector<wb::Tolerance> tol_o, tol_l;
  for (int h = 0; h < shape_.heads; ++h) {
    for (std::size_t r = 0; r < b.rows.size(); ++r) {
      const RowReference& ref = b.references[h * b.rows.size() + r];
      const RowTolerance t = attention_row_tolerance(ref, d, false, 1.0, precision_);
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
  if (!o_report.ok()) std::fprintf(stderr, "%s", o_report.describe(what + ": O (sampled rows)").c_str());
  if (!l_report.ok()) std::fprintf(stderr, "%s", l_report.describe(what + ": L (sampled rows)").c_str());
  bool pass = o_report.ok() && l_report.ok();
  for (const auto& [name, report] : guards) {
    if (!report.ok()) std::fprintf(stderr, "%s", report.describe(what + ": " + name).c_str());
    pass = pass && report.ok();
  }
  return pass;
}

bool AttentionBench::verify(const std::string& what, const AttentionKernel& kernel) {
  Buffers& b = *buffers_;
  b.o.fill(wb::poison_value<float>());
  b.l.fill(wb::poison_value<float>());
  kernel(b.q.data(), b.k.data(), b.v.data(), b.o.data(), b.l.data(), shape_, b.scores.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return check_rows(
      what, b.o.download(), b.l.download(),
      {{"O", b.o.check_guards()}, {"L", b.l.check_guards()}, {"the scores workspace", b.scores.check_guards()}});
}

bool AttentionBench::verify(const std::string& what, Bf16AttentionLauncher launch) {
  Buffers& b = *buffers_;
  if (precision_ != AttentionPrecision::BF16)
    throw std::logic_error("AttentionBench: a BF16 kernel needs a BF16 bench");
  b.o16.fill(wb::poison_value<__nv_bfloat16>());
  b.l.fill(wb::poison_value<float>());
  launch(b.q16.data(), b.k16.data(), b.v16.data(), b.o16.data(), b.l.data(), shape_, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return check_rows(what, wb::widen_bf16_output(b.o16.download()), b.l.download(),
                    {{"O", b.o16.check_guards()}, {"L", b.l.check_guards()}});
}

wb::TimingStats AttentionBench::time(Bf16AttentionLauncher launch) {
  Buffers& b = *buffers_;
  if (precision_ != AttentionPrecision::BF16)
    throw std::logic_error("AttentionBench: a BF16 kernel needs a BF16 bench");
  // Compute-bound: no flush, as the FP32 kernels and phase 1's BF16 rungs.
  return wb::bench(nullptr, lesson_.bench_options(false), [&] {
    launch(b.q16.data(), b.k16.data(), b.v16.data(), b.o16.data(), b.l.data(), shape_, nullptr);
  });
}

wb::TimingStats AttentionBench::time(const AttentionKernel& kernel) {
  Buffers& b = *buffers_;
  // Compute-bound (or bound by the scores' traffic, far larger than L2): no flush, as in phase 1.
  // Memory-bound (5.06): cold, K and V read from DRAM on every repeat.
  return wb::bench(nullptr, lesson_.bench_options(memory_bound_), [&] {
    kernel(b.q.data(), b.k.data(), b.v.data(), b.o.data(), b.l.data(), shape_, b.scores.data(), nullptr);
  });
}

const wb::TimingStats& AttentionBench::yardstick() {
  if (!yardstick_done_) {
    Buffers& b = *buffers_;
    attention_reference(b.q.data(), b.k.data(), b.v.data(), b.yard_o.data(), b.yard_l.data(), shape_, b.scores.data(),
                        nullptr);  // creates the cuBLAS handle, outside the timing
    yardstick_ = wb::bench(nullptr, lesson_.bench_options(memory_bound_), [&] {
      attention_reference(b.q.data(), b.k.data(), b.v.data(), b.yard_o.data(), b.yard_l.data(), shape_, b.scores.data(),
                          nullptr);
    });
    yardstick_done_ = true;
  }
  return yardstick_;
}

double AttentionBench::bytes_moved() const {
  return 4.0 * (2.0 * static_cast<double>(shape_.k_elements()) + 2.0 * static_cast<double>(shape_.q_elements()) +
                static_cast<double>(shape_.l_elements()));
}

void AttentionBench::report(const std::string& launcher, const wb::TimingStats& time, bool pass) {
  if (memory_bound_) {
    const std::string problem = std::to_string(shape_.heads) + "x" + std::to_string(shape_.seq_q) + "x" +
                                std::to_string(shape_.seq_k) + "x" + std::to_string(shape_.d) +
                                (shape_.causal ? " causal" : "");
    lesson_.report(lesson_.memory_bound_line(launcher, problem, time, bytes_moved(), pass));
    return;
  }
  const wb::TimingStats& yard = yardstick();
  wb::ResultLine line;
  line.id = lesson_.id();
  line.name = launcher;
  line.problem = std::to_string(shape_.heads) + "x" + std::to_string(shape_.seq_q) + "x" +
                 (shape_.seq_k != shape_.seq_q ? std::to_string(shape_.seq_k) + "x" : "") + std::to_string(shape_.d) +
                 (shape_.causal ? " causal" : "");
  line.time = time;
  line.unit = wb::RateUnit::GFLOPs;
  line.rate = wb::gflop_per_s(shape_.flop(), time.median_ms);
  const bool bf16 = precision_ == AttentionPrecision::BF16;
  const double peak = bf16 ? wb::bf16_peak_gflops(lesson_.device()) : lesson_.fp32_peak_gflops();
  line.peak_label = bf16 ? "BF16 peak" : "FP32 peak";
  wb::set_peak(line, peak);                // 0: unknown, and the line says so
  line.ref_style = wb::RefStyle::Speedup;  // "1.20x of 5.02": how much faster than the cuBLAS path
  line.ref_label = "of 5.02";
  line.ref_value = time.median_ms > 0 ? yard.median_ms / time.median_ms : 0.0;
  line.pass = pass;
  lesson_.report(line);
}

double AttentionBench::report_yardstick() {
  const AttentionKernel cublas{nullptr, attention_reference};
  const bool ok = verify("attention_cublas (5.02's path)", cublas);
  const wb::TimingStats& yard = yardstick();
  report("attention_cublas", yard, ok);
  return yard.median_ms;
}

int run_attention_lesson(wb::Lesson& lesson, const char* launcher, const AttentionKernel& kernel, bool causal) {
  AttentionBench bench(lesson, parse_attention_size(lesson.options().size, causal));
  wb::MeasureSteps steps;
  steps.verify = [&](const std::string& when) { return bench.verify(launcher + when, kernel); };
  steps.time = [&] { return bench.time(kernel); };
  const wb::Measured measured = wb::measure(steps);
  const wb::TimingStats& time = measured.time;
  bool pass = measured.pass;
  bench.report(launcher, time, pass);
  return pass ? wb::kExitPass : wb::kExitFail;
}

int run_bf16_attention_lesson(wb::Lesson& lesson, const char* launcher, Bf16AttentionLauncher launch, bool causal) {
  AttentionBench bench(lesson, parse_attention_size(lesson.options().size, causal, 128), 0, false,
                       AttentionPrecision::BF16);
  wb::MeasureSteps steps;
  steps.verify = [&](const std::string& when) { return bench.verify(launcher + when, launch); };
  steps.time = [&] { return bench.time(launch); };
  const wb::Measured measured = wb::measure(steps);
  const wb::TimingStats& time = measured.time;
  bool pass = measured.pass;
  bench.report(launcher, time, pass);  // times the yardstick: 5.02's cuBLAS path on the widened inputs
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace p5
