// SPDX-License-Identifier: MIT
// Host tests of the phase 5 references: the CPU attention on cases worked by hand, the variants the
// grader uses to name bugs, the error bound's growth, and 5.05's BF16 bound against a model of the
// kernel's arithmetic (tests/bf16_model.h): a correct kernel inside it, the planted bugs outside.
#include "phase5_attention/harness/reference.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/bf16.h"
#include "common/catch.h"
#include "common/verify.h"
#include "phase5_attention/tests/bf16_model.h"

namespace {

AttentionShape shape(int seq, int d, bool causal) {
  AttentionShape s;
  s.heads = 1;
  s.seq_q = s.seq_k = seq;
  s.d = d;
  s.causal = causal;
  return s;
}

bool near_equal(double a, double b) {
  return std::fabs(a - b) <= 1e-12 * std::fmax(1.0, std::fabs(b));
}

}  // namespace

TEST_CASE("the CPU attention averages V with softmax weights and returns the log-sum-exp", "[host][p5]") {
  // Two keys; q . k_0 = 0 and q . k_1 = 8 (times the scale 1/8 at d = 64: logits 0 and 1).
  const AttentionShape s = shape(2, 64, false);
  p5::AttentionInputs in;
  in.q.assign(2 * 64, 0.0f);
  in.k.assign(2 * 64, 0.0f);
  in.v.assign(2 * 64, 0.0f);
  for (int c = 0; c < 8; ++c) in.q[c] = 1.0f;       // query row 0
  for (int c = 0; c < 8; ++c) in.k[64 + c] = 1.0f;  // key row 1
  in.v[0] = 1.0f;                                   // v_0 = (1, 0, ...)
  in.v[64 + 1] = 2.0f;                              // v_1 = (0, 2, ...)
  const p5::RowReference r = p5::attention_reference_row(s, in, 0, 0);
  const double e = std::exp(1.0);
  CHECK(near_equal(r.o[0], 1.0 / (1.0 + e)));
  CHECK(near_equal(r.o[1], 2.0 * e / (1.0 + e)));
  CHECK(near_equal(r.lse, std::log(1.0 + e)));
  CHECK(r.visible == 2);
}

TEST_CASE("the causal reference lets row i see keys 0..i, and the variants move that line", "[host][p5]") {
  const AttentionShape s = shape(5, 64, true);
  const p5::AttentionInputs in = p5::make_attention_inputs(s, p5::AttentionData::Uniform, 1);
  CHECK(p5::attention_reference_row(s, in, 0, 0).visible == 1);
  CHECK(p5::attention_reference_row(s, in, 0, 3).visible == 4);
  p5::ReferenceVariant off;
  off.causal_shift = 1;
  CHECK(p5::attention_reference_row(s, in, 0, 3, off).visible == 5);
  CHECK(p5::attention_reference_row(s, in, 0, 4, off).visible == 5);  // never past seq_k
  p5::ReferenceVariant no_mask;
  no_mask.mask = false;
  CHECK(p5::attention_reference_row(s, in, 0, 0, no_mask).visible == 5);
  // Row 0 with its single key: O is v_0 and L is the one logit.
  const p5::RowReference r0 = p5::attention_reference_row(s, in, 0, 0);
  CHECK(near_equal(r0.o[7], in.v[7]));
}

TEST_CASE("a never-rescaling online softmax differs from softmax only when the max grows", "[host][p5]") {
  const AttentionShape s = shape(200, 64, false);
  const p5::AttentionInputs in = p5::make_attention_inputs(s, p5::AttentionData::Uniform, 7);
  p5::ReferenceVariant whole;
  whole.no_rescale_tile = 1000;  // one tile: nothing to rescale
  // Row 0 of seed 7 reaches its max after its first key (row 5, whose first key is its max, would not
  // tell the two apart).
  const p5::RowReference right = p5::attention_reference_row(s, in, 0, 0);
  const p5::RowReference one_tile = p5::attention_reference_row(s, in, 0, 0, whole);
  CHECK(near_equal(one_tile.lse, right.lse));
  p5::ReferenceVariant per_key;
  per_key.no_rescale_tile = 1;
  CHECK(std::fabs(p5::attention_reference_row(s, in, 0, 0, per_key).lse - right.lse) > 1e-2);
}

TEST_CASE("logits near 1e4 are exact dot products of small integers", "[host][p5]") {
  for (int d : {64, 128}) {
    const AttentionShape s = shape(65, d, false);
    const p5::AttentionInputs in = p5::make_attention_inputs(s, p5::AttentionData::HugeLogits, 3);
    const p5::RowReference r = p5::attention_reference_row(s, in, 0, 10);
    CHECK(r.logit_abs > 9000.0);
    CHECK(r.logit_abs / attention_scale(d) < double(1 << 18));  // |q . k| below 2^18: exact in float
    CHECK(std::isfinite(r.lse));
  }
}

TEST_CASE("the attention bound grows with the keys and the logits' size", "[host][p5]") {
  const p5::RowTolerance small = p5::attention_bound(64, 64, 2.0, 1.0, 4.0, false, 1.0);
  const p5::RowTolerance long_row = p5::attention_bound(4096, 64, 2.0, 1.0, 8.0, false, 1.0);
  const p5::RowTolerance huge = p5::attention_bound(64, 64, 1e4, 1e4, 1e4, true, 1.0);
  CHECK(small.o_rel < long_row.o_rel);
  CHECK(small.o_rel < huge.o_rel);
  // Random inputs at seq 4096: about 3.5e-3 of sum p|v|, the worst case of a chain of 4096 rescales (a
  // tiled kernel takes 64 and errs far less). That hides one missing key of 4096 (~2.4e-4), not a
  // missing tile of 64 (~1.6e-2); the small shapes, where one key weighs 1/17 to 1/257, catch the rest.
  CHECK(long_row.o_rel < 4e-3);
  CHECK(small.o_rel < 1e-4);
  // An exact dot product of 1e4 still rounds to float: 2u 1e4 in the exponent, about 1e-3.
  CHECK(huge.l_abs > 1e-3);
  CHECK(huge.l_abs < 1e-2);
  // Slack scales the bound.
  CHECK(near_equal(p5::attention_bound(64, 64, 2.0, 1.0, 4.0, false, 2.0).o_rel, 2.0 * small.o_rel));
}

TEST_CASE("a causal decoding query i sees keys up to seq_k - seq_q + i", "[host][p5]") {
  AttentionShape s{1, 3, 10, 64, true};  // the 3 newest tokens of 10
  const p5::AttentionInputs in = p5::make_attention_inputs(s, p5::AttentionData::Uniform, 5);
  CHECK(p5::attention_reference_row(s, in, 0, 0).visible == 8);
  CHECK(p5::attention_reference_row(s, in, 0, 2).visible == 10);
  CHECK(attention_visible_keys(s, 0) == 8);
  CHECK(attention_visible_keys(s, 2) == 10);
  p5::ReferenceVariant square;
  square.causal_shift = -(s.seq_k - s.seq_q);  // the square matrix's mask: j <= i
  CHECK(p5::attention_reference_row(s, in, 0, 1, square).visible == 2);
  // seq_q == seq_k is the square case of 5.04.
  CHECK(attention_visible_keys(AttentionShape{1, 10, 10, 64, true}, 0) == 1);
  CHECK(attention_visible_keys(AttentionShape{1, 3, 10, 64, false}, 0) == 10);
}

TEST_CASE("decoding shapes: only the decoding check lets a causal shape have seq_q < seq_k", "[host][p5]") {
  const AttentionShape decode{2, 4, 100, 128, true};
  CHECK_NOTHROW(validate_decoding_shape(decode));
  CHECK_THROWS_AS(validate_attention_shape(decode), std::invalid_argument);
  CHECK_THROWS_AS(validate_decoding_shape(AttentionShape{2, 101, 100, 128, true}), std::invalid_argument);
  CHECK_NOTHROW(validate_decoding_shape(AttentionShape{2, 101, 100, 128, false}));  // not causal: any seq_q
  CHECK_THROWS_AS(validate_decoding_shape(AttentionShape{2, 4, 100, 96, false}), std::invalid_argument);
  // The partials: (d + 2) floats per head, query row and split.
  CHECK(attention_decoding_workspace_elements(decode, 7) == std::size_t(2) * 4 * 7 * 130);
}

TEST_CASE("partials merged without rescaling differ from softmax unless there is one split", "[host][p5]") {
  const AttentionShape s{1, 2, 257, 64, false};
  const p5::AttentionInputs in = p5::make_attention_inputs(s, p5::AttentionData::Uniform, 9);
  const p5::RowReference right = p5::attention_reference_row(s, in, 0, 1);
  p5::ReferenceVariant one;
  one.merge_splits = 1;
  const p5::RowReference whole = p5::attention_reference_row(s, in, 0, 1, one);
  CHECK(near_equal(whole.lse, right.lse));
  CHECK(near_equal(whole.o[3], right.o[3]));
  for (bool balanced : {false, true}) {
    p5::ReferenceVariant seven;
    seven.merge_splits = 7;
    seven.balanced_splits = balanced;
    const p5::RowReference stale = p5::attention_reference_row(s, in, 0, 1, seven);
    double diff = 0;
    for (int c = 0; c < s.d; ++c) diff = std::fmax(diff, std::fabs(stale.o[c] - right.o[c]));
    CHECK(diff > 1e-3);  // far outside the bound at 257 keys (about 1e-4 of sum p|v|)
  }
}

// ---- 5.05: the BF16 bound, on a model of the kernel's arithmetic (tests/bf16_model.h) -----------------

namespace {

struct Worst {
  double o = 0, l = 0;  // the largest error as a share of its bound (1 = on the bound)
  int bad_rows = 0, rows = 0, bad_l_rows = 0;
};

// The model's rows against the double reference on the same (BF16) inputs, under the BF16 bound.
Worst model_against_bound(const AttentionShape& s, p5::AttentionData data, const p5model::Bf16Kernel& kernel,
                          const std::vector<int>& rows, std::uint64_t seed) {
  const p5::AttentionInputs in = p5::make_attention_inputs(s, data, seed, p5::AttentionPrecision::BF16);
  const bool exact = data == p5::AttentionData::HugeLogits;
  Worst w;
  std::vector<float> o(s.d);
  float lse = 0;
  for (int h = 0; h < s.heads; ++h) {
    for (int i : rows) {
      const p5::RowReference ref = p5::attention_reference_row(s, in, h, i);
      const p5::RowTolerance t = p5::attention_row_tolerance(ref, s.d, exact, 1.0, p5::AttentionPrecision::BF16);
      p5model::bf16_attention_row(s, in, h, i, kernel, o.data(), &lse);
      bool bad = false;
      for (int c = 0; c < s.d; ++c) {
        // + u |O|: the reference rounded to float, as the grader compares it
        const double tol = t.o_abs + t.o_rel * ref.magnitude[c] + wb::kFloatEpsilon * std::fabs(ref.o[c]);
        const double ratio = std::fabs(o[c] - ref.o[c]) / tol;
        w.o = std::max(w.o, ratio);
        bad = bad || ratio > 1.0;
      }
      const double l_ratio = std::fabs(lse - ref.lse) / (t.l_abs + wb::kFloatEpsilon * std::fabs(ref.lse));
      w.l = std::max(w.l, l_ratio);
      w.bad_l_rows += l_ratio > 1.0;
      w.bad_rows += bad || l_ratio > 1.0;
      ++w.rows;
    }
  }
  return w;
}

std::vector<int> all_rows(int seq) {
  std::vector<int> rows(seq);
  for (int i = 0; i < seq; ++i) rows[i] = i;
  return rows;
}

}  // namespace

TEST_CASE("the BF16 bound is 2^-8 of sum p|v| for P and 2^-8 for O, plus the FP32 terms", "[host][p5]") {
  const double r = std::ldexp(1.0, -8);
  const p5::RowTolerance short_row =
      p5::attention_bound(65, 64, 2.0, 1.0, 4.0, false, 1.0, p5::AttentionPrecision::BF16);
  CHECK(short_row.o_rel > 2.0 * r);  // P's rounding and O's: a correct kernel may err by this much
  CHECK(short_row.o_rel < 2.1 * r);  // ... and the FP32 terms add 2% of that at seq 65
  const p5::RowTolerance fp32 = p5::attention_bound(65, 64, 2.0, 1.0, 4.0, false, 1.0);
  CHECK(short_row.o_rel > 90.0 * fp32.o_rel);
  // L is FP32 from the FP32 row sum: no 2^-8 term, but the tensor-core sums double its FP32 terms.
  CHECK(short_row.l_abs < 1e-4);
  CHECK(short_row.l_abs > fp32.l_abs);
  // At seq 4096 the worst-case chain of exponentials, rescales and truncating sums (2 x 12.8 n u) adds
  // about 1.7 r: the bound is 3.7 r. That hides a dropped tile of 64 keys of 4096 (about 1/64 of the
  // weight times |v - O|, ~1e-3), as the FP32 bound does; the short shapes catch it.
  const p5::RowTolerance long_row =
      p5::attention_bound(4096, 128, 3.0, 1.0, 8.0, false, 1.0, p5::AttentionPrecision::BF16);
  CHECK(long_row.o_rel < 4.0 * r);
  // Logits of 1e4 from exact dot products: only the scale's roundings, 4u |s|, in the exponent; four of
  // them (numerator and denominator, two logits each) add 2.5 r.
  const p5::RowTolerance huge = p5::attention_bound(257, 64, 1e4, 1e4, 1e4, true, 1.0, p5::AttentionPrecision::BF16);
  CHECK(huge.l_abs > 4.0 * wb::kFloatEpsilon * 1e4);
  CHECK(huge.o_rel < 5.0 * r);
  // Sums of bounds (a kernel's and its GPU reference's) add term by term.
  const p5::RowTolerance both = short_row + fp32;
  CHECK(near_equal(both.o_rel, short_row.o_rel + fp32.o_rel));
  CHECK(near_equal(both.l_abs, short_row.l_abs + fp32.l_abs));
}

TEST_CASE("BF16 inputs are the FP32 data rounded, and HugeLogits' integers stay exact", "[host][p5]") {
  const AttentionShape s = shape(65, 64, false);
  const p5::AttentionInputs f = p5::make_attention_inputs(s, p5::AttentionData::Uniform, 4);
  const p5::AttentionInputs b =
      p5::make_attention_inputs(s, p5::AttentionData::Uniform, 4, p5::AttentionPrecision::BF16);
  CHECK(b.q == wb::rounded_to_bf16(f.q));
  CHECK(b.k == wb::rounded_to_bf16(f.k));
  CHECK(b.v == wb::rounded_to_bf16(f.v));
  CHECK(b.q != f.q);
  const p5::AttentionInputs hf = p5::make_attention_inputs(s, p5::AttentionData::HugeLogits, 4);
  const p5::AttentionInputs hb =
      p5::make_attention_inputs(s, p5::AttentionData::HugeLogits, 4, p5::AttentionPrecision::BF16);
  CHECK(hb.q == hf.q);
  CHECK(hb.k == hf.k);
}

TEST_CASE("a correct FlashAttention-2 kernel with P in BF16 stays inside the BF16 bound", "[host][p5]") {
  // Both ways of summing (truncating tensor cores, FP32 in order), two tile widths, every shape class of
  // the grader: tails, one key (seq 1, and causal row 0), 1e4 logits, seq 1000 and 4096 (sampled rows).
  for (const bool tensor_cores : {true, false}) {
    for (const int tile : {64, 128}) {
      p5model::Bf16Kernel kernel;
      kernel.tile = tile;
      kernel.tensor_cores = tensor_cores;
      for (const bool causal : {false, true}) {
        for (const int d : {64, 128}) {
          for (const int seq : {1, 17, 65, 257, 1000, 4096}) {
            const std::vector<int> rows = seq <= 257 ? all_rows(seq) : p5::sample_rows(seq, 6, 21);
            for (const auto data : {p5::AttentionData::Uniform, p5::AttentionData::HugeLogits}) {
              if (data == p5::AttentionData::HugeLogits && seq > 257) continue;
              CAPTURE(tensor_cores, tile, causal, d, seq, data == p5::AttentionData::HugeLogits);
              const Worst w = model_against_bound(shape(seq, d, causal), data, kernel, rows, 17);
              CAPTURE(w.o, w.l);
              CHECK(w.bad_rows == 0);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("the BF16 bound fails a missing rescale, a dropped tile, the scale twice and a causal off by one",
          "[host][p5]") {
  // The shapes and data of the grader self-test's planted BF16 bugs (gpu.p5.grader), three heads as there.
  auto run = [](p5model::Bug bug, int seq, int d, bool causal, p5::AttentionData data) {
    p5model::Bf16Kernel kernel;
    kernel.bug = bug;
    AttentionShape s = shape(seq, d, causal);
    s.heads = 3;
    return model_against_bound(s, data, kernel, all_rows(seq), 17);
  };
  const p5::AttentionData uniform = p5::AttentionData::Uniform, huge = p5::AttentionData::HugeLogits;
  // A missing rescale: with uniform data the weights it shifts can hide in O's 2^-8 bound, but L (FP32)
  // cannot hide it; with logits of 1e4 a few units apart O is far off too.
  const Worst stale = run(p5model::Bug::MissingRescale, 257, 64, false, uniform);
  CAPTURE(stale.o, stale.l, stale.bad_rows, stale.bad_l_rows);
  CHECK(stale.bad_l_rows > stale.rows / 2);
  const Worst stale_huge = run(p5model::Bug::MissingRescale, 257, 64, false, huge);
  CAPTURE(stale_huge.o);
  CHECK(stale_huge.o > 10.0);
  // One key of 65 dropped (the partial last tile): 1/65 of the weight, above 2^-7.
  const Worst dropped = run(p5model::Bug::DropsLastTile, 65, 64, false, uniform);
  CAPTURE(dropped.o, dropped.bad_rows);
  CHECK(dropped.bad_rows > dropped.rows * 9 / 10);
  const Worst twice = run(p5model::Bug::ScaleTwice, 65, 128, false, uniform);
  CAPTURE(twice.o, twice.bad_rows);
  CHECK(twice.bad_rows > twice.rows * 9 / 10);
  const Worst off = run(p5model::Bug::CausalOffByOne, 65, 64, true, uniform);
  CAPTURE(off.o, off.bad_rows);
  CHECK(off.bad_rows > off.rows * 9 / 10);
}
