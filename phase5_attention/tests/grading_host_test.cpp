// SPDX-License-Identifier: MIT
// The grader's judging half (judge_attention) on host models of BF16 kernels (tests/bf16_model.h), so
// that what gpu.p5.grader proves on the GPU is also checked on every build host: a correct
// FlashAttention-2 model (P in BF16, truncating tensor-core sums or plain FP32 ones, tiles of 64 or 128)
// passes on the self-test's shapes, and each planted bug fails with the sentence that names it (those of
// the self-test's BF16 plants, two of its FP32 ones, and those of 5.08's Hopper plants the values show).
#include <string>
#include <vector>

#include "common/testing.h"
#include "phase5_attention/tests/bf16_model.h"
#include "phase5_attention/tests/grading.h"

namespace {

AttentionCase make(int heads, int seq, int d, bool causal, p5::AttentionData data = p5::AttentionData::Uniform) {
  AttentionCase c;
  c.shape = AttentionShape{heads, seq, seq, d, causal};
  c.data = data;
  return c;
}

// What the grader says of the model on the case, with the inputs grade_attention_bf16 would upload.
std::string judge_model(const p5model::Bf16Kernel& kernel, const AttentionCase& c) {
  const p5::AttentionInputs in =
      p5::make_attention_inputs(c.shape, c.data, wb::test::seed(), p5::AttentionPrecision::BF16);
  std::vector<float> o, l;
  p5model::bf16_attention(c.shape, in, kernel, o, l);
  return judge_attention("model", c, in, o, l, p5::AttentionPrecision::BF16);
}

}  // namespace

TEST_CASE("the BF16 grader accepts a model of a correct FlashAttention-2 kernel", "[host][p5]") {
  const p5::AttentionData huge = p5::AttentionData::HugeLogits;
  const std::vector<AttentionCase> cases = {make(3, 65, 64, false),       make(3, 257, 128, true),
                                            make(3, 257, 64, true, huge), make(1, 1, 128, true),
                                            make(3, 63, 128, false),      make(1, 1000, 64, true)};
  for (const bool tensor_cores : {true, false}) {
    for (const int tile : {64, 128}) {
      p5model::Bf16Kernel kernel;
      kernel.tensor_cores = tensor_cores;
      kernel.tile = tile;
      for (const AttentionCase& c : cases) {
        CAPTURE(tensor_cores, tile, c.shape.seq_q, c.shape.d, c.shape.causal, c.data == huge);
        const std::string verdict = judge_model(kernel, c);
        INFO("grader said: " << verdict);
        CHECK(verdict.empty());
      }
    }
  }
}

TEST_CASE("the BF16 grader names each bug planted in a model of the kernel", "[host][p5]") {
  const p5::AttentionData huge = p5::AttentionData::HugeLogits;
  struct Plant {
    const char* what;
    p5model::Bug bug;
    AttentionCase c;
    const char* diagnosis;
  };
  // The shapes of gpu.p5.grader's BF16 plants.
  const std::vector<Plant> plants = {
      {"never rescaling when the max grows", p5model::Bug::MissingRescale, make(3, 257, 64, false), "missing rescale"},
      {"never rescaling, logits near 1e4", p5model::Bug::MissingRescale, make(3, 257, 64, false, huge),
       "missing rescale"},
      {"the scale applied twice", p5model::Bug::ScaleTwice, make(3, 65, 128, false), "applied twice"},
      {"a causal mask off by one", p5model::Bug::CausalOffByOne, make(3, 65, 64, true), "off by one"},
      {"dropping the last, partial key tile", p5model::Bug::DropsLastTile, make(3, 65, 64, false),
       "is never processed"},
      // Two more of the FP32 plants, which the BF16 bound must still tell apart.
      {"no causal mask", p5model::Bug::NoMask, make(3, 65, 64, true), "without the causal mask"},
      {"counting the zero padding of the last key tile", p5model::Bug::CountsTailKeys, make(3, 65, 128, false),
       "were counted"},
  };
  // 5.08's plants the values show (tests/wrong_kernels_hopper.cu), on 128-key tiles and the shapes of
  // gpu.p5.grader's Hopper case.
  const std::vector<Plant> hopper_plants = {
      {"5.08: O not rescaled when the max grows (l is)", p5model::Bug::OutputNotRescaled, make(2, 1000, 64, false),
       "rescaled by exp(m_old - m_new) together with l"},
      {"5.08: O not rescaled, seq 257", p5model::Bug::OutputNotRescaled, make(3, 257, 64, false),
       "rescaled by exp(m_old - m_new) together with l"},
      {"5.08: the diagonal tile skipped", p5model::Bug::SkipsDiagonalTile, make(2, 383, 64, true),
       "skip their diagonal tile"},
      {"5.08: the last tile's keys past seq_k not masked", p5model::Bug::CountsTailKeys, make(2, 257, 64, false),
       "were counted"},
      {"5.08: L in exp2's units", p5model::Bug::LseBase2, make(2, 257, 64, true), "O is right but L is not"},
  };
  for (const bool tensor_cores : {true, false}) {
    for (const Plant& p : plants) {
      p5model::Bf16Kernel kernel;
      kernel.tensor_cores = tensor_cores;
      kernel.bug = p.bug;
      INFO("planted: " << p.what << (tensor_cores ? ", tensor-core sums" : ", FP32 sums"));
      const std::string verdict = judge_model(kernel, p.c);
      INFO("grader said: " << verdict);
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
    for (const Plant& p : hopper_plants) {
      p5model::Bf16Kernel kernel;
      kernel.tensor_cores = tensor_cores;
      kernel.tile = 128;
      kernel.bug = p.bug;
      INFO("planted: " << p.what << (tensor_cores ? ", tensor-core sums" : ", FP32 sums"));
      const std::string verdict = judge_model(kernel, p.c);
      INFO("grader said: " << verdict);
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

TEST_CASE("the BF16 grader reports an O never written as untouched", "[host][p5]") {
  const AttentionCase c = make(3, 65, 64, false);
  const p5::AttentionInputs in = p5::make_attention_inputs(c.shape, c.data, 1, p5::AttentionPrecision::BF16);
  const std::vector<float> o(c.shape.q_elements(), wb::poison_value<float>()), l(c.shape.l_elements(), 0.0f);
  CHECK(judge_attention("stub", c, in, o, l, p5::AttentionPrecision::BF16).find("Output untouched") !=
        std::string::npos);
}
