// SPDX-License-Identifier: MIT
// One grader for every rung of the SGEMM ladder: exact-integer inputs (any correct kernel gives the
// exact answer, so one missing term shows) and random inputs under the derived tolerance, on the
// shapes that break tiled kernels, with poisoned C, NaN-ringed inputs and guard canaries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "phase1_matmul/matmul.cuh"
#include "phase1_matmul/reference.h"

struct MatmulCase {
  int M, N, K;
  float alpha, beta;
};

// 1x1x1, shapes that are no multiple of any tile (31x33x17, 127x129x65, 1000^3), tall/skinny and wide,
// K = 1 and K = 0, M = 0 and N = 0, alpha/beta other than 1/0, and 4096^3 (dropped under WB_SANITIZE).
std::vector<MatmulCase> standard_matmul_cases();

// Runs `launch` once on one case, with exact small-integer inputs (`exact`) or random ones, and returns
// "" when it is right, else the failure report with its diagnosis. check_matmul FAILs with it.
std::string grade_matmul(const char* name, MatmulLauncher launch, const MatmulCase& c, MatmulPrecision precision,
                         bool exact, std::uint64_t seed);

// Runs `launch` on one case twice (exact integers, then random floats) and FAILs with a report that
// names the pattern of the error (e.g. "wrong only where row >= 64: the tail tile along M").
void check_matmul(const char* name, MatmulLauncher launch, const MatmulCase& c,
                  MatmulPrecision precision = MatmulPrecision::FP32);
