// SPDX-License-Identifier: MIT
// Graded tests for 2.07 softmax_three_pass: row lengths around the warp and the float4 pack (1, 31,
// 32, 33), long rows (1000, 4096, 10000), scalar rows longer than a block of 256 threads (257, 1025:
// more packs than threads without float4), row counts that are no multiple of anything, one large
// matrix; rows mixing 1000 and -1000 (overflow without the max); rows with -inf entries; each row
// summing to 1. Inputs and outputs sit in guarded buffers; the reference is the double one.
#include "common/testing.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/tests/rowwise_grading.h"

namespace {

// The error bound, u = 2^-24, m = the row's max, e_j = exp(x_j - m), S = sum of e_j >= 1 (the max's
// own term is 1):
//   x - m is rounded: a relative error u |x - m| in the exponent's argument, so e gains u |x - m|;
//   expf errs by <= 2 ulp <= 4u: each computed e_j is within (4 + |x_j - m|) u e_j;
//   the sum gathers those, sum_j e_j (4 + |x_j - m|) u <= 4u S + cols u / e (t e^-t <= 1/e, S >= 1),
//   plus <= (cols - 1) u S for adding cols positive floats in any order;
//   1 / S and the product: 2u; the double reference rounded to float for the comparison: 1u.
// Per element, first order: (4 + |x - m|) + (3 + 1.37 cols) + 2 + 1; we allow (10 + |x - m| + 2 cols) u,
// the extra 0.63 cols u covering the products of these small terms. Outputs that underflow to
// denormals (x - m below about -87) err by their ulp, 2^-149, an absolute amount: 2^-140 covers it and
// is still far below the smallest normal float. A -inf entry must give exactly 0.
// The row sum is tighter: pass 3 recomputes the same e_j that pass 2 summed, so their errors cancel
// in sum_j e_j / S and only the summation, 1 / S and the product remain: (cols + 2) u (as Higham's
// gamma, k u / (1 - k u), which also covers the second-order terms), plus the absolute terms.
// A missing max gives inf / inf = NaN at x = 1000; a wrong normalizer (a thread's or a warp's partial
// sum, cols, the max) misses the row sum by far more than 2 cols u.
constexpr p2::SoftmaxBound kBound{10.0, 2.0, 2.0, 1.0,
                                  "divide by the block's total of exp(x - max), the one every thread gets from "
                                  "the block reduction, and compute each exp the same way in passes 2 and 3."};

}  // namespace

TEST_CASE("softmax_three_pass matches the double reference for rows of every length", "[p2][2.07][gpu]") {
  const p2::RowShape shape = GENERATE(Catch::Generators::from_range(p2::softmax_all_shapes()));
  p2::check_softmax("softmax_three_pass", softmax_three_pass, shape, p2::SoftmaxData::Uniform, kBound);
}

TEST_CASE("softmax_three_pass does not overflow when 1000 and -1000 share a row", "[p2][2.07][gpu]") {
  const p2::RowShape shape = GENERATE(Catch::Generators::from_range(p2::softmax_special_shapes()));
  p2::check_softmax("softmax_three_pass", softmax_three_pass, shape, p2::SoftmaxData::Huge, kBound);
}

TEST_CASE("softmax_three_pass gives 0 for -inf entries and still normalizes the row", "[p2][2.07][gpu]") {
  const p2::RowShape shape = GENERATE(Catch::Generators::from_range(p2::softmax_special_shapes()));
  p2::check_softmax("softmax_three_pass", softmax_three_pass, shape, p2::SoftmaxData::NegInf, kBound);
}
