// SPDX-License-Identifier: MIT
// The grader of 5.07's backward pass: the CPU reference in double (every element of dQ, dK and dV, each
// within its own bound: harness/reference_backward.cpp) on shapes around the tiles, seq_q != seq_k both ways,
// logits near 1e4; two heads of seq 4096 against the unfused cuBLAS backward (checked against the CPU
// in gpu.p5.grader) with per-element magnitudes from the same pipeline on absolute values. Inputs
// (BF16 Q, K, V, O, dO; FP32 L) between NaN canaries, outputs poisoned between canaries, the workspace
// guarded; when something is wrong, a sentence naming the likely bug.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/reference_backward.h"

struct BackwardCase {
  AttentionShape shape;
  p5::AttentionData data = p5::AttentionData::Uniform;
};

// seq 1, 17, 63, 64, 65, 129, 257 (1 to 3 heads), d 64 and 128, causal or not. Under WB_SANITIZE:
// seq up to 65, 2 heads.
std::vector<BackwardCase> backward_cases(bool causal);
// Not causal, seq_q != seq_k both ways: (17, 65), (65, 17), (1, 129), (129, 1), (63, 257), (257, 63).
// Under WB_SANITIZE the first two.
std::vector<BackwardCase> backward_cross_cases();
// Logits near +-1e4 at seq 65 and 129: P from s - L without overflow.
std::vector<BackwardCase> backward_huge_logit_cases(bool causal);
// seq 4096, 2 heads, d 64 and 128, graded against the cuBLAS backward; none under WB_SANITIZE.
std::vector<BackwardCase> backward_large_cases(bool causal);

// Runs the launcher once on one case; "" when dQ, dK, dV are right and nothing outside them (or the
// workspace) was written, else the report and its diagnosis. check_backward FAILs with it.
std::string grade_backward(const char* name, Bf16AttentionBackwardLauncher launch, const BackwardCase& c,
                           std::uint64_t seed);
void check_backward(const char* name, Bf16AttentionBackwardLauncher launch, const BackwardCase& c);

// The judging half, host code for the shapes the CPU reference takes (a GPU for larger ones): the
// kernel's dQ, dK, dV (BF16 widened, BF16's poison as float's) for the inputs `in`.
std::string judge_backward(const char* name, const BackwardCase& c, const p5::BackwardInputs& in,
                           const std::vector<float>& dq, const std::vector<float>& dk, const std::vector<float>& dv);
