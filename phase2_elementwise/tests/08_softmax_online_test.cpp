// SPDX-License-Identifier: MIT
// Graded tests for 2.08 softmax_online: row lengths around the warp and the float4 pack (1, 31,
// 32, 33), long rows (1000, 4096, 10000), scalar rows longer than a block of 256 threads (257, 1025:
// more packs than threads without float4), row counts that are no multiple of anything, one large
// matrix; rows mixing 1000 and -1000 (overflow without the max); rows with -inf entries; each row
// summing to 1. Inputs and outputs sit in guarded buffers; the reference is the double one.
#include "common/testing.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/tests/rowwise_grading.h"

namespace {

// The error bound, u = 2^-24, m = the row's max, e_j = exp(x_j - m), S = sum of e_j >= 1 (the max's
// own term is 1). The online sum d holds each term as a chain: its own expf(x_j - m_then) (4u for
// expf's 2 ulp, and x - m rounded gives u |x - m_then|), then, each time its partial sum absorbs
// another value or another partial sum, at most one rescale expf(m_old - m_new) (4u), one product
// and one addition (u each): 6u per step, and a term sees at most cols - 1 steps (each brings in at
// least one other element). The rounded differences m_old - m_new telescope to u |x_j - m| in all.
// So each term is within (6 (cols - 1) + 4 + |x_j - m|) u of e_j, and d within
// (6 cols + 4) u S + cols u / e (t e^-t <= 1/e, S >= 1) of S: (6.37 cols + 4) u relative.
// Each output adds its own expf and rounded x - m in pass 2 (4 + |x - m|) u, 1 / d and the product
// 2u, and the double reference rounded to float for the comparison 1u. First order that is
// (11 + |x - m| + 6.37 cols) u; we allow (12 + |x - m| + 7 cols) u, the rest covering the products
// of these small terms. Outputs that underflow to denormals (x - m below about -87) err by their ulp,
// 2^-149, an absolute amount: 2^-140 covers it and is still far below the smallest normal float. A
// -inf entry must give exactly 0.
// The row sum: pass 2's numerators are not the terms that built d, so the errors do not cancel:
// sum_i y_i is within (4 + cols / e) u + (6.37 cols + 4) u + 2u of 1; we allow (12 + 7 cols) u (as
// Higham's gamma, k u / (1 - k u)). A missing max gives inf / inf = NaN at x = 1000; a missing
// rescale, a missing -inf guard (NaN) or a wrong normalizer (a thread's or a warp's pair) misses by
// far more.
constexpr p2::SoftmaxBound kBound{12.0, 7.0, 12.0, 7.0,
                                  "divide by the block's merged d (every thread's, after block_merge), and "
                                  "subtract the merged m, not a thread's own."};

}  // namespace

TEST_CASE("softmax_online matches the double reference for rows of every length", "[p2][2.08][gpu]") {
  const p2::RowShape shape = GENERATE(Catch::Generators::from_range(p2::softmax_all_shapes()));
  p2::check_softmax("softmax_online", softmax_online, shape, p2::SoftmaxData::Uniform, kBound);
}

TEST_CASE("softmax_online does not overflow when 1000 and -1000 share a row", "[p2][2.08][gpu]") {
  const p2::RowShape shape = GENERATE(Catch::Generators::from_range(p2::softmax_special_shapes()));
  p2::check_softmax("softmax_online", softmax_online, shape, p2::SoftmaxData::Huge, kBound);
}

TEST_CASE("softmax_online gives 0 for -inf entries and still normalizes the row", "[p2][2.08][gpu]") {
  const p2::RowShape shape = GENERATE(Catch::Generators::from_range(p2::softmax_special_shapes()));
  p2::check_softmax("softmax_online", softmax_online, shape, p2::SoftmaxData::NegInf, kBound);
}
