// SPDX-License-Identifier: MIT
// Graded tests for 2.09 softmax_single_read: every row length from 1 to 32768 (warp per row, block
// per row, the fallback), each register array with float4 and with scalar loads (most of them on a
// row one column or float4 longer than the next smaller array holds), cols not a multiple of 4, row
// counts that fill no whole block, 1000 and -1000 mixed, -inf entries (on both fallbacks too), rows
// that must sum to 1, poisoned outputs and guard canaries.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/reference.h"

namespace {

struct Shape {
  int rows;
  int cols;
};

// Row r's kind is r % 5, so every shape with 5 rows or more meets each kind:
//   0: uniform in [-1, 1]: every term weighs about 1/cols of the sum, a lost element shows.
//   1: the same with a spike of 12 (the row max, e^13 times any other term) at the last column, the
//      first column or a random one: a kernel that misses it in the max or the sum is far off.
//   2: 1000 and -1000 mixed (each +-1000 plus noise in [-1, 1]): without subtracting the max,
//      exp(1000) = inf and the row becomes NaN.
//   3: every value near -1000: without the max, exp(-1000) = 0 and the row is 0/0 = NaN; a max whose
//      identity is 0 instead of -inf fails the same way.
//   4: -inf entries: the whole first half of the row, then a third of the rest; the last column is
//      always finite. Whole threads and warps see only -inf, which an online merge must survive.
std::vector<float> softmax_inputs(int rows, int cols, std::uint64_t seed) {
  wb::Rng rng(seed);
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> in(static_cast<std::size_t>(rows) * cols);
  for (int r = 0; r < rows; ++r) {
    float* row = &in[static_cast<std::size_t>(r) * cols];
    const int kind = r % 5;
    for (int c = 0; c < cols; ++c) {
      const float noise = rng.uniform(-1.0f, 1.0f);
      switch (kind) {
        case 2:
          row[c] = ((rng.next_u64() & 1) ? 1000.0f : -1000.0f) + noise;
          break;
        case 3:
          row[c] = -1000.0f + noise;
          break;
        case 4:
          row[c] = (c < cols / 2 || rng.integer(0, 2) == 0) && c != cols - 1 ? -inf : noise;
          break;
        default:
          row[c] = noise;
          break;
      }
    }
    if (kind == 1) {
      const int where = (r / 5) % 3;
      row[where == 0 ? cols - 1 : where == 1 ? 0 : static_cast<int>(rng.integer(0, cols - 1))] = 12.0f;
    }
  }
  return in;
}

// The error bound of one output, relative to it. u = 2^-24, t = x - max (<= 0), s = the row's sum.
//   x - max rounds by u|t|: an error u|t| in the exponent, so a relative error u|t| in exp(t).
//   expf errs by <= 2 ulp = 4u (CUDA Programming Guide, maximum ulp error; no fast math).
//   s: the float sum of cols terms errs by <= (cols - 1) u s in any order (Higham 4.2), plus each
//   term's own error (4u + u|t|) e^t, where sum of e^t |t| <= cols/e <= cols/e * s since s >= 1.
//   An online fallback rescales partial sums: each rescale multiplies by an expf (4u) and rounds (u);
//   the exponent errors of a chain of rescales add up to u|t| again (the maxima telescope). With at
//   least a warp per row a partial sum is rescaled at most cols/32 + 16 times (its elements, then
//   the merge levels).
//   1/s (or the division) and the product round by u each; the reference, rounded to float, by u/2.
// 1% on top covers the second-order terms. 2^-125 absolute covers outputs that underflow to
// subnormals or zero (exp(-2000) is 0 in any precision). A -inf input must give exactly 0.
double relative_bound(double t, int cols) {
  const double n = cols;
  const double sum_error = (n - 1) + 4 + n / std::exp(1.0) + 5 * (n / 32 + 16);
  return 1.01 * wb::kFloatEpsilon * (std::fabs(t) + 4 + 2 + 1 + sum_error);
}
constexpr double kAbsoluteBound = 0x1p-125;

void check_softmax(Shape shape, std::uint64_t seed) {
  const int rows = shape.rows, cols = shape.cols;
  INFO("softmax_single_read with rows x cols = " << rows << " x " << cols << ", seed " << seed
                                                 << " (replay with WB_SEED=" << seed << ")");
  const std::vector<float> in = softmax_inputs(rows, cols, seed);
  const std::vector<double> reference = p2::softmax_reference(in, rows, cols);
  const std::vector<float> expected(reference.begin(), reference.end());
  // The row max, for each element's |x - max|.
  std::vector<double> row_max(rows, -std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < in.size(); ++i) row_max[i / cols] = std::max(row_max[i / cols], double(in[i]));
  auto tolerance_of = [&](std::size_t i) {
    const double t = double(in[i]) - row_max[i / cols];
    if (std::isinf(t)) return wb::Tolerance{0, 0};  // exp(-inf) = 0 exactly
    return wb::Tolerance{kAbsoluteBound, relative_bound(t, cols)};
  };

  wb::GuardedDeviceBuffer<float> din(in.size());  // guarded input: NaN canaries poison a read past the end
  din.upload(in);
  wb::GuardedDeviceBuffer<float> dout(in.size());  // poisoned inside, canaries around
  WB_RUN_LAUNCHER(softmax_single_read(din.data(), dout.data(), rows, cols, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), "softmax_single_read");
  const std::vector<float> got = dout.download();
  WB_REQUIRE_OK(wb::compare_each(expected.data(), got.data(), got.size(), tolerance_of, static_cast<std::size_t>(cols)),
                "softmax_single_read");

  // Each row sums to 1: within the sum of its elements' bounds (summed here in double).
  std::vector<float> ones(rows, 1.0f);
  std::vector<float> sums(rows, 0.0f);
  std::vector<double> sum_bounds(rows, 0.0);
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int c = 0; c < cols; ++c) {
      const std::size_t i = static_cast<std::size_t>(r) * cols + c;
      sum += got[i];
      const wb::Tolerance tol = tolerance_of(i);
      sum_bounds[r] += tol.abs + tol.rel * reference[i];
    }
    sums[r] = static_cast<float>(sum);
    sum_bounds[r] += wb::kFloatEpsilon;  // the double sum rounded to float for the comparison
  }
  WB_REQUIRE_OK(wb::compare_each(ones.data(), sums.data(), ones.size(),
                                 [&](std::size_t r) {
                                   return wb::Tolerance{sum_bounds[r], 0};
                                 }),
                "softmax_single_read row sums");
}

std::vector<Shape> shapes(std::initializer_list<Shape> all, Shape large, Shape large_under_sanitizer) {
  std::vector<Shape> out(all);
  out.push_back(wb::test::sanitize_mode() ? large_under_sanitizer : large);
  return out;
}

}  // namespace

TEST_CASE(
    "softmax_single_read matches the double reference for every row length, short, long and past the fast "
    "path",
    "[p2][2.09][gpu]") {
  // 1, 31, 32, 33 and 1000 columns: a warp per row in the reference solution, rows not a multiple
  // of 8; 4096: a block per row; 10000 and 32768: too long for registers (both multiples of 4: 8193 is
  // the only graded row length that takes the scalar fallback, on 5 rows so that the -inf kind meets
  // it); 129, 2050, 8192, 8193: the edges of the instantiations; 16384 x 4096: the lesson's shape.
  const Shape shape = GENERATE(Catch::Generators::from_range(shapes({{1, 1},
                                                                     {3, 31},
                                                                     {37, 32},
                                                                     {5, 33},
                                                                     {7, 1000},
                                                                     {37, 4096},
                                                                     {3, 10000},
                                                                     {2, 32768},
                                                                     {1000, 1000},
                                                                     {1001, 4096},
                                                                     {17, 129},
                                                                     {6, 2050},
                                                                     {5, 8192},
                                                                     {5, 8193}},
                                                                    {16384, 4096}, {129, 4096})));
  check_softmax(shape, wb::test::seed());
}

TEST_CASE("softmax_single_read keeps the last element of rows one column or float4 past a smaller register array",
          "[p2][2.09][gpu]") {
  // The reference picks its register array by row length (a warp per row up to 128, 256, 512 and 1024
  // columns, a block per row up to 2048, 4096 and 8192) and its loads by cols % 4. Each row here is
  // one column (or one float4) longer than the next smaller array holds: the row's last element falls
  // to thread 0 alone, and a kernel that keeps or writes too few values per thread for this array, or
  // a launcher that picks the smaller one, loses it. 5 rows or more: every row kind, -inf rows too.
  const Shape shape = GENERATE(Shape{9, 132},    // a warp per row, 2 float4s a lane: float4 32 in lane 0
                               Shape{5, 257},    // a warp per row, 16 scalars a lane: column 256 in lane 0
                               Shape{6, 260},    // a warp per row, 4 float4s a lane: float4 64 in lane 0
                               Shape{7, 513},    // a warp per row, 32 scalars a lane: column 512 in lane 0
                               Shape{5, 1025},   // 256 threads a row, 8 scalars each: column 1024 in thread 0
                               Shape{6, 1028},   // 256 threads a row, 2 float4s each: float4 256 in thread 0
                               Shape{5, 4097});  // 512 threads a row, 16 scalars each: column 4096 in thread 0
  check_softmax(shape, wb::test::seed() + 2);
}

TEST_CASE("softmax_single_read stays finite with 1000 and -1000 mixed, rows near -1000 and -inf entries",
          "[p2][2.09][gpu]") {
  // Ten rows each: every kind of row twice, at every row length the graded list names.
  const int cols = GENERATE(1, 31, 32, 33, 1000, 4096, 4099, 10000, 32768);
  check_softmax(Shape{10, cols}, wb::test::seed() + 1);
}
