// SPDX-License-Identifier: MIT
// What lessons and tests share, outside the files learners edit: inputs, the CPU reference in double
// (one row at a time, so a lesson can check sampled rows of a large problem), the error bound of an
// FP32 kernel, and of a BF16 tensor-core kernel (5.05), derived from its arithmetic, and the variants
// the grader uses to name a bug.
#pragma once

#include <cstdint>
#include <vector>

#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/attention_kernel.h"

namespace p5 {

enum class AttentionData {
  Uniform,  // q, k, v uniform in [-1, 1)
  // Logits near +-1e4 (exp overflows to inf, or underflows to 0, without the max), differing by a few
  // units within a row so several keys share the probability. Q and K hold small integers whose dot
  // products (below 2^18) are exact in float in any order; v is uniform in [-1, 1).
  HugeLogits,
};

struct AttentionInputs {
  std::vector<float> q, k, v;
};
// BF16: the same random floats (the same seed gives the FP32 data), each rounded to BF16 and kept as
// the float it widens back to: the values the kernel gets, and the reference uses, exactly. HugeLogits'
// small integers are exact in BF16 already.
AttentionInputs make_attention_inputs(const AttentionShape& shape, AttentionData data, std::uint64_t seed,
                                      AttentionPrecision precision = AttentionPrecision::FP32);

// A deliberately wrong attention, to test a hypothesis about a kernel's bug. The default is the right one.
struct ReferenceVariant {
  double scale_power = 1.0;  // 2: the scale applied twice; 0: forgotten
  bool mask = true;          // false: the causal mask ignored
  int causal_shift = 0;      // causal: key j visible to query i when j <= i + causal_shift
  // > 0, causal: only the key tiles of this many keys wholly before query i's tile of as many rows (a
  // block that skips its diagonal tile): key j visible when j < (i / tile) tile, i counted from key 0
  int causal_skip_tile = 0;
  int key_limit = -1;       // >= 0: only keys below it (a dropped last tile)
  int zero_keys = 0;        // extra keys of logit 0 and value 0 (a padded tail tile counted)
  int no_rescale_tile = 0;  // > 0: online softmax over tiles of this many keys that never rescales
  // > 0: the keys cut into this many splits (chunks of ceil(seq_k / splits), or with balanced_splits
  // split s = [s seq_k / splits, (s + 1) seq_k / splits)), each split's softmax right, but merged by
  // adding their sums without rescaling each to the common max.
  int merge_splits = 0;
  bool balanced_splits = false;
  // Cross shapes (seq_q != seq_k) read with seq_q where seq_k belongs: >= 0, head h's keys and values
  // start at row h * kv_head_rows of the flat K and V (a head offset taken with seq_q); and >= 0, the
  // keys read from there (a key loop bound of seq_q), which may run into the next head's rows. A row
  // that would read past the end of K gives NaN: such a kernel reads the guards.
  int kv_head_rows = -1;
  int key_count = -1;
};

// One row of one head, in double.
struct RowReference {
  std::vector<double> o;          // d outputs
  std::vector<double> magnitude;  // sum_j p_j |v_jc| per column: the scale of O's error
  double lse = 0;                 // L
  int visible = 0;                // keys that take part (the softmax's length n)
  double dot_abs = 0;             // max over visible j of scale * sum_c |q_c k_jc|
  double logit_abs = 0;           // max over visible j of |s_j|
};
RowReference attention_reference_row(const AttentionShape& shape, const AttentionInputs& in, int head, int row,
                                     const ReferenceVariant& variant = {});

// The error bound of a kernel on one row, against the exact result on its inputs (u = 2^-24; reference.cpp
// derives both precisions' bounds).
struct RowTolerance {
  double o_rel = 0;  // |O_c - exact| <= o_rel * magnitude_c + o_abs
  double o_abs = 0;
  double l_abs = 0;  // |L - exact| <= l_abs
};
// `exact_dots`: Q K^T has no rounding error (HugeLogits); `slack` multiplies everything (2 when the
// comparison is against another FP32 result instead of the exact one).
RowTolerance attention_row_tolerance(const RowReference& row, int d, bool exact_dots, double slack = 1.0,
                                     AttentionPrecision precision = AttentionPrecision::FP32);
// The same from bounds instead of a row: for checks against a GPU reference, where the row's sums are
// unknown: |q|, |k| <= 1 gives dot_abs <= scale d, and |v| <= 1 gives magnitude <= 1.
RowTolerance attention_bound(int visible, int d, double dot_abs, double logit_abs, double lse, bool exact_dots,
                             double slack, AttentionPrecision precision = AttentionPrecision::FP32);
// The sum of two bounds: a kernel's and its reference's, when the reference is another GPU result.
RowTolerance operator+(const RowTolerance& a, const RowTolerance& b);

// Rows the lessons check on the CPU: 0, 1 and the last of every head, plus `extra` random rows per head.
std::vector<int> sample_rows(int seq_q, int extra, std::uint64_t seed);

}  // namespace p5
