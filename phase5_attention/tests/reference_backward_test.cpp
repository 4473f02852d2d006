// SPDX-License-Identifier: MIT
// The CPU backward reference (harness/reference_backward.cpp) against central differences of the CPU forward:
// the loss sum(dO o O) moved by a small step in one element of Q, K or V changes by the gradient times
// the step. Host only.
#include "phase5_attention/harness/reference_backward.h"

#include <cmath>
#include <vector>

#include "common/testing.h"

namespace {

// sum over every row of dO . O, in double, for the inputs as they are.
double loss(const AttentionShape& s, const p5::BackwardInputs& in) {
  const p5::AttentionInputs qkv{in.q, in.k, in.v};
  double total = 0;
  for (int h = 0; h < s.heads; ++h)
    for (int i = 0; i < s.seq_q; ++i) {
      const p5::RowReference row = p5::attention_reference_row(s, qkv, h, i);
      for (int c = 0; c < s.d; ++c) total += row.o[c] * in.dout[(static_cast<std::size_t>(h) * s.seq_q + i) * s.d + c];
    }
  return total;
}

void check_gradients(const AttentionShape& s) {
  p5::BackwardInputs in = p5::make_backward_inputs(s, p5::AttentionData::Uniform, 7);
  // O and L unrounded (to float only): the gradients of the loss are those of the exact forward.
  const p5::AttentionInputs qkv{in.q, in.k, in.v};
  in.o.assign(s.q_elements(), 0.0f);
  in.l.assign(s.l_elements(), 0.0f);
  for (int h = 0; h < s.heads; ++h)
    for (int i = 0; i < s.seq_q; ++i) {
      const p5::RowReference row = p5::attention_reference_row(s, qkv, h, i);
      const std::size_t r = static_cast<std::size_t>(h) * s.seq_q + i;
      for (int c = 0; c < s.d; ++c) in.o[r * s.d + c] = static_cast<float>(row.o[c]);
      in.l[r] = static_cast<float>(row.lse);
    }
  const p5::BackwardReference ref = p5::attention_backward_reference(s, in, false);
  const float step = 1.0f / 1024;  // exact in float around values in [-1, 1)
  struct Target {
    std::vector<float>* x;
    const std::vector<double>* grad;
    const char* name;
  };
  for (const Target& t : {Target{&in.q, &ref.dq, "dQ"}, Target{&in.k, &ref.dk, "dK"}, Target{&in.v, &ref.dv, "dV"}}) {
    for (std::size_t e = 0; e < t.x->size(); e += 37) {
      const float keep = (*t.x)[e];
      (*t.x)[e] = keep + step;
      const double up = loss(s, in);
      (*t.x)[e] = keep - step;
      const double down = loss(s, in);
      (*t.x)[e] = keep;
      // float rounding of the inputs and O: the difference quotient errs by about 1e-7 / step
      const double numeric = (up - down) / (2.0 * step);
      INFO(t.name << "[" << e << "]: reference " << (*t.grad)[e] << ", central difference " << numeric);
      CHECK(std::fabs(numeric - (*t.grad)[e]) <= 1e-4 + 1e-3 * std::fabs(numeric));
    }
  }
}

}  // namespace

TEST_CASE("the backward reference matches central differences of the forward", "[host][p5]") {
  check_gradients(AttentionShape{2, 5, 5, 64, false});
  check_gradients(AttentionShape{2, 6, 6, 64, true});
  check_gradients(AttentionShape{1, 3, 7, 64, false});
  check_gradients(AttentionShape{1, 7, 3, 64, false});
}

TEST_CASE("the backward bound is dominated by the two BF16 roundings", "[host][p5]") {
  const AttentionShape s{1, 65, 65, 128, false};
  const p5::BackwardTolerance bf16 = p5::backward_bound(s, 1e-4, p5::AttentionPrecision::BF16);
  const p5::BackwardTolerance fp32 = p5::backward_bound(s, 1e-4, p5::AttentionPrecision::FP32);
  const double r = std::ldexp(1.0, -8);
  CHECK(bf16.dq_rel > 2 * r);
  CHECK(bf16.dq_rel < 2.2 * r);
  CHECK(fp32.dq_rel < 2e-4);
  CHECK(bf16.dv_rel > 2 * r);
}
