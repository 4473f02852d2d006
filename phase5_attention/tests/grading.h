// SPDX-License-Identifier: MIT
// One grader for every phase 5 kernel: the CPU reference in double (O and L of every row) on shapes
// around the 64-row tiles, one large shape against the cuBLAS path (itself checked against the CPU in
// gpu.p5.grader), logits of 1e4, causal rows with a single visible key; inputs and outputs in guarded
// buffers, outputs poisoned; and, when something is wrong, a sentence naming the likely bug.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "phase5_attention/attention.cuh"
#include "phase5_attention/reference.h"

struct AttentionCase {
  AttentionShape shape;
  p5::AttentionData data = p5::AttentionData::Uniform;
};

// seq 1, 17, 63, 64, 65, 257, 1000 (1 and 3 heads), d 64 and 128, causal or not; seq 1000 is dropped
// under WB_SANITIZE.
std::vector<AttentionCase> attention_cases(bool causal);
// Logits near +-1e4 at seq 65 and 257: overflow (or 0 / 0) without the max.
std::vector<AttentionCase> huge_logit_cases(bool causal);
// seq 4096 (2 heads), d 64 and 128, graded against the cuBLAS path; none under WB_SANITIZE.
std::vector<AttentionCase> large_cases(bool causal);

// Runs the kernel once on one case; "" when O and L are right and nothing outside them was written,
// else the report and its diagnosis. check_attention FAILs with it.
std::string grade_attention(const char* name, const p5::AttentionKernel& kernel, const AttentionCase& c,
                            std::uint64_t seed);
void check_attention(const char* name, const p5::AttentionKernel& kernel, const AttentionCase& c);
