// SPDX-License-Identifier: MIT
// 1.14 cluster_multicast: the BF16 grader (tests/grading.h) on matmul_cluster_bf16: C = alpha A B^T + beta C with BF16
// A (M x K) and B (N x K), FP32 C. Exact small integers (exact in BF16, so any correct kernel gives the exact answer),
// then random BF16 inputs under the truncation-aware tolerance, on shapes that take the 16-byte fast path (K % 8 == 0;
// N % 4 == 0 takes the TMA-store epilogue, other N the register one) and shapes the contract sends to the fallback
// (K % 8 != 0, K = 0, A or B misaligned by one element). Tile rows 1, 2, 3 (an odd count leaves the second block of the
// last cluster past M) and one cluster's pair of B halves cut by N. C one or two floats past 16 bytes with N % 4 == 0
// (a tensor map needs C 16-byte aligned, so the register epilogue, whose float2 stores need C 8-byte aligned). More
// tile pairs than resident clusters at sizes the sanitizer runs keep (a cluster's second and later pairs, the ring and
// the store buffers reused across pairs). Needs a Hopper GPU (sm_90): elsewhere the test skips with one line (exit 77).
// Its waits are bounded: a wait that cannot complete stops the kernel after about 2 s (the case fails while running and
// the GPU context is lost for the cases after it); watch_for_stopped_waits prints first what stops it and then each
// case's shape, so the first failing case is the one to read.
#include "common/testing.h"
#include "phase1_matmul/tests/grading.h"

TEST_CASE("matmul_cluster_bf16 computes alpha A B^T + beta C for every shape", "[p1][1.14][gpu]") {
  watch_for_stopped_waits("1.14 cluster_multicast");  // say what stops a wait before anything runs
  const Bf16MatmulCase c = GENERATE(Catch::Generators::from_range(bf16_matmul_cases()));
  check_matmul_bf16("matmul_cluster_bf16", matmul_cluster_bf16, c);
}

TEST_CASE("matmul_cluster_bf16 pairs tiles into clusters for any count of tile rows", "[p1][1.14][gpu]") {
  watch_for_stopped_waits("1.14 cluster_multicast");
  // 1, 2, 3 and 5 tile rows of 128; B tiles of 256 cut at 100 and 200 columns (one and both halves);
  // N % 4 != 0 for the register epilogue; K over many passes of the ring.
  const Bf16MatmulCase c = GENERATE(Catch::Generators::values<Bf16MatmulCase>({
      {100, 200, 64, 1.0f, 0.0f},
      {200, 100, 128, 1.0f, 0.5f},
      {300, 512, 1024, 1.0f, 0.0f},
      {600, 300, 256, 2.0f, -1.0f},
      {300, 258, 4096, 1.0f, 0.0f},
      {640, 768, 512, 1.0f, 1.0f},
  }));
  check_matmul_bf16("matmul_cluster_bf16", matmul_cluster_bf16, c);
}

TEST_CASE("matmul_cluster_bf16 hands misaligned A or B to the fallback", "[p1][1.14][gpu]") {
  watch_for_stopped_waits("1.14 cluster_multicast");
  const Bf16MatmulCase c = GENERATE(Catch::Generators::from_range(bf16_misaligned_cases()));
  check_matmul_bf16("matmul_cluster_bf16", matmul_cluster_bf16, c);
}

TEST_CASE("matmul_cluster_bf16 stores into a C that is only 4- or 8-byte aligned", "[p1][1.14][gpu]") {
  watch_for_stopped_waits("1.14 cluster_multicast");
  // N % 4 == 0 with C + 1 or C + 2: a tensor map needs C 16-byte aligned, so these must take the register
  // epilogue, and with C + 1 store_pair's float2 access would fault too ("misaligned address").
  const Bf16MatmulCase c = GENERATE(Catch::Generators::from_range(bf16_misaligned_c_cases()));
  check_matmul_bf16("matmul_cluster_bf16", matmul_cluster_bf16, c);
}

TEST_CASE("matmul_cluster_bf16 runs more tile pairs than resident clusters", "[p1][1.14][gpu]") {
  watch_for_stopped_waits("1.14 cluster_multicast");
  // Pairs of 128 x 256 tiles, a cluster of 2 blocks per pair, at most 66 clusters on 132 SMs (the launcher
  // runs as many as its rounds of pairs need): the shapes above that have more pairs are too large for
  // WB_SANITIZE, so under compute-sanitizer no cluster ever took a second pair. These stay within its 2^21
  // multiply-adds (one K step per pair).
  const Bf16MatmulCase c = GENERATE(Catch::Generators::values<Bf16MatmulCase>({
      // 134 x 128 rows: 67 pairs, one more than fit: 2 rounds on 34 clusters (register epilogue: N % 4 != 0).
      {17152, 6, 8, 1.0f, 0.0f},
      // 256 pairs, 4 a cluster: each consumer's two TMA store buffers are reused (N % 4 == 0), and
      // beta != 0 reads C first.
      {65536, 4, 8, 2.0f, -1.0f},
      // 512 pairs, 8 a cluster: the 4-stage ring wraps from one pair into the next, so its phases
      // must count on across pairs.
      {131072, 2, 8, 1.0f, 0.0f},
  }));
  check_matmul_bf16("matmul_cluster_bf16", matmul_cluster_bf16, c);
}
