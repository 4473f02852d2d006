// SPDX-License-Identifier: MIT
// One grader for every rung of the SGEMM ladder: exact-integer inputs (any correct kernel gives the
// exact answer, so one missing term shows) and random inputs under the derived tolerance, on the
// shapes that break tiled kernels, with poisoned C, NaN-ringed inputs and guard canaries. The BF16
// rungs (matmul_bf16.cuh: C = alpha A B^T + beta C) share it: the same inputs rounded to BF16 (the
// reference uses the rounded values), BF16 input buffers ringed with BF16 NaNs, the same diagnoses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "phase1_matmul/harness/reference.h"
#include "phase1_matmul/matmul.cuh"
#include "phase1_matmul/matmul_bf16.cuh"

struct MatmulCase {
  int M, N, K;
  float alpha, beta;
  // Floats by which A, B and C start past a 256-byte boundary: 1 makes them 4-byte aligned only, which
  // a launcher's 16-byte (float4) paths must refuse (matmul.cuh: A + 1 is a valid matrix).
  int a_offset = 0, b_offset = 0, c_offset = 0;
};

// 1x1x1, shapes that are no multiple of any tile (31x33x17, 127x129x65, 1000^3), tall/skinny and wide,
// K = 1 and K = 0, M = 0 and N = 0, alpha/beta other than 1/0, and 4096^3 (dropped under WB_SANITIZE).
// All of them with aligned A, B and C: the rungs that test alignment add their own cases.
std::vector<MatmulCase> standard_matmul_cases();

// Runs `launch` once on one case, with exact small-integer inputs (`exact`) or random ones, and returns
// "" when it is right, else the failure report with its diagnosis. check_matmul FAILs with it.
std::string grade_matmul(const char* name, MatmulLauncher launch, const MatmulCase& c, p1::MatmulPrecision precision,
                         bool exact, std::uint64_t seed);

// Runs `launch` on one case twice (exact integers, then random floats) and FAILs with a report that
// names the pattern of the error (e.g. "wrong only where row >= 64: the tail tile along M").
void check_matmul(const char* name, MatmulLauncher launch, const MatmulCase& c,
                  p1::MatmulPrecision precision = p1::MatmulPrecision::FP32);

// ---- the BF16 rungs 1.10-1.14 ----------------------------------------------------------------------

struct Bf16MatmulCase {
  int M, N, K;
  float alpha, beta;
  // Elements by which A and B start past a 256-byte boundary: 1 makes them 2-byte aligned only, which
  // the 16-byte fast paths must refuse (bf16_fast_path_ok) and hand to matmul_bf16_fallback.
  int a_offset = 0, b_offset = 0;
  // Floats by which C starts past a 256-byte boundary: C needs only float alignment, and the fast paths
  // still take such a C (bf16_fast_path_ok looks at A and B), so their epilogues must check it.
  int c_offset = 0;
};

// 1x1x1; ragged M and N (1, 15, 17, 63, 65, 127, 129, 251) with K % 8 == 0 but not a multiple of 64
// (the fast path); M or N below one tile; tall and wide; whole tiles; K % 8 != 0 (33x17x13 and odd K:
// the fallback); K = 0, M = 0, N = 0; alpha/beta other than 1/0 (beta = 0 always with NaN in C);
// 1000^3, 4096^3 and 8192x1024x4096 (the large ones dropped under WB_SANITIZE).
std::vector<Bf16MatmulCase> bf16_matmul_cases();
// A + 1 and B + 1 (misaligned by one element) with K % 8 == 0: these must reach the fallback.
std::vector<Bf16MatmulCase> bf16_misaligned_cases();
// C + 1 (4-byte aligned) and C + 2 (8-byte aligned, not 16) floats with aligned A and B, K % 8 == 0 and
// beta != 0: the fast path's epilogue reads and writes a C whose 8-byte (float2) or 16-byte (TMA store)
// accesses would fault; even N, and N % 4 == 0, so only the address tells these C from aligned ones.
std::vector<Bf16MatmulCase> bf16_misaligned_c_cases();

// As grade_matmul, for a BF16 launcher (precision BF16, B stored N x K).
std::string grade_matmul_bf16(const char* name, Bf16MatmulLauncher launch, const Bf16MatmulCase& c, bool exact,
                              std::uint64_t seed);
// As check_matmul: exact integers, then random BF16 values; the failure says which path (fast or
// fallback) the case takes.
void check_matmul_bf16(const char* name, Bf16MatmulLauncher launch, const Bf16MatmulCase& c);

// For rungs whose bugs hang rather than fail (mbarrier waits: 1.12, 1.13). Prints, once, what usually
// hangs, and from then on check_matmul_bf16 prints one line per case before running it: CTest kills a
// hung test at its TIMEOUT and shows its output, so the learner sees the advice and the shape that hung.
void watch_for_hangs(const char* rung);
// The same for a rung whose waits are bounded (1.14): a wait that cannot complete stops the kernel
// after about 2 s instead of hanging. Prints once what stops a wait (clusters add two causes), then
// one line per case, so the first case that failed while running is the one to read.
void watch_for_stopped_waits(const char* rung);
