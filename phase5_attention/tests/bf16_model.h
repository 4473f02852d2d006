// SPDX-License-Identifier: MIT
// A host model of 5.05's arithmetic, one query row at a time, for the host tests of the BF16 bound and
// of the grader's diagnoses (no GPU needed): FlashAttention-2's tiles of keys with a running max; S =
// Q K^T and O += P V summed either as tensor cores do (Fasi, Higham, Mikaitis and Pranesh 2021: blocks
// of exact products aligned to the largest exponent and truncated, as phase 1's reference test models
// them) or in plain FP32; exp2 with log2(e) folded into the scale; P rounded to BF16 before P V while l
// sums the unrounded p in FP32; O rounded to BF16 once; a row that saw no key gives O = 0 and L = -inf
// (5.08's epilogue). With one switchable bug, the same ones the grader self-test plants on the GPU.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "common/bf16.h"
#include "phase5_attention/harness/reference.h"

namespace p5model {

// 5.08's: OutputNotRescaled (l rescaled, the output accumulator not), SkipsDiagonalTile (causal: a block of
// `tile` rows visits the key tiles before its own only), LseBase2 (L = m log2(e) + log2(l), exp2's units).
enum class Bug {
  None,
  MissingRescale,
  ScaleTwice,
  CausalOffByOne,
  DropsLastTile,
  NoMask,
  CountsTailKeys,
  OutputNotRescaled,
  SkipsDiagonalTile,
  LseBase2
};

struct Bf16Kernel {
  int tile = 64;             // keys per tile
  bool tensor_cores = true;  // truncating block sums (8 products a block); false: FP32 sums in order
  Bug bug = Bug::None;
};

inline double truncate_to_multiple(double x, double ulp) {
  return std::trunc(x / ulp) * ulp;
}

inline double truncate_to_fp32(double x) {
  if (x == 0) return 0;
  int e = 0;
  std::frexp(x, &e);  // |x| in [2^(e-1), 2^e)
  return truncate_to_multiple(x, std::ldexp(1.0, e - 24));
}

// acc + the sum of `products` (each exact in FP32: products of BF16 values), as a sequence of tensor-core
// steps of `block` products, or as FP32 additions in order (rounded to nearest).
inline float accumulate(float acc, const std::vector<double>& products, bool tensor_cores, std::size_t block = 8) {
  if (!tensor_cores) {
    for (double p : products) acc += static_cast<float>(p);
    return acc;
  }
  double sum_so_far = acc;
  for (std::size_t k0 = 0; k0 < products.size(); k0 += block) {
    const std::size_t k1 = std::min(products.size(), k0 + block);
    double largest = std::fabs(sum_so_far);
    for (std::size_t k = k0; k < k1; ++k) largest = std::max(largest, std::fabs(products[k]));
    if (largest == 0) continue;
    int e = 0;
    std::frexp(largest, &e);
    const double ulp = std::ldexp(1.0, e - 24);
    double sum = truncate_to_multiple(sum_so_far, ulp);
    for (std::size_t k = k0; k < k1; ++k) sum += truncate_to_multiple(products[k], ulp);
    sum_so_far = truncate_to_fp32(sum);
  }
  return static_cast<float>(sum_so_far);
}

// Row `row` of head `head`: O's d values (BF16, widened) into `o`, L into `*lse`. `in` holds the BF16
// inputs widened (make_attention_inputs with AttentionPrecision::BF16).
inline void bf16_attention_row(const AttentionShape& s, const p5::AttentionInputs& in, int head, int row,
                               const Bf16Kernel& kernel, float* o, float* lse) {
  const int d = s.d;
  const float scale = attention_scale(d);
  const float s_scale = kernel.bug == Bug::ScaleTwice ? scale * scale : scale;
  const float c = s_scale * 1.44269504088896341f;  // log2(e) folded into the scale: p = exp2(s c - m c)
  const float* q = in.q.data() + (static_cast<std::size_t>(head) * s.seq_q + row) * d;
  const float* k = in.k.data() + static_cast<std::size_t>(head) * s.seq_k * d;
  const float* v = in.v.data() + static_cast<std::size_t>(head) * s.seq_k * d;
  int end = s.seq_k;
  if (s.causal && kernel.bug != Bug::NoMask)
    end = std::min(s.seq_k, row + 1 + (s.seq_k - s.seq_q) + (kernel.bug == Bug::CausalOffByOne ? 1 : 0));
  if (kernel.bug == Bug::DropsLastTile) end = end / kernel.tile * kernel.tile;
  if (s.causal && kernel.bug == Bug::SkipsDiagonalTile)
    end = std::min(end, (row + s.seq_k - s.seq_q) / kernel.tile * kernel.tile);
  // CountsTailKeys: the last tile's keys past `end` take part with a logit of 0 and a value of 0.
  const int padded = kernel.bug == Bug::CountsTailKeys ? (end + kernel.tile - 1) / kernel.tile * kernel.tile : end;
  float m = -std::numeric_limits<float>::infinity(), l = 0.0f;
  std::vector<float> acc(d, 0.0f), scores;
  std::vector<double> products;
  for (int k0 = 0; k0 < end; k0 += kernel.tile) {
    const int k1 = std::min(padded, k0 + kernel.tile);
    scores.assign(k1 - k0, 0.0f);
    float m_new = m;
    for (int j = k0; j < k1; ++j) {
      products.clear();
      for (int col = 0; col < d && j < end; ++col) products.push_back(double(q[col]) * k[std::size_t(j) * d + col]);
      scores[j - k0] = accumulate(0.0f, products, kernel.tensor_cores);
      m_new = std::max(m_new, scores[j - k0]);
    }
    const float rescale = kernel.bug == Bug::MissingRescale ? 1.0f : std::exp2((m - m_new) * c);
    l *= rescale;
    if (kernel.bug != Bug::OutputNotRescaled)
      for (float& a : acc) a *= rescale;
    std::vector<float> p(k1 - k0);
    for (int j = k0; j < k1; ++j) {
      const float e = std::exp2(std::fma(scores[j - k0], c, -(m_new * c)));
      l += e;                            // the row sum: FP32, before rounding
      p[j - k0] = wb::round_to_bf16(e);  // P's A operand: BF16
    }
    for (int col = 0; col < d; ++col) {
      products.clear();
      for (int j = k0; j < k1; ++j) products.push_back(j < end ? double(p[j - k0]) * v[std::size_t(j) * d + col] : 0.0);
      acc[col] = accumulate(acc[col], products, kernel.tensor_cores);
    }
    m = m_new;
  }
  for (int col = 0; col < d; ++col) o[col] = l > 0.0f ? wb::round_to_bf16(acc[col] / l) : 0.0f;
  *lse = m * s_scale + std::log(l);
  if (kernel.bug == Bug::LseBase2) *lse *= 1.44269504088896341f;
}

// Every row of every head: O [heads][seq_q][d] and L [heads][seq_q], as a kernel would write them.
inline void bf16_attention(const AttentionShape& s, const p5::AttentionInputs& in, const Bf16Kernel& kernel,
                           std::vector<float>& o, std::vector<float>& l) {
  o.assign(s.q_elements(), 0.0f);
  l.assign(s.l_elements(), 0.0f);
  for (int h = 0; h < s.heads; ++h)
    for (int i = 0; i < s.seq_q; ++i) {
      const std::size_t r = static_cast<std::size_t>(h) * s.seq_q + i;
      bf16_attention_row(s, in, h, i, kernel, &o[r * s.d], &l[r]);
    }
}

}  // namespace p5model
