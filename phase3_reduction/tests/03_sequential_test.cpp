// SPDX-License-Identifier: MIT
// Graded tests for 3.03 sequential: sequential addressing, for floats and (exactly) for ints. Sizes from 0 to 2^28 + 3
// (around a warp, around a block, a prime, past one pass); mixed-sign, exactly summable, all-negative and constant
// inputs, and ints that must come out exact. The input is guarded by huge values (a read past n shows), the output is
// poisoned, and the input must come back unchanged (grading.cpp).
#include "common/testing.h"
#include "phase3_reduction/reduction.cuh"
#include "phase3_reduction/tests/grading.h"

TEST_CASE("reduce_sequential sums any n of floats exactly where the inputs allow, within (n-1) u sum|x| otherwise",
          "[p3][3.03][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(reduce_test_sizes()));
  check_reduce_float("reduce_sequential", reduce_sequential, n);
}

TEST_CASE("reduce_sequential_int sums any n of ints exactly, in any order", "[p3][3.03][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(reduce_test_sizes()));
  check_reduce_int("reduce_sequential_int", reduce_sequential_int, n);
}
