// SPDX-License-Identifier: MIT
#include "phase5_attention/tests/backward_grading.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "common/bf16.h"
#include "common/buffer.h"
#include "common/testing.h"
#include "phase5_attention/harness/reference_backward_gpu.h"

namespace {

using p5::AttentionData;
using p5::AttentionPrecision;
using p5::BackwardReference;
using p5::BackwardTolerance;
using p5::BackwardVariant;

// Above this many multiply-adds the CPU reference is too slow for a test; the cuBLAS backward grades.
constexpr double kCpuReferenceLimit = double(1 << 28);

std::string shape_text(const BackwardCase& c) {
  const AttentionShape& s = c.shape;
  std::ostringstream text;
  text << "heads = " << s.heads;
  if (s.seq_q == s.seq_k) {
    text << ", seq = " << s.seq_q;
  } else {
    text << ", seq_q = " << s.seq_q << ", seq_k = " << s.seq_k;
  }
  text << ", d = " << s.d << (s.causal ? ", causal" : "");
  if (c.data == AttentionData::HugeLogits) text << ", logits near +-1e4";
  return text.str();
}

BackwardCase make_case(int heads, int seq_q, int seq_k, int d, bool causal, AttentionData data) {
  BackwardCase c;
  c.shape = AttentionShape{heads, seq_q, seq_k, d, causal};
  c.data = data;
  return c;
}

std::vector<BackwardCase> square_cases(const std::vector<int>& seqs, bool causal, AttentionData data) {
  std::vector<BackwardCase> cases;
  for (int seq : seqs) {
    // Under compute-sanitizer (racecheck tracks every shared-memory access): tails up to 65, 2 heads.
    if (wb::test::sanitize_mode() && seq > 65) continue;
    for (int d : {64, 128}) {
      const int heads = wb::test::sanitize_mode() ? 2 : seq == 1 ? 1 : seq <= 65 ? 3 : 2;
      cases.push_back(make_case(heads, seq, seq, d, causal, data));
    }
  }
  return cases;
}

// One gradient against its expected values and bounds.
struct Gradient {
  const char* name;
  const std::vector<float>& got;
  std::vector<float> want;
  std::vector<wb::Tolerance> tol;
};

// Does `got` match a (wrong) reference within `slack` times the bound, everywhere?
bool all_within(const std::vector<float>& got, const std::vector<double>& want, const std::vector<double>& magnitude,
                double rel, double abs) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (wb::same_bits(got[i], wb::poison_value<float>()) || std::isnan(got[i])) return false;
    if (std::fabs(got[i] - want[i]) > abs + rel * magnitude[i] + 2.0 * wb::kFloatEpsilon * std::fabs(want[i]))
      return false;
  }
  return true;
}

// A bug the grader can recognise: a wrong backward whose gradients (those named) the kernel's match.
struct Hypothesis {
  BackwardVariant variant;
  bool dq, dk, dv;  // which gradients must match the variant
  std::string diagnosis;
};

std::vector<Hypothesis> hypotheses(const AttentionShape& s) {
  std::vector<Hypothesis> h;
  if (s.causal) {
    BackwardVariant no_mask;
    no_mask.mask = false;
    h.push_back({no_mask, true, true, true,
                 "dQ, dK and dV match the backward without the causal mask: in the backward too, query i sees "
                 "keys j <= i only; P_ij must be 0 for every later key (the recomputed P gets the forward's mask), "
                 "and the query tiles that end before a key block's first key have nothing to give it."});
  }
  BackwardVariant no_p;
  no_p.no_p_factor = true;
  h.push_back({no_p, true, true, false,
               "dQ and dK match dS = dP - D without the factor P: the softmax's Jacobian gives dS_ij = P_ij (dP_ij - "
               "D_i); without P_ij every key counts as if it had all the probability."});
  BackwardVariant from_o;
  from_o.d_from_o = true;
  h.push_back({from_o, true, true, false,
               "dQ and dK match D computed from O alone (D_i = sum_c O_ic): D_i = sum_c dO_ic O_ic, the dot "
               "product of row i of dO with row i of O (the prologue reads both)."});
  for (double power : {0.0, 2.0}) {
    BackwardVariant dk;
    dk.dk_scale_power = power;
    h.push_back({dk, false, true, false,
                 power == 0.0 ? "dK matches dS^T Q without the softmax scale: dK = scale dS^T Q, with the same "
                                "1/sqrt(d) as the logits (S = scale Q K^T, so each of Q and K gets it once)."
                              : "dK matches dS^T Q with the scale applied twice (1/d): dK = scale dS^T Q, once."});
    BackwardVariant dq;
    dq.dq_scale_power = power;
    h.push_back({dq, true, false, false,
                 power == 0.0 ? "dQ matches dS K without the softmax scale: dQ = scale dS K (S = scale Q K^T)."
                              : "dQ matches dS K with the scale applied twice (1/d): dQ = scale dS K, once."});
  }
  for (int tile : {16, 32, 64, 128}) {
    const int limit = s.seq_q / tile * tile;
    if (limit > 0 && limit < s.seq_q) {
      BackwardVariant q;
      q.query_limit = limit;
      h.push_back({q, false, true, true,
                   "dK and dV match the gradients over the first " + std::to_string(limit) +
                       " queries only: the last, "
                       "partial query tile (rows " +
                       std::to_string(limit) + ".." + std::to_string(s.seq_q - 1) +
                       ") never reached dK and dV: walk ceil(seq_q / tile) query tiles and mask the rows past seq_q."});
    }
    const int klimit = s.seq_k / tile * tile;
    if (klimit > 0 && klimit < s.seq_k) {
      BackwardVariant k;
      k.key_limit = klimit;
      h.push_back({k, true, false, false,
                   "dQ matches the gradient over the first " + std::to_string(klimit) +
                       " keys only: the last, partial "
                       "key block (keys " +
                       std::to_string(klimit) + ".." + std::to_string(s.seq_k - 1) +
                       ") is never processed: launch ceil(seq_k / block) key blocks and mask the keys past seq_k."});
    }
  }
  return h;
}

// dQ, dK, dV (in that order) against a reference and its bounds.
struct Judged {
  std::vector<float> want[3];
  std::vector<wb::Tolerance> tol[3];
};

std::string explain(const AttentionShape& s, const p5::BackwardInputs& in, bool exact_dots, const bool ok[3],
                    const std::vector<float>* got[3], bool on_cpu) {
  if (on_cpu) {
    for (const Hypothesis& h : hypotheses(s)) {
      const BackwardReference alt = p5::attention_backward_reference(s, in, exact_dots, h.variant);
      const BackwardTolerance t = p5::backward_bound(s, alt.logit_error, AttentionPrecision::BF16, 2.0);
      const bool dq = !h.dq || all_within(*got[0], alt.dq, alt.mq, t.dq_rel, t.abs);
      const bool dk = !h.dk || all_within(*got[1], alt.dk, alt.mk, t.dk_rel, t.abs);
      const bool dv = !h.dv || all_within(*got[2], alt.dv, alt.mv, t.dv_rel, t.abs);
      if (dq && dk && dv) return h.diagnosis;
    }
  }
  if (ok[1] && ok[2])
    return "dK and dV are right but dQ is not: each key block adds its part dS K to every query row's dQ, so "
           "dQ_i sums over all key blocks, which run in different blocks at the same time. Plain stores (or a "
           "read-add-write without atomics) keep one block's part and lose the others: add into an FP32 "
           "accumulator with atomicAdd and convert it once at the end (zeroed before), or compute dQ in a "
           "second pass with one block per query tile; and dQ = scale dS K.";
  if (ok[0] && ok[1])
    return "dQ and dK are right but dV is not: dV_j = sum_i P_ij dO_i, with P = exp(scale q k - L) the "
           "recomputed probabilities (the A operand: P^T, the block's keys as rows).";
  if (ok[2])
    return "dV is right (so P is) but dQ and dK are not: look at dS_ij = P_ij (dP_ij - D_i), with dP = dO V^T "
           "and D_i = sum_c dO_ic O_ic, and at the scale of dQ = scale dS K and dK = scale dS^T Q.";
  return "dQ, dK and dV are wrong: check P first (exp(scale q_i k_j - L_i), L as given, natural log, and the "
         "masks: keys past seq_k, queries past seq_q and, causal, keys after the query), then dV = P^T dO.";
}

}  // namespace

std::vector<BackwardCase> backward_cases(bool causal) {
  return square_cases({1, 17, 63, 64, 65, 129, 257}, causal, AttentionData::Uniform);
}

std::vector<BackwardCase> backward_cross_cases() {
  std::vector<BackwardCase> cases;
  const std::pair<int, int> shapes[] = {{17, 65}, {65, 17}, {1, 129}, {129, 1}, {63, 257}, {257, 63}};
  for (const auto& [sq, sk] : shapes) {
    if (wb::test::sanitize_mode() && std::max(sq, sk) > 65) continue;
    for (int d : {64, 128})
      cases.push_back(make_case(wb::test::sanitize_mode() ? 2 : 3, sq, sk, d, false, AttentionData::Uniform));
  }
  return cases;
}

std::vector<BackwardCase> backward_huge_logit_cases(bool causal) {
  return square_cases({65, 129}, causal, AttentionData::HugeLogits);
}

std::vector<BackwardCase> backward_large_cases(bool causal) {
  std::vector<BackwardCase> cases;
  if (wb::test::sanitize_mode()) return cases;
  for (int d : {64, 128}) cases.push_back(make_case(2, 4096, 4096, d, causal, AttentionData::Uniform));
  return cases;
}

std::string judge_backward(const char* name, const BackwardCase& c, const p5::BackwardInputs& in,
                           const std::vector<float>& dq, const std::vector<float>& dk, const std::vector<float>& dv) {
  const AttentionShape& s = c.shape;
  const bool exact_dots = c.data == AttentionData::HugeLogits;
  const bool on_cpu = 2.0 * s.heads * double(s.seq_q) * s.seq_k * s.d <= kCpuReferenceLimit;
  Judged j;
  if (on_cpu) {
    const BackwardReference ref = p5::attention_backward_reference(s, in, exact_dots);
    const BackwardTolerance t = p5::backward_bound(s, ref.logit_error, AttentionPrecision::BF16);
    const std::vector<double>* want[3] = {&ref.dq, &ref.dk, &ref.dv};
    const std::vector<double>* mag[3] = {&ref.mq, &ref.mk, &ref.mv};
    const double rel[3] = {t.dq_rel, t.dk_rel, t.dv_rel};
    for (int g = 0; g < 3; ++g) {
      for (std::size_t i = 0; i < want[g]->size(); ++i) {
        j.want[g].push_back(static_cast<float>((*want[g])[i]));
        // + u |x|: the double reference rounded to float for the comparison
        j.tol[g].push_back({t.abs + rel[g] * (*mag[g])[i], wb::kFloatEpsilon});
      }
    }
  } else {
    // The kernel's bound plus the cuBLAS backward's own (FP32 on the same inputs), per element, with the
    // magnitudes from the same pipeline on absolute values; |q|, |k| <= 1 bound the logits' errors.
    auto absolute = [](std::vector<float> x) {
      for (float& v : x) v = std::fabs(v);
      return x;
    };
    const wb::DeviceBuffer<float> q(in.q), k(in.k), v(in.v), o(in.o), g(in.dout), l(in.l);
    const wb::DeviceBuffer<float> qa(absolute(in.q)), ka(absolute(in.k)), va(absolute(in.v)), oa(absolute(in.o)),
        ga(absolute(in.dout));
    wb::DeviceBuffer<float> rq(s.q_elements()), rk(s.k_elements()), rv(s.k_elements()), mq(s.q_elements()),
        mk(s.k_elements()), mv(s.k_elements()), work(p5::attention_backward_cublas_workspace_elements(s));
    p5::attention_backward_reference(q.data(), k.data(), v.data(), o.data(), g.data(), l.data(), rq.data(), rk.data(),
                                     rv.data(), s, work.data(), nullptr);
    p5::attention_backward_magnitudes(q.data(), k.data(), qa.data(), ka.data(), va.data(), oa.data(), ga.data(),
                                      l.data(), mq.data(), mk.data(), mv.data(), s, work.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const double scale = attention_scale(s.d), logit = scale * s.d;
    const double l_max = logit + std::log(double(s.seq_k));
    const double err = p5::backward_logit_error(s.d, logit, logit, l_max, exact_dots);
    const BackwardTolerance tk = p5::backward_bound(s, err, AttentionPrecision::BF16);
    const BackwardTolerance tr = p5::backward_bound(s, err, AttentionPrecision::FP32);
    j.want[0] = rq.download();
    j.want[1] = rk.download();
    j.want[2] = rv.download();
    const std::vector<float> m[3] = {mq.download(), mk.download(), mv.download()};
    const double rel[3] = {tk.dq_rel + tr.dq_rel, tk.dk_rel + tr.dk_rel, tk.dv_rel + tr.dv_rel};
    for (int gi = 0; gi < 3; ++gi)
      for (float mag : m[gi])
        // a few float roundings of the magnitude itself: 1 + 1e-5 covers them
        j.tol[gi].push_back({tk.abs + tr.abs + rel[gi] * (1.0 + 1e-5) * mag, 2.0 * wb::kFloatEpsilon});
  }
  const std::vector<float>* got[3] = {&dq, &dk, &dv};
  const char* names[3] = {"dQ", "dK", "dV"};
  bool ok[3];
  bool all_untouched = true;
  std::string report;
  for (int g = 0; g < 3; ++g) {
    const wb::CompareReport r = wb::compare_each(
        j.want[g].data(), got[g]->data(), j.want[g].size(), [&](std::size_t i) { return j.tol[g][i]; },
        static_cast<std::size_t>(s.d));
    ok[g] = r.ok();
    all_untouched = all_untouched && r.count > 0 && r.untouched == r.count;
    if (!r.ok()) report += r.describe(std::string(name) + ": " + names[g]);
  }
  if (ok[0] && ok[1] && ok[2]) return "";
  if (all_untouched) return report;  // describe() already says: output untouched
  return report + explain(s, in, exact_dots, ok, got, on_cpu);
}

std::string grade_backward(const char* name, Bf16AttentionBackwardLauncher launch, const BackwardCase& c,
                           std::uint64_t seed) {
  const AttentionShape& s = c.shape;
  p5::BackwardInputs in = p5::make_backward_inputs(s, c.data, seed);
  p5::backward_forward(s, in);
  // Inputs between NaN canaries (a read past an input shows as NaN); outputs poisoned between canaries.
  wb::GuardedDeviceBuffer<__nv_bfloat16> q(s.q_elements()), k(s.k_elements()), v(s.k_elements()), o(s.q_elements()),
      g(s.q_elements()), dq(s.q_elements()), dk(s.k_elements()), dv(s.k_elements());
  wb::GuardedDeviceBuffer<float> l(s.l_elements()), workspace(attention_backward_workspace_elements(s));
  q.upload(wb::to_bf16(in.q));
  k.upload(wb::to_bf16(in.k));
  v.upload(wb::to_bf16(in.v));
  o.upload(wb::to_bf16(in.o));
  g.upload(wb::to_bf16(in.dout));
  l.upload(in.l);
  try {
    launch(q.data(), k.data(), v.data(), o.data(), g.data(), l.data(), dq.data(), dk.data(), dv.data(), s,
           workspace.data(), nullptr);
  } catch (const wb::CudaError& e) {
    return std::string("launching ") + name + " failed: " + e.what();
  } catch (const std::invalid_argument& e) {
    return std::string(name) + " refused the shape: " + e.what();
  }
  const cudaError_t ran = cudaDeviceSynchronize();
  if (ran != cudaSuccess)
    return std::string("the kernel of ") + name + " failed while running: " + wb::test::explain_execution_error(ran);
  const std::pair<const char*, wb::GuardReport> guards[] = {
      {"dQ", dq.check_guards()}, {"dK", dk.check_guards()},
      {"dV", dv.check_guards()}, {"the workspace", workspace.check_guards()},
      {"Q", q.check_guards()},   {"K", k.check_guards()},
      {"V", v.check_guards()},   {"O", o.check_guards()},
      {"dO", g.check_guards()},  {"L", l.check_guards()}};
  for (const auto& [what, report] : guards)
    if (!report.ok()) return report.describe(std::string(name) + ": " + what);
  return judge_backward(name, c, in, wb::widen_bf16_output(dq.download()), wb::widen_bf16_output(dk.download()),
                        wb::widen_bf16_output(dv.download()));
}

void check_backward(const char* name, Bf16AttentionBackwardLauncher launch, const BackwardCase& c) {
  const std::uint64_t seed = wb::test::seed();
  INFO(name << " with " << shape_text(c) << ", q, k, v, dO uniform in [-1, 1) rounded to BF16 (O and L from the "
            << "forward), seed " << seed << " (replay with WB_SEED=" << seed << ")");
  INFO(
      "the BF16 bound: each gradient within about 2^-7 of its magnitude (P or dS rounded to BF16 before a "
      "product, the gradient rounded to BF16) + the FP32 terms; dQ and dK's magnitude is scale sum p m |k| "
      "(or |q|) with m = sum|dO v| + sum|dO o|, dV's sum p |dO|");
  const std::string failure = grade_backward(name, launch, c, seed);
  if (!failure.empty()) FAIL(failure);
}
