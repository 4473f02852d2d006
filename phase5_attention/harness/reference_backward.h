// SPDX-License-Identifier: MIT
// The backward pass's half of what lessons and tests share (5.07), outside the files learners edit: its
// inputs (BF16 Q, K, V, dO; O and L from the forward), the CPU reference in double with each gradient's
// magnitude, the error bound of a BF16 tensor-core backward derived from its arithmetic (and of an
// FP32 one: the cuBLAS path), and the wrong backward passes the grader uses to name a bug.
#pragma once

#include <cstdint>
#include <vector>

#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/reference.h"

namespace p5 {

// Every input of the backward as the floats the kernel gets: q, k, v, o and dout hold BF16 values
// widened (exact), l holds FP32 values. The reference takes them as given: P = exp(s - l) with this l,
// D = rowsum(dout o o) with this o, so rounding O to BF16 and L to FP32 costs the comparison nothing.
struct BackwardInputs {
  std::vector<float> q, k, v, o, dout, l;
};
// Q, K, V as make_attention_inputs makes them in BF16 (the same seed gives 5.05's data), dO uniform in
// [-1, 1) rounded to BF16; O and L left empty: fill them with backward_forward_cpu (small shapes) or
// backward_forward_gpu (reference_backward_gpu.h).
BackwardInputs make_backward_inputs(const AttentionShape& shape, AttentionData data, std::uint64_t seed);
// O (the double reference rounded to BF16) and L (rounded to FP32) of every row, on the CPU.
void backward_forward_cpu(const AttentionShape& shape, BackwardInputs& in);

// A deliberately wrong backward, to test a hypothesis about a kernel's bug. The default is the right one.
struct BackwardVariant {
  bool mask = true;             // false: the causal mask ignored
  bool d_from_o = false;        // D_i = sum_c O_ic instead of sum_c dO_ic O_ic
  bool no_p_factor = false;     // dS = dP - D instead of P o (dP - D)
  double dq_scale_power = 1.0;  // 0: dQ without the softmax scale; 2: with it twice
  double dk_scale_power = 1.0;  // the same for dK
  int query_limit = -1;         // >= 0: only queries below it take part (a dropped query tile)
  int key_limit = -1;           // >= 0: only keys below it take part (a dropped key block)
};

// The gradients of every head in double, [heads][seq][d] as the kernel writes them, and beside each
// element its magnitude, the sum of absolute values its error scales with:
//   mq_ic = scale sum_j p_ij m_ij |k_jc|, mk_jc = scale sum_i p_ij m_ij |q_ic|, mv_jc = sum_i p_ij |do_ic|
// with m_ij = sum_c |do_ic v_jc| + sum_c |do_ic o_ic| (which bounds |dP_ij - D_i|).
struct BackwardReference {
  std::vector<double> dq, dk, dv;
  std::vector<double> mq, mk, mv;
  double logit_error = 0;  // the largest logit error bound over the visible (i, j) (see backward_bound)
};
BackwardReference attention_backward_reference(const AttentionShape& shape, const BackwardInputs& in, bool exact_dots,
                                               const BackwardVariant& variant = {});

// One row of one gradient in double, with its magnitudes (as above), for checks of sampled rows of a
// large problem: dQ of query row `row` (over its visible keys), or dK and dV of key row `row` (over
// the queries that see it). logit_error as above, over the pairs visited.
struct BackwardRow {
  std::vector<double> g, m;
  double logit_error = 0;
};
BackwardRow backward_dq_row(const AttentionShape& shape, const BackwardInputs& in, int head, int row);
void backward_dkv_row(const AttentionShape& shape, const BackwardInputs& in, int head, int row, BackwardRow* dk,
                      BackwardRow* dv);

// The error bound of a backward kernel: each gradient within rel * magnitude + abs of the exact result on
// its inputs (reference_backward.cpp derives it). `logit_error`: the bound on |computed - exact| of a
// logit s - L as the kernel forms it (from BackwardReference, or from |q|, |k| <= 1 for the cuBLAS
// comparisons); BF16: P rounded to BF16 before dV = P^T dO, dS rounded before dQ and dK, the outputs in
// BF16, sums on tensor cores; FP32: the cuBLAS path (nothing rounded to BF16).
struct BackwardTolerance {
  double dq_rel = 0, dk_rel = 0, dv_rel = 0;
  double abs = 0;
};
BackwardTolerance backward_bound(const AttentionShape& shape, double logit_error, AttentionPrecision precision,
                                 double slack = 1.0);
// The logit error bound for one logit: dot_abs = scale sum_c |q_c k_c|, s the scaled logit, l the row's L.
double backward_logit_error(int d, double dot_abs, double s, double l, bool exact_dots);

}  // namespace p5
