// SPDX-License-Identifier: MIT
// 1.10 mma_sync: the BF16 grader (tests/grading.h) on matmul_mma_sync_bf16: C = alpha A B^T + beta C with BF16 A
// (M x K) and B (N x K), FP32 C. Exact small integers (exact in BF16, so any correct kernel gives the exact answer),
// then random BF16 inputs under the truncation-aware tolerance, on shapes that take the 16-byte fast path (K % 8 == 0)
// and shapes the contract sends to the fallback (K % 8 != 0, K = 0, A or B misaligned by one element), and the fast
// path with C one or two floats past 16 bytes (the epilogue's float2 stores need C 8-byte aligned). Needs sm_80 or
// newer: elsewhere the test skips with one line (exit 77).
#include "common/testing.h"
#include "phase1_matmul/tests/grading.h"

TEST_CASE("matmul_mma_sync_bf16 computes alpha A B^T + beta C for every shape", "[p1][1.10][gpu]") {
  const Bf16MatmulCase c = GENERATE(Catch::Generators::from_range(bf16_matmul_cases()));
  check_matmul_bf16("matmul_mma_sync_bf16", matmul_mma_sync_bf16, c);
}

TEST_CASE("matmul_mma_sync_bf16 hands misaligned A or B to the fallback", "[p1][1.10][gpu]") {
  const Bf16MatmulCase c = GENERATE(Catch::Generators::from_range(bf16_misaligned_cases()));
  check_matmul_bf16("matmul_mma_sync_bf16", matmul_mma_sync_bf16, c);
}

TEST_CASE("matmul_mma_sync_bf16 stores into a C that is only 4- or 8-byte aligned", "[p1][1.10][gpu]") {
  // Even N with C + 1: store_pair's float2 access would fault ("misaligned address"), so it must fall
  // back to single floats, reading C too (beta != 0).
  const Bf16MatmulCase c = GENERATE(Catch::Generators::from_range(bf16_misaligned_c_cases()));
  check_matmul_bf16("matmul_mma_sync_bf16", matmul_mma_sync_bf16, c);
}
