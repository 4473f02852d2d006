// SPDX-License-Identifier: MIT
#include "phase5_attention/harness/backward_lesson.h"

#include <cstdio>
#include <utility>
#include <vector>

#include "common/bf16.h"
#include "common/buffer.h"
#include "common/gpu.h"
#include "common/measure.h"
#include "common/verify.h"
#include "phase5_attention/harness/lesson_support.h"
#include "phase5_attention/harness/reference_backward.h"
#include "phase5_attention/harness/reference_backward_gpu.h"

namespace p5 {

struct BackwardProblem::Buffers {
  BackwardInputs host;
  wb::DeviceBuffer<__nv_bfloat16> q, k, v, o, dout;
  wb::DeviceBuffer<float> l, workspace;
  wb::GuardedDeviceBuffer<__nv_bfloat16> dq, dk, dv;
  // The cuBLAS path (empty without it): the inputs widened, its outputs and its P, dS workspace.
  wb::DeviceBuffer<float> fq, fk, fv, fo, fdout, cublas_workspace;
  wb::GuardedDeviceBuffer<float> fdq, fdk, fdv;
  // Sampled rows (the same in the first and the last head): query rows of dQ, key rows of dK and dV.
  std::vector<int> heads, q_rows, k_rows;
  std::vector<BackwardRow> want_dq, want_dk, want_dv;  // [head][row]
  Buffers(const AttentionShape& s, std::uint64_t seed, bool with_cublas)
      : host(make_backward_inputs(s, AttentionData::Uniform, seed)),
        dq(s.q_elements()),
        dk(s.k_elements()),
        dv(s.k_elements()),
        fdq(with_cublas ? s.q_elements() : 0),
        fdk(with_cublas ? s.k_elements() : 0),
        fdv(with_cublas ? s.k_elements() : 0) {
    backward_forward(s, host);
    q = wb::DeviceBuffer<__nv_bfloat16>(wb::to_bf16(host.q));
    k = wb::DeviceBuffer<__nv_bfloat16>(wb::to_bf16(host.k));
    v = wb::DeviceBuffer<__nv_bfloat16>(wb::to_bf16(host.v));
    o = wb::DeviceBuffer<__nv_bfloat16>(wb::to_bf16(host.o));
    dout = wb::DeviceBuffer<__nv_bfloat16>(wb::to_bf16(host.dout));
    l = wb::DeviceBuffer<float>(host.l);
    workspace = wb::DeviceBuffer<float>(attention_backward_workspace_elements(s));
    if (with_cublas) {
      fq = wb::DeviceBuffer<float>(host.q);
      fk = wb::DeviceBuffer<float>(host.k);
      fv = wb::DeviceBuffer<float>(host.v);
      fo = wb::DeviceBuffer<float>(host.o);
      fdout = wb::DeviceBuffer<float>(host.dout);
      cublas_workspace = wb::DeviceBuffer<float>(attention_backward_cublas_workspace_elements(s));
    }
    heads = s.heads > 1 ? std::vector<int>{0, s.heads - 1} : std::vector<int>{0};
    if (s.seq_q > 0) q_rows = sample_rows(s.seq_q, 5, seed + 3);
    k_rows = sample_rows(s.seq_k, 5, seed + 4);
    for (int h : heads) {
      for (int row : q_rows) want_dq.push_back(backward_dq_row(s, host, h, row));
      for (int row : k_rows) {
        BackwardRow gk, gv;
        backward_dkv_row(s, host, h, row, &gk, &gv);
        want_dk.push_back(std::move(gk));
        want_dv.push_back(std::move(gv));
      }
    }
  }
};

double BackwardProblem::device_bytes(const AttentionShape& s, bool with_cublas) {
  const double q = static_cast<double>(s.q_elements()), k = static_cast<double>(s.k_elements());
  // BF16 Q, O, dO, dQ and K, V, dK, dV; L; the workspace; the forward's FP32 pass (Q, K, V, O, L and
  // the scores) while the inputs are made.
  double bytes = 2.0 * (4.0 * q + 4.0 * k) +
                 4.0 * (s.l_elements() + static_cast<double>(attention_backward_workspace_elements(s)));
  double forward = 4.0 * (2.0 * q + 2.0 * k + static_cast<double>(attention_scores_elements(s)));
  if (with_cublas)
    bytes += 4.0 * (4.0 * q + 4.0 * k + static_cast<double>(attention_backward_cublas_workspace_elements(s)));
  return bytes + forward;
}

double BackwardProblem::host_bytes(const AttentionShape& s) {
  return 4.0 * (6.0 * static_cast<double>(s.q_elements()) + 6.0 * static_cast<double>(s.k_elements()));
}

BackwardProblem::BackwardProblem(const AttentionShape& shape, std::uint64_t seed, bool with_cublas)
    : shape_(shape), b_(std::make_unique<Buffers>(shape, seed, with_cublas)) {}

BackwardProblem::~BackwardProblem() = default;

bool BackwardProblem::check(const std::string& what, const std::vector<float>& dq, const std::vector<float>& dk,
                            const std::vector<float>& dv, AttentionPrecision precision) {
  const int d = shape_.d;
  bool pass = true;
  auto compare = [&](const char* name, const std::vector<float>& got, const std::vector<int>& rows, int seq,
                     const std::vector<BackwardRow>& want, int which) {
    std::vector<float> w, g;
    std::vector<wb::Tolerance> tol;
    for (std::size_t hi = 0; hi < b_->heads.size(); ++hi) {
      for (std::size_t ri = 0; ri < rows.size(); ++ri) {
        const BackwardRow& ref = want[hi * rows.size() + ri];
        const BackwardTolerance t = backward_bound(shape_, ref.logit_error, precision);
        const double rel = which == 0 ? t.dq_rel : which == 1 ? t.dk_rel : t.dv_rel;
        const std::size_t row = static_cast<std::size_t>(b_->heads[hi]) * seq + rows[ri];
        for (int c = 0; c < d; ++c) {
          w.push_back(static_cast<float>(ref.g[c]));
          g.push_back(got[row * d + c]);
          tol.push_back({t.abs + rel * ref.m[c], wb::kFloatEpsilon});  // + rounding the reference to float
        }
      }
    }
    const wb::CompareReport report = wb::compare_each(
        w.data(), g.data(), w.size(), [&](std::size_t i) { return tol[i]; }, static_cast<std::size_t>(d));
    if (!report.ok()) std::fprintf(stderr, "%s", report.describe(what + ": " + name + " (sampled rows)").c_str());
    pass = pass && report.ok();
  };
  compare("dQ", dq, b_->q_rows, shape_.seq_q, b_->want_dq, 0);
  compare("dK", dk, b_->k_rows, shape_.seq_k, b_->want_dk, 1);
  compare("dV", dv, b_->k_rows, shape_.seq_k, b_->want_dv, 2);
  return pass;
}

bool BackwardProblem::verify(const std::string& what, Bf16AttentionBackwardLauncher launch) {
  Buffers& b = *b_;
  b.dq.fill(wb::poison_value<__nv_bfloat16>());
  b.dk.fill(wb::poison_value<__nv_bfloat16>());
  b.dv.fill(wb::poison_value<__nv_bfloat16>());
  launch(b.q.data(), b.k.data(), b.v.data(), b.o.data(), b.dout.data(), b.l.data(), b.dq.data(), b.dk.data(),
         b.dv.data(), shape_, b.workspace.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  bool pass = check(what, wb::widen_bf16_output(b.dq.download()), wb::widen_bf16_output(b.dk.download()),
                    wb::widen_bf16_output(b.dv.download()), AttentionPrecision::BF16);
  for (const auto& [name, report] : {std::pair<const char*, wb::GuardReport>{"dQ", b.dq.check_guards()},
                                     {"dK", b.dk.check_guards()},
                                     {"dV", b.dv.check_guards()}}) {
    if (!report.ok()) std::fprintf(stderr, "%s", report.describe(what + ": " + name).c_str());
    pass = pass && report.ok();
  }
  return pass;
}

wb::TimingStats BackwardProblem::time(Bf16AttentionBackwardLauncher launch, const wb::BenchOptions& options) {
  Buffers& b = *b_;
  return wb::bench(nullptr, options, [&] {
    launch(b.q.data(), b.k.data(), b.v.data(), b.o.data(), b.dout.data(), b.l.data(), b.dq.data(), b.dk.data(),
           b.dv.data(), shape_, b.workspace.data(), nullptr);
  });
}

bool BackwardProblem::verify_cublas(const std::string& what) {
  Buffers& b = *b_;
  if (b.fq.size() == 0) return false;
  b.fdq.fill(wb::poison_value<float>());
  b.fdk.fill(wb::poison_value<float>());
  b.fdv.fill(wb::poison_value<float>());
  attention_backward_reference(b.fq.data(), b.fk.data(), b.fv.data(), b.fo.data(), b.fdout.data(), b.l.data(),
                               b.fdq.data(), b.fdk.data(), b.fdv.data(), shape_, b.cublas_workspace.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return check(what, b.fdq.download(), b.fdk.download(), b.fdv.download(), AttentionPrecision::FP32);
}

wb::TimingStats BackwardProblem::time_cublas(const wb::BenchOptions& options) {
  Buffers& b = *b_;
  if (b.fq.size() == 0) return {};
  return wb::bench(nullptr, options, [&] {
    attention_backward_reference(b.fq.data(), b.fk.data(), b.fv.data(), b.fo.data(), b.fdout.data(), b.l.data(),
                                 b.fdq.data(), b.fdk.data(), b.fdv.data(), shape_, b.cublas_workspace.data(), nullptr);
  });
}

int run_backward_lesson(wb::Lesson& lesson, const char* launcher, Bf16AttentionBackwardLauncher launch) {
  const AttentionShape shape = parse_attention_size(lesson.options().size, false, 128);
  lesson.require_memory(BackwardProblem::device_bytes(shape, true), BackwardProblem::host_bytes(shape));
  BackwardProblem problem(shape, lesson.seed(), true);
  wb::MeasureSteps steps;
  steps.verify = [&](const std::string& when) { return problem.verify(launcher + when, launch); };
  steps.time = [&] { return problem.time(launch, lesson.bench_options(false)); };
  const wb::Measured measured = wb::measure(steps);
  const wb::TimingStats& time = measured.time;
  bool pass = measured.pass;
  // The yardstick: the cuBLAS backward on the same inputs, checked like the kernel, timed the same way.
  if (!problem.verify_cublas("attention_backward_cublas (the yardstick)"))
    std::fprintf(stderr, "the cuBLAS backward failed its own check: the x of it below is not to be trusted\n");
  const wb::TimingStats yard = problem.time_cublas(lesson.bench_options(false));

  wb::ResultLine line;
  line.id = lesson.id();
  line.name = launcher;
  line.problem = std::to_string(shape.heads) + "x" + std::to_string(shape.seq_q) + "x" + std::to_string(shape.d);
  line.time = time;
  line.unit = wb::RateUnit::GFLOPs;
  line.rate = wb::gflop_per_s(attention_backward_flop(shape), time.median_ms);
  line.peak_label = "BF16 peak";
  wb::set_peak(line, wb::bf16_peak_gflops(lesson.device()));
  line.ref_style = wb::RefStyle::Speedup;  // "3.20x of cuBLAS bwd": how much faster than the unfused path
  line.ref_label = "of cuBLAS bwd";
  line.ref_value = time.median_ms > 0 ? yard.median_ms / time.median_ms : 0.0;
  line.pass = pass;
  lesson.report(line);
  std::printf(
      "FLOP counted as 2.5x the forward's 4 seq^2 d per head (the five products, S recomputed): %.1f GFLOP; "
      "the cuBLAS backward: %.3f ms\n",
      attention_backward_flop(shape) / 1e9, yard.median_ms);
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace p5
