// SPDX-License-Identifier: MIT
#include "phase5_attention/harness/reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "common/bf16.h"
#include "common/data.h"
#include "common/verify.h"

// ---- the shape (declared in attention.cuh) --------------------------------------------------------

double AttentionShape::flop() const {
  const double full = 4.0 * heads * static_cast<double>(seq_q) * seq_k * d;
  return causal ? full / 2 : full;
}

float attention_scale(int d) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
}

void validate_attention_shape(const AttentionShape& s) {
  if (s.d != 64 && s.d != 128)
    throw std::invalid_argument("attention: head dimension d must be 64 or 128, got " + std::to_string(s.d));
  if (s.heads < 0 || s.seq_q < 0 || s.seq_k < 1)
    throw std::invalid_argument("attention: heads and seq_q must be >= 0 and seq_k >= 1");
  if (s.causal && s.seq_q != s.seq_k) throw std::invalid_argument("attention: a causal shape needs seq_q == seq_k");
}

void validate_decoding_shape(const AttentionShape& s) {
  AttentionShape square = s;
  if (s.causal && s.seq_q > s.seq_k)
    throw std::invalid_argument(
        "attention: a causal shape needs seq_q <= seq_k (the last seq_q rows of a causal "
        "square), got seq_q = " +
        std::to_string(s.seq_q) + ", seq_k = " + std::to_string(s.seq_k));
  square.causal = false;  // the other checks
  validate_attention_shape(square);
}

int attention_visible_keys(const AttentionShape& s, int row) {
  if (!s.causal) return s.seq_k;
  const long long visible = static_cast<long long>(row) + 1 + s.seq_k - s.seq_q;
  return static_cast<int>(std::max(0LL, std::min<long long>(visible, s.seq_k)));
}

std::size_t attention_decoding_workspace_elements(const AttentionShape& s, int splits) {
  return static_cast<std::size_t>(s.heads) * static_cast<std::size_t>(s.seq_q) *
         static_cast<std::size_t>(std::max(splits, 0)) * static_cast<std::size_t>(s.d + 2);
}

std::size_t attention_scores_elements(const AttentionShape& s) {
  return static_cast<std::size_t>(s.heads) * static_cast<std::size_t>(s.seq_q) * static_cast<std::size_t>(s.seq_k);
}

namespace p5 {

namespace {

AttentionInputs make_float_inputs(const AttentionShape& shape, AttentionData data, std::uint64_t seed) {
  AttentionInputs in;
  in.v = wb::random_floats(shape.k_elements(), seed + 2);
  if (data == AttentionData::Uniform) {
    in.q = wb::random_floats(shape.q_elements(), seed);
    in.k = wb::random_floats(shape.k_elements(), seed + 1);
    return in;
  }
  // q = a + t (a = +-25 per row, t in [-1, 1]), k = 50 + r (r in [-2, 2]): q.k = d a 50 + a sum r +
  // 50 sum t + sum t r. The first and third terms are the same for every key of a row (the softmax does
  // not see them), so the logits sit near +-d 1250 / sqrt(d) (1e4 at d = 64) and differ by a few units.
  // |q.k| <= d 26 52 < 2^18: exact in float, in any order.
  wb::Rng rng(seed);
  in.q.resize(shape.q_elements());
  for (std::size_t row = 0; row < in.q.size() / shape.d; ++row) {
    const float a = (rng.next_u64() & 1) ? 25.0f : -25.0f;
    for (int c = 0; c < shape.d; ++c) in.q[row * shape.d + c] = a + static_cast<float>(rng.integer(-1, 1));
  }
  in.k.resize(shape.k_elements());
  for (float& x : in.k) x = 50.0f + static_cast<float>(rng.integer(-2, 2));
  return in;
}

}  // namespace

AttentionInputs make_attention_inputs(const AttentionShape& shape, AttentionData data, std::uint64_t seed,
                                      AttentionPrecision precision) {
  AttentionInputs in = make_float_inputs(shape, data, seed);
  if (precision == AttentionPrecision::BF16) {
    in.q = wb::rounded_to_bf16(std::move(in.q));
    in.k = wb::rounded_to_bf16(std::move(in.k));
    in.v = wb::rounded_to_bf16(std::move(in.v));
  }
  return in;
}

RowReference attention_reference_row(const AttentionShape& shape, const AttentionInputs& in, int head, int row,
                                     const ReferenceVariant& variant) {
  const int d = shape.d;
  const double scale = std::pow(static_cast<double>(attention_scale(d)), variant.scale_power);
  const float* q = in.q.data() + (static_cast<std::size_t>(head) * shape.seq_q + row) * d;
  const std::size_t kv_row0 = static_cast<std::size_t>(head) *
                              static_cast<std::size_t>(variant.kv_head_rows >= 0 ? variant.kv_head_rows : shape.seq_k);
  const float* k = in.k.data() + kv_row0 * d;
  const float* v = in.v.data() + kv_row0 * d;
  int keys = variant.key_count >= 0 ? variant.key_count : shape.seq_k;
  if (shape.causal && variant.mask) keys = std::min(keys, row + 1 + (shape.seq_k - shape.seq_q) + variant.causal_shift);
  if (shape.causal && variant.causal_skip_tile > 0) {
    const int token = row + (shape.seq_k - shape.seq_q), tile = variant.causal_skip_tile;
    keys = std::min(keys, token / tile * tile);
  }
  if (variant.key_limit >= 0) keys = std::min(keys, variant.key_limit);
  keys = std::max(keys, 0);

  RowReference r;
  r.o.assign(d, 0.0);
  r.magnitude.assign(d, 0.0);
  if ((kv_row0 + static_cast<std::size_t>(keys)) * d > in.k.size()) {  // past the end of K: the guards' NaN
    r.o.assign(d, std::numeric_limits<double>::quiet_NaN());
    r.lse = std::numeric_limits<double>::quiet_NaN();
    r.visible = keys;
    return r;
  }
  r.visible = keys + variant.zero_keys;
  std::vector<double> s(static_cast<std::size_t>(keys) + variant.zero_keys, 0.0);  // zero keys: logit 0
  for (int j = 0; j < keys; ++j) {
    double dot = 0, dot_abs = 0;
    for (int c = 0; c < d; ++c) {
      dot += double(q[c]) * k[static_cast<std::size_t>(j) * d + c];
      dot_abs += std::fabs(double(q[c]) * k[static_cast<std::size_t>(j) * d + c]);
    }
    s[j] = dot * scale;
    r.dot_abs = std::max(r.dot_abs, dot_abs * scale);
    r.logit_abs = std::max(r.logit_abs, std::fabs(s[j]));
  }
  if (s.empty()) {
    r.lse = -std::numeric_limits<double>::infinity();
    return r;
  }
  auto value = [&](int j, int c) { return j < keys ? double(v[static_cast<std::size_t>(j) * d + c]) : 0.0; };

  if (variant.merge_splits > 0) {
    // The bug being modelled: every split's (m_s, l_s, acc_s) is right, but the merge adds the sums
    // as they are, each still relative to its own max m_s, instead of scaling them by exp(m_s - m).
    const long long n = shape.seq_k, splits = variant.merge_splits, chunk = (n + splits - 1) / splits;
    double m = -std::numeric_limits<double>::infinity(), l = 0;
    std::vector<double> acc(d, 0.0);
    for (long long split = 0; split < splits; ++split) {
      long long begin = std::min(split * chunk, n), end = std::min(begin + chunk, n);
      if (variant.balanced_splits) {
        begin = split * n / splits;
        end = (split + 1) * n / splits;
      }
      end = std::min<long long>(end, keys);
      if (begin >= end) continue;  // an empty split adds (-inf, 0, 0): nothing
      const double m_s = *std::max_element(s.begin() + begin, s.begin() + end);
      for (long long j = begin; j < end; ++j) {
        const double e = std::exp(s[j] - m_s);
        l += e;
        for (int c = 0; c < d; ++c) acc[c] += e * value(static_cast<int>(j), c);
      }
      m = std::max(m, m_s);
    }
    for (int c = 0; c < d; ++c) r.o[c] = acc[c] / l;
    r.magnitude.assign(d, 1.0);
    r.lse = m + std::log(l);
    return r;
  }

  if (variant.no_rescale_tile > 0) {
    // The bug being modelled: each tile's terms are taken against the max so far, and the sums of the
    // earlier tiles keep their older (smaller) max, never multiplied by exp(m_old - m_new).
    double m = -std::numeric_limits<double>::infinity(), l = 0;
    std::vector<double> acc(d, 0.0);
    for (std::size_t t0 = 0; t0 < s.size(); t0 += variant.no_rescale_tile) {
      const std::size_t t1 = std::min(s.size(), t0 + variant.no_rescale_tile);
      for (std::size_t j = t0; j < t1; ++j) m = std::max(m, s[j]);
      for (std::size_t j = t0; j < t1; ++j) {
        const double e = std::exp(s[j] - m);
        l += e;
        for (int c = 0; c < d; ++c) acc[c] += e * value(static_cast<int>(j), c);
      }
    }
    for (int c = 0; c < d; ++c) r.o[c] = acc[c] / l;
    r.magnitude.assign(d, 1.0);
    r.lse = m + std::log(l);
    return r;
  }

  const double m = *std::max_element(s.begin(), s.end());
  double l = 0;
  for (double x : s) l += std::exp(x - m);
  for (std::size_t j = 0; j < s.size(); ++j) {
    const double p = std::exp(s[j] - m) / l;
    for (int c = 0; c < d; ++c) {
      r.o[c] += p * value(static_cast<int>(j), c);
      r.magnitude[c] += p * std::fabs(value(static_cast<int>(j), c));
    }
  }
  r.lse = m + std::log(l);
  return r;
}

// The bound of an FP32 kernel, for one row with n visible keys (u = 2^-24).
// 1. Logits. An FP32 dot product of d terms errs by at most d u sum|q k| (any order); multiplying by
//    the float scale adds u |s|, and the scale itself is 1/sqrt(d) rounded (the references use the same
//    float): delta <= (d + 1) u dot_abs, or 2 u |s| when the dot products are exact (small integers).
// 2. Exponentials. Each term e_j = exp(s_j - m) goes through expf (2 ulp: 4u) and the rounded
//    difference s_j - m (u |s_j - m| relative), or through exp2f of that difference times log2(e) (2
//    ulp too; the product's rounding and log2(e)'s own as a float add 1.25u |s_j - m|): at most
//    2.25u |s_j - m| relative, and t e^-t <= 1/e against the sum. In an online softmax at most one
//    rescale exp(m_old - m_new), one product and one addition per later step that merges it (6u each;
//    the rescales' rounded differences telescope into the same 2.25u |s_j - m| of the final max, as
//    in 2.08's bound). With n keys: chain <= (6 + 2.25 / e) n u + 10u <= (7 n + 10) u.
// 3. P = e / l. A shift of every logit by the same amount cancels, so only differences of two logit
//    errors matter: the numerator and the denominator each carry 2 delta + chain, O = sum p v adds its
//    own sum (inside chain) and the division (u): |dO_c| <= (exp(4 delta + 2 chain) - 1 + 2u) sum p|v_c|.
// 4. L = m + log(l) = log(sum exp(s_j)) exactly if l were exact: the logits move it by delta, l by
//    chain, logf and the addition by u (|L| + log n) at most.
// Below the smallest normal float (2^-126) outputs lose absolute precision: 2^-140 covers a denormal O.
//
// The bound of a BF16 tensor-core kernel (5.05), against the exact result on the BF16 inputs widened
// (the reference uses the very values the kernel gets, so rounding the inputs costs nothing, and a
// product of two BF16 numbers is exact in FP32). r = 2^-8 is BF16's unit roundoff (8 significant bits).
// 1. Logits. S = Q K^T on tensor cores: FP32 accumulation whose additions truncate, 2u (d + ceil(d/4))
//    sum|q k| (phase 1's BF16 bound, reference.h there). Then the scale, log2(e) folded into it for
//    exp2, and the max subtracted by an FMA whose product rounds: three more roundings of at most
//    u dot_abs, within 2 more 2u terms: delta <= 2u (d + ceil(d/4) + 2) dot_abs. Exact dots (small
//    integers stay exact under truncation too) keep only those three: delta <= 4u |s|.
// 2. Exponentials and the P V sums. The FP32 chain of expf (the exponent's roundings are in delta
//    here, so u |s_j - m| per term: 6.4 n + 10) with every rounding at most twice as large: truncating
//    additions (2u instead of u), exp2 approximations (ex2.approx: up to 8u against expf's 4u):
//    chain <= 2 (6.4 n + 10) u. E = exp(4 delta + 2 chain) - 1 + 2u is then the FP32-style bound
//    of O before anything is rounded to BF16, relative to magnitude = sum p |v_c|.
// 3. P rounded to BF16 before P V: each p_j moves by at most r p_j, so the numerator sum_j p_j v_jc by
//    r sum p |v_c| (with E: r (1 + E)), while l stays the FP32 sum of the unrounded p. That is the
//    dominant term: a correct kernel errs by up to 2^-8 of sum p |v|, about 10^2 times the FP32 bound
//    at seq 65. (Summing the rounded P instead would move l, and L, by up to r as well.)
// 4. O rounded to BF16 at the end: r |O| <= r (1 + E + r (1 + E)) magnitude.
//    In all: |dO_c| <= (E + r (1 + E) (2 + r)) sum p|v_c|.
// 5. L in FP32 from the FP32 row sum: the FP32 bound's step 4 with this delta and chain.
// Below the smallest normal, an exp2 that flushes to zero (ex2.approx.ftz) drops terms of at most 2^-126
// each (l >= 1): 2^-110 covers seq_k up to 64K.
RowTolerance attention_bound(int visible, int d, double dot_abs, double logit_abs, double lse, bool exact_dots,
                             double slack, AttentionPrecision precision) {
  const double u = wb::kFloatEpsilon;
  const double n = std::max(visible, 1);
  RowTolerance t;
  if (precision == AttentionPrecision::BF16) {
    const double r = std::ldexp(1.0, -8);
    const double delta = exact_dots ? 4.0 * u * logit_abs : 2.0 * u * (d + std::ceil(d / 4.0) + 2.0) * dot_abs;
    const double chain = 2.0 * (6.4 * n + 10.0) * u;
    const double e = std::expm1(4.0 * delta + 2.0 * chain) + 2.0 * u;
    t.o_rel = slack * (e + r * (1.0 + e) * (2.0 + r));
    t.o_abs = slack * std::ldexp(1.0, -110);
    t.l_abs = slack * (delta + chain + u * (std::fabs(lse) + std::log(n) + 2.0));
    return t;
  }
  const double delta = exact_dots ? 2.0 * u * logit_abs : (d + 1.0) * u * dot_abs;
  const double chain = (7.0 * n + 10.0) * u;
  t.o_rel = slack * (std::expm1(4.0 * delta + 2.0 * chain) + 2.0 * u);
  t.o_abs = slack * std::ldexp(1.0, -140);
  t.l_abs = slack * (delta + chain + u * (std::fabs(lse) + std::log(n) + 2.0));
  return t;
}

RowTolerance attention_row_tolerance(const RowReference& row, int d, bool exact_dots, double slack,
                                     AttentionPrecision precision) {
  return attention_bound(row.visible, d, row.dot_abs, row.logit_abs, row.lse, exact_dots, slack, precision);
}

RowTolerance operator+(const RowTolerance& a, const RowTolerance& b) {
  return RowTolerance{a.o_rel + b.o_rel, a.o_abs + b.o_abs, a.l_abs + b.l_abs};
}

std::vector<int> sample_rows(int seq_q, int extra, std::uint64_t seed) {
  std::vector<int> rows = {0, std::min(1, seq_q - 1), seq_q - 1};
  wb::Rng rng(seed);
  for (int i = 0; i < extra; ++i) rows.push_back(static_cast<int>(rng.integer(0, seq_q - 1)));
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

}  // namespace p5
