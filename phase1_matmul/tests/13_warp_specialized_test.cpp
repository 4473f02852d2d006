// SPDX-License-Identifier: MIT
// 1.13 warp_specialized: the BF16 grader (tests/grading.h) on matmul_warp_specialized_bf16: C = alpha A B^T + beta C
// with BF16 A (M x K) and B (N x K), FP32 C. Exact small integers (exact in BF16, so any correct kernel gives the exact
// answer), then random BF16 inputs under the truncation-aware tolerance, on shapes that take the 16-byte fast path
// (K % 8 == 0) and shapes the contract sends to the fallback (K % 8 != 0, K = 0, A or B misaligned by one element), the
// fast path with C one or two floats past 16 bytes (the epilogue's float2 stores need C 8-byte aligned), and more tiles
// than persistent blocks at sizes the sanitizer runs keep (a block's second and later tiles, the ring's phases carried
// across tiles). Needs a Hopper GPU (sm_90): elsewhere the test skips with one line (exit 77). Its bugs can hang
// instead of failing (an mbarrier wait that never completes): CTest's TIMEOUT for this test is short (its timeout in
// cmake/exercises.json), and watch_for_hangs prints, before any case runs, what usually hangs and then each case's
// shape, so a killed run shows the advice and the case that hung.
#include "common/testing.h"
#include "phase1_matmul/tests/grading.h"

TEST_CASE("matmul_warp_specialized_bf16 computes alpha A B^T + beta C for every shape", "[p1][1.13][gpu]") {
  watch_for_hangs("1.13 warp_specialized");  // mbarrier bugs hang: say what hangs before anything runs
  const Bf16MatmulCase c = GENERATE(Catch::Generators::from_range(bf16_matmul_cases()));
  check_matmul_bf16("matmul_warp_specialized_bf16", matmul_warp_specialized_bf16, c);
}

TEST_CASE("matmul_warp_specialized_bf16 hands misaligned A or B to the fallback", "[p1][1.13][gpu]") {
  watch_for_hangs("1.13 warp_specialized");  // mbarrier bugs hang: say what hangs before anything runs
  const Bf16MatmulCase c = GENERATE(Catch::Generators::from_range(bf16_misaligned_cases()));
  check_matmul_bf16("matmul_warp_specialized_bf16", matmul_warp_specialized_bf16, c);
}

TEST_CASE("matmul_warp_specialized_bf16 stores into a C that is only 4- or 8-byte aligned", "[p1][1.13][gpu]") {
  watch_for_hangs("1.13 warp_specialized");  // mbarrier bugs hang: say what hangs before anything runs
  // Even N with C + 1: store_pair's float2 access would fault ("misaligned address"), so it must fall
  // back to single floats, reading C too (beta != 0).
  const Bf16MatmulCase c = GENERATE(Catch::Generators::from_range(bf16_misaligned_c_cases()));
  check_matmul_bf16("matmul_warp_specialized_bf16", matmul_warp_specialized_bf16, c);
}

TEST_CASE("matmul_warp_specialized_bf16 runs more tiles than persistent blocks", "[p1][1.13][gpu]") {
  watch_for_hangs("1.13 warp_specialized");
  // Tiles of 128 x 256 and at most one block per SM (132 on an H100): the shapes above that have more
  // tiles are too large for WB_SANITIZE, so under compute-sanitizer no block ever took a second tile.
  // These stay within its 2^21 multiply-adds (one K step per tile).
  const Bf16MatmulCase c = GENERATE(Catch::Generators::values<Bf16MatmulCase>({
      // 133 x 128 rows: one tile more than the blocks (block 0 takes tile 132 after tile 0).
      {17024, 8, 8, 1.0f, 0.0f},
      // 512 tiles, 3 or 4 a block: the 3-stage ring wraps from one tile into the next, so its phases must
      // count on across tiles; beta != 0 reads C.
      {65536, 4, 8, 2.0f, -1.0f},
  }));
  check_matmul_bf16("matmul_warp_specialized_bf16", matmul_warp_specialized_bf16, c);
}
