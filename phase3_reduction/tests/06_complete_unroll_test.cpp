// SPDX-License-Identifier: MIT
// Graded tests for 3.06 complete_unroll: the unrolled tree at every block size the launcher picks (64, 128, 256). Sizes
// from 0 to 2^28 + 3 (around a warp, around a block, a prime, past one pass); mixed-sign, exactly summable,
// all-negative and constant inputs. The input is guarded by huge values (a read past n shows), the output is poisoned,
// and the input must come back unchanged (grading.cpp).
#include "common/testing.h"
#include "phase3_reduction/reduction.cuh"
#include "phase3_reduction/tests/grading.h"

TEST_CASE("reduce_complete_unroll sums any n of floats exactly where the inputs allow, within (n-1) u sum|x| otherwise",
          "[p3][3.06][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(reduce_test_sizes()));
  check_reduce_float("reduce_complete_unroll", reduce_complete_unroll, n);
}
