// SPDX-License-Identifier: MIT
// Graded tests for 6.05 tensor_parallel_mlp (tests/mlp_grading.h): on every real GPU count from 2, shapes
// tokens x model x hidden of 1x8x2n, 37x72x41n and 128x256x256n (odd sizes: only hidden divides by the rank
// count), random BF16 inputs, every element of every rank's Y against the FP64 reference within the
// tolerance the phase README derives (BF16 rounding of the hidden activation first), outputs poisoned
// and guarded. What this cannot see: a split that happens to be right for these shapes only.
#include "common/testing.h"
#include "phase6_multi_gpu/multi_gpu.cuh"
#include "phase6_multi_gpu/tests/grading.h"
#include "phase6_multi_gpu/tests/mlp_grading.h"

TEST_CASE("tensor_parallel_mlp equals GELU(X W1) W2 on every rank, 2 GPUs and up", "[p6][6.05][gpu]") {
  p6::test::require_real_gpus("6.05", "tensor_parallel_mlp", 2);
  const std::uint64_t seed = wb::test::seed();
  for (int n = 2; n <= std::min(p6::visible_gpu_count(), 8); ++n)
    for (const p6::MlpShape& shape : p6::test::mlp_test_shapes(n)) {
      const std::string verdict =
          p6::test::grade_mlp("tensor_parallel_mlp", shard_w1, shard_w2, tensor_parallel_mlp, n, shape, seed);
      if (!verdict.empty()) FAIL(verdict);
    }
}
