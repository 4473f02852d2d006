// SPDX-License-Identifier: MIT
#include "phase5_attention/harness/reference_backward.h"

#include <algorithm>
#include <cmath>

#include "common/bf16.h"
#include "common/data.h"
#include "common/verify.h"

// ---- the backward's shape helpers (declared in attention.cuh) ------------------------------------

std::size_t attention_backward_workspace_elements(const AttentionShape& s) {
  return static_cast<std::size_t>(std::max(s.heads, 0)) * static_cast<std::size_t>(std::max(s.seq_q, 0)) *
         static_cast<std::size_t>(s.d + 1);
}

double attention_backward_flop(const AttentionShape& s) {
  return 2.5 * s.flop();
}

namespace p5 {

BackwardInputs make_backward_inputs(const AttentionShape& shape, AttentionData data, std::uint64_t seed) {
  AttentionInputs qkv = make_attention_inputs(shape, data, seed, AttentionPrecision::BF16);
  BackwardInputs in;
  in.q = std::move(qkv.q);
  in.k = std::move(qkv.k);
  in.v = std::move(qkv.v);
  in.dout = wb::rounded_to_bf16(wb::random_floats(shape.q_elements(), seed + 3));
  return in;
}

void backward_forward_cpu(const AttentionShape& shape, BackwardInputs& in) {
  const AttentionInputs qkv{in.q, in.k, in.v};
  in.o.assign(shape.q_elements(), 0.0f);
  in.l.assign(shape.l_elements(), 0.0f);
  for (int h = 0; h < shape.heads; ++h) {
    for (int i = 0; i < shape.seq_q; ++i) {
      const RowReference row = attention_reference_row(shape, qkv, h, i);
      const std::size_t r = static_cast<std::size_t>(h) * shape.seq_q + i;
      for (int c = 0; c < shape.d; ++c) in.o[r * shape.d + c] = wb::round_to_bf16(static_cast<float>(row.o[c]));
      in.l[r] = static_cast<float>(row.lse);
    }
  }
}

BackwardReference attention_backward_reference(const AttentionShape& shape, const BackwardInputs& in, bool exact_dots,
                                               const BackwardVariant& variant) {
  const int d = shape.d, sq = shape.seq_q, sk = shape.seq_k;
  const double scale = attention_scale(d);
  const double dq_scale = std::pow(scale, variant.dq_scale_power), dk_scale = std::pow(scale, variant.dk_scale_power);
  BackwardReference r;
  r.dq.assign(shape.q_elements(), 0.0);
  r.mq.assign(shape.q_elements(), 0.0);
  r.dk.assign(shape.k_elements(), 0.0);
  r.mk.assign(shape.k_elements(), 0.0);
  r.dv.assign(shape.k_elements(), 0.0);
  r.mv.assign(shape.k_elements(), 0.0);
  const int queries = variant.query_limit >= 0 ? std::min(sq, variant.query_limit) : sq;
  const int key_end = variant.key_limit >= 0 ? std::min(sk, variant.key_limit) : sk;
  for (int h = 0; h < shape.heads; ++h) {
    const std::size_t qb = static_cast<std::size_t>(h) * sq, kb = static_cast<std::size_t>(h) * sk;
    for (int i = 0; i < queries; ++i) {
      const float* q = &in.q[(qb + i) * d];
      const float* o = &in.o[(qb + i) * d];
      const float* g = &in.dout[(qb + i) * d];
      const double l = in.l[qb + i];
      double dsum = 0, dabs = 0;
      for (int c = 0; c < d; ++c) {
        dsum += variant.d_from_o ? double(o[c]) : double(g[c]) * o[c];
        dabs += std::fabs(double(g[c]) * o[c]);
      }
      int keys = key_end;
      if (shape.causal && variant.mask) keys = std::min(keys, i + 1 + sk - sq);
      for (int j = 0; j < keys; ++j) {
        const float* k = &in.k[(kb + j) * d];
        const float* v = &in.v[(kb + j) * d];
        double dot = 0, dot_abs = 0, dp = 0, dp_abs = 0;
        for (int c = 0; c < d; ++c) {
          dot += double(q[c]) * k[c];
          dot_abs += std::fabs(double(q[c]) * k[c]);
          dp += double(g[c]) * v[c];
          dp_abs += std::fabs(double(g[c]) * v[c]);
        }
        const double s = dot * scale;
        const double p = std::exp(s - l);
        r.logit_error = std::max(r.logit_error, backward_logit_error(d, dot_abs * scale, s, l, exact_dots));
        const double ds = variant.no_p_factor ? dp - dsum : p * (dp - dsum);
        const double m = p * (dp_abs + dabs);  // bounds |dS_ij|
        for (int c = 0; c < d; ++c) {
          r.dq[(qb + i) * d + c] += dq_scale * ds * k[c];
          r.mq[(qb + i) * d + c] += scale * m * std::fabs(k[c]);
          r.dk[(kb + j) * d + c] += dk_scale * ds * q[c];
          r.mk[(kb + j) * d + c] += scale * m * std::fabs(q[c]);
          r.dv[(kb + j) * d + c] += p * g[c];
          r.mv[(kb + j) * d + c] += p * std::fabs(g[c]);
        }
      }
    }
  }
  return r;
}

namespace {

// What every (query i, key j) pair contributes: p, dS, and m = p (sum|do v| + sum|do o|).
struct Pair {
  double p = 0, ds = 0, m = 0, logit_error = 0;
};
Pair backward_pair(const AttentionShape& shape, const BackwardInputs& in, int head, int i, int j) {
  const int d = shape.d;
  const double scale = attention_scale(d);
  const std::size_t qr = static_cast<std::size_t>(head) * shape.seq_q + i;
  const std::size_t kr = static_cast<std::size_t>(head) * shape.seq_k + j;
  const float *q = &in.q[qr * d], *o = &in.o[qr * d], *g = &in.dout[qr * d], *k = &in.k[kr * d], *v = &in.v[kr * d];
  double dot = 0, dot_abs = 0, dp = 0, dp_abs = 0, dsum = 0, dabs = 0;
  for (int c = 0; c < d; ++c) {
    dot += double(q[c]) * k[c];
    dot_abs += std::fabs(double(q[c]) * k[c]);
    dp += double(g[c]) * v[c];
    dp_abs += std::fabs(double(g[c]) * v[c]);
    dsum += double(g[c]) * o[c];
    dabs += std::fabs(double(g[c]) * o[c]);
  }
  Pair pair;
  const double s = dot * scale, l = in.l[qr];
  pair.p = std::exp(s - l);
  pair.ds = pair.p * (dp - dsum);
  pair.m = pair.p * (dp_abs + dabs);
  pair.logit_error = backward_logit_error(d, dot_abs * scale, s, l, false);
  return pair;
}

}  // namespace

BackwardRow backward_dq_row(const AttentionShape& shape, const BackwardInputs& in, int head, int row) {
  const int d = shape.d;
  const double scale = attention_scale(d);
  BackwardRow r;
  r.g.assign(d, 0.0);
  r.m.assign(d, 0.0);
  const int keys = attention_visible_keys(shape, row);
  for (int j = 0; j < keys; ++j) {
    const Pair pair = backward_pair(shape, in, head, row, j);
    const float* k = &in.k[(static_cast<std::size_t>(head) * shape.seq_k + j) * d];
    for (int c = 0; c < d; ++c) {
      r.g[c] += scale * pair.ds * k[c];
      r.m[c] += scale * pair.m * std::fabs(k[c]);
    }
    r.logit_error = std::max(r.logit_error, pair.logit_error);
  }
  return r;
}

void backward_dkv_row(const AttentionShape& shape, const BackwardInputs& in, int head, int row, BackwardRow* dk,
                      BackwardRow* dv) {
  const int d = shape.d;
  const double scale = attention_scale(d);
  dk->g.assign(d, 0.0);
  dk->m.assign(d, 0.0);
  dv->g.assign(d, 0.0);
  dv->m.assign(d, 0.0);
  for (int i = 0; i < shape.seq_q; ++i) {
    if (row >= attention_visible_keys(shape, i)) continue;
    const Pair pair = backward_pair(shape, in, head, i, row);
    const std::size_t qr = static_cast<std::size_t>(head) * shape.seq_q + i;
    const float *q = &in.q[qr * d], *g = &in.dout[qr * d];
    for (int c = 0; c < d; ++c) {
      dk->g[c] += scale * pair.ds * q[c];
      dk->m[c] += scale * pair.m * std::fabs(q[c]);
      dv->g[c] += pair.p * g[c];
      dv->m[c] += pair.p * std::fabs(g[c]);
    }
    dk->logit_error = std::max(dk->logit_error, pair.logit_error);
  }
  dv->logit_error = dk->logit_error;
}

// The bound of a BF16 tensor-core backward (5.07), against the exact backward of its inputs as given
// (BF16 Q, K, V, O, dO and FP32 L: the reference uses the very same values). u = 2^-24, r = 2^-8.
// 1. Logits. s = scale Q K^T on tensor cores: 2u (d + ceil(d/4) + 2) dot_abs, as 5.05's bound (the
//    truncating FP32 sums, the scale with log2 e folded in). Then the logit minus L, in log2 units: L
//    times log2 e rounded and one FMA, each a rounding of at most u (|s| + |L|), and the folded scale's
//    own rounding u |s|: 3u (|s| + |L|) in all. Exact dots (small integers) keep only the last terms.
//    delta = the largest of these over the visible (i, j) (backward_logit_error).
// 2. P = exp2(...): relative error e_P = exp(delta) - 1 + 8u (ex2.approx).
// 3. dP = dO V^T on tensor cores and D = sum_c dO O in FP32: each within e_g = 2u (d + ceil(d/4) + 2)
//    of its sum of absolute values, so dP - D errs by at most e_g m_ij (m_ij = sum|do v| + sum|do o|,
//    which also bounds |dP - D|), plus the subtraction's u m_ij. dS = P (dP - D), with the FP32 P,
//    and the product's rounding: |dS~ - dS| <= p m (e_P + (1 + e_P)(e_g + 2u)) = p m e_pre. Rounded to
//    BF16 for the two products: e_S = e_pre + r (1 + e_pre).
// 4. dQ = scale sum_j dS_ij K_j: the dS errors weighted by |k| give e_S mq; the FP32 sum of seq_k terms
//    (tensor-core truncation inside each block, atomics in any order between blocks) adds
//    chain = 2u (n + 16) relative to the same magnitude (n = seq_k), the scale u; rounded to BF16:
//    |dQ - exact| <= (E + r (1 + E)) mq with E = e_S + (chain + u)(1 + e_S). dK the same with n = seq_q.
// 5. dV = sum_i bf16(P_ij) dO_i: per term e_P + r (1 + e_P); the chain; the BF16 rounding of dV.
// The dominant terms are r twice (dS or P rounded, then the output): a correct kernel errs by up to
// 2^-7 of the magnitude, which at seq 65 is still about 10^2 times the FP32 terms.
// FP32 (the cuBLAS path): r = 0, sums in FP32 with any order (u per addition, within the 2u above),
// expf for the exponential (within 8u). Below the smallest normal, flushed exponentials and denormal
// products lose at most 2^-126 each: 2^-100 absolute covers 64K terms.
double backward_logit_error(int d, double dot_abs, double s, double l, bool exact_dots) {
  const double u = wb::kFloatEpsilon;
  const double dots = exact_dots ? 0.0 : 2.0 * u * (d + std::ceil(d / 4.0) + 2.0) * dot_abs;
  return dots + 3.0 * u * (std::fabs(s) + std::fabs(l)) + 2.0 * u * std::fabs(s);
}

BackwardTolerance backward_bound(const AttentionShape& shape, double logit_error, AttentionPrecision precision,
                                 double slack) {
  const double u = wb::kFloatEpsilon;
  const double r = precision == AttentionPrecision::BF16 ? std::ldexp(1.0, -8) : 0.0;
  const int d = shape.d;
  const double e_p = std::expm1(logit_error) + 8.0 * u;
  const double e_g = 2.0 * u * (d + std::ceil(d / 4.0) + 2.0);
  const double e_pre = e_p + (1.0 + e_p) * (e_g + 2.0 * u);
  const double e_s = e_pre + r * (1.0 + e_pre);
  auto gradient = [&](double per_term, int n) {
    const double chain = 2.0 * u * (std::max(n, 1) + 16.0);
    const double e = per_term + (chain + u) * (1.0 + per_term);
    return slack * (e + r * (1.0 + e));
  };
  BackwardTolerance t;
  t.dq_rel = gradient(e_s, shape.seq_k);
  t.dk_rel = gradient(e_s, shape.seq_q);
  t.dv_rel = gradient(e_p + r * (1.0 + e_p), shape.seq_q);
  t.abs = slack * std::ldexp(1.0, -100);
  return t;
}

}  // namespace p5
