// SPDX-License-Identifier: MIT
// 5.07's grader, proven the same way as the forward's (grader_selftest.cpp): each planted backward bug
// fails with the sentence that names it, a correct backward passes (small shapes against the CPU,
// seq 4096 against the cuBLAS backward), and the cuBLAS backward and its magnitudes, which grade the
// large shapes, match the CPU reference.
#include <cmath>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase5_attention/harness/reference_backward_gpu.h"
#include "phase5_attention/tests/backward_grading.h"
#include "phase5_attention/tests/backward_wrong_kernels.h"

namespace {

BackwardCase bwd(int heads, int seq_q, int seq_k, int d, bool causal,
                 p5::AttentionData data = p5::AttentionData::Uniform) {
  BackwardCase c;
  c.shape = AttentionShape{heads, seq_q, seq_k, d, causal};
  c.data = data;
  return c;
}

}  // namespace

TEST_CASE("the 5.07 grader accepts a correct backward and names every planted backward bug", "[gpu][grader][p5]") {
  const p5::AttentionData huge = p5::AttentionData::HugeLogits;
  struct Plant {
    const char* what;
    Bf16AttentionBackwardLauncher launch;
    BackwardCase c;
    const char* diagnosis;  // "" = the grader must accept it
  };
  const std::vector<Plant> plants = {
      {"a correct backward", planted_backward_correct, bwd(3, 65, 65, 64, false), ""},
      {"a correct backward, causal, d = 128", planted_backward_correct, bwd(3, 129, 129, 128, true), ""},
      {"a correct backward, seq_q < seq_k", planted_backward_correct, bwd(2, 17, 65, 128, false), ""},
      {"a correct backward, seq_q > seq_k", planted_backward_correct, bwd(2, 65, 17, 64, false), ""},
      {"a correct backward, seq 1", planted_backward_correct, bwd(1, 1, 1, 64, true), ""},
      {"a correct backward, logits near 1e4", planted_backward_correct, bwd(3, 65, 65, 64, true, huge), ""},
      // Graded against the cuBLAS backward, as 5.07's large cases are.
      {"a correct backward, seq 4096 against the cuBLAS backward", planted_backward_correct,
       bwd(2, 4096, 4096, 128, true), ""},
      {"D from O alone", planted_backward_d_from_o, bwd(3, 17, 17, 64, false), "D computed from O alone"},
      {"dS without the P factor", planted_backward_no_p_factor, bwd(3, 65, 65, 64, false), "without the factor P"},
      {"dQ stored, not added, by each key block", planted_backward_dq_plain_store, bwd(3, 65, 65, 128, false),
       "dK and dV are right but dQ is not"},
      {"no causal mask in the backward", planted_backward_no_mask, bwd(3, 65, 65, 64, true), "without the causal mask"},
      {"dK without the softmax scale", planted_backward_dk_without_scale, bwd(3, 65, 65, 128, false),
       "dK matches dS^T Q without the softmax scale"},
      {"the last, partial query tile dropped", planted_backward_drops_query_tail, bwd(3, 65, 65, 64, false),
       "partial query tile"},
  };
  for (const Plant& p : plants) {
    INFO("planted: " << p.what);
    const std::string verdict = grade_backward("planted", p.launch, p.c, wb::test::seed());
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

// dS handed to the other lanes through shared memory without __syncwarp: one warp in lockstep gets right
// answers, so the plain grader passes it; the grade's racecheck fails it (gpu.p5.sanitizer-race runs
// every [planted-race] case).
TEST_CASE("planted race: a backward passing dS through shared memory without __syncwarp passes the plain grader",
          "[gpu][grader][p5][planted-race]") {
  for (const BackwardCase& c : {bwd(1, 65, 65, 64, false), bwd(2, 17, 17, 128, true)}) {
    INFO("seq " << c.shape.seq_q << ", d " << c.shape.d);
    CHECK(grade_backward("planted", planted_backward_no_syncwarp, c, wb::test::seed()).empty());
  }
}

TEST_CASE("the cuBLAS backward and its magnitudes match the CPU reference", "[gpu][grader][p5]") {
  for (const BackwardCase& c : {bwd(3, 1, 1, 64, true), bwd(3, 65, 65, 64, false), bwd(3, 257, 257, 128, true),
                                bwd(2, 17, 65, 128, false), bwd(2, 65, 17, 64, false), bwd(2, 129, 129, 64, true)}) {
    const AttentionShape& s = c.shape;
    INFO("heads " << s.heads << ", seq_q " << s.seq_q << ", seq_k " << s.seq_k << ", d " << s.d
                  << (s.causal ? ", causal" : ""));
    p5::BackwardInputs in = p5::make_backward_inputs(s, c.data, wb::test::seed());
    p5::backward_forward_cpu(s, in);
    const p5::BackwardReference ref = p5::attention_backward_reference(s, in, false);
    const p5::BackwardTolerance t = p5::backward_bound(s, ref.logit_error, p5::AttentionPrecision::FP32);
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
    const std::vector<float> got[3] = {rq.download(), rk.download(), rv.download()};
    const std::vector<float> mags[3] = {mq.download(), mk.download(), mv.download()};
    const std::vector<double>* want[3] = {&ref.dq, &ref.dk, &ref.dv};
    const std::vector<double>* mag[3] = {&ref.mq, &ref.mk, &ref.mv};
    const double rel[3] = {t.dq_rel, t.dk_rel, t.dv_rel};
    const char* names[3] = {"dQ", "dK", "dV"};
    for (int gi = 0; gi < 3; ++gi) {
      std::size_t bad = 0, bad_mag = 0;
      for (std::size_t i = 0; i < got[gi].size(); ++i) {
        const double m = (*mag[gi])[i];
        bad += std::fabs(got[gi][i] - (*want[gi])[i]) > t.abs + rel[gi] * m + wb::kFloatEpsilon * std::fabs(m);
        bad_mag += std::fabs(mags[gi][i] - m) > 1e-5 * m + 1e-30;
      }
      INFO(names[gi]);
      CHECK(bad == 0);
      CHECK(bad_mag == 0);
    }
  }
}
