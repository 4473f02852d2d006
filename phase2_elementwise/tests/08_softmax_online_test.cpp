// SPDX-License-Identifier: MIT
// Graded tests for 2.08 softmax_online: row lengths around the warp and the float4 pack (1, 31,
// 32, 33), long rows (1000, 4096, 10000), row counts that are no multiple of anything, one large
// matrix; rows mixing 1000 and -1000 (overflow without the max); rows with -inf entries; each row
// summing to 1. Inputs and outputs sit in guarded buffers; the reference is the double one.
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/reference.h"

namespace {

using Launcher = void (*)(const float*, float*, int, int, cudaStream_t);

struct Shape {
  int rows;
  int cols;
};

enum class Data { Uniform, Huge, NegInf };

const char* data_name(Data kind) {
  switch (kind) {
    case Data::Uniform:
      return "uniform values in [-8, 8)";
    case Data::Huge:
      return "values near 1000 and -1000 mixed";
    default:
      return "values in [-8, 8) with -inf entries";
  }
}

// Rows x cols inputs of one kind. Huge: even rows mix 1000 + [-1, 1) and -1000 + [-1, 1) at random,
// odd rows hold -1000s then 1000s (a running max jumps by 2000 halfway). NegInf: a third of the
// entries -inf at random, and rows that are -inf except their last (r % 3 == 1) or first
// (r % 3 == 2) entry; never a whole row.
std::vector<float> make_input(Data kind, int rows, int cols, std::uint64_t seed) {
  std::vector<float> in = wb::random_floats(std::size_t(rows) * cols, seed, -8.0f, 8.0f);
  wb::Rng rng(seed + 1);
  for (int r = 0; r < rows; ++r) {
    float* row = &in[std::size_t(r) * cols];
    for (int c = 0; c < cols; ++c) {
      if (kind == Data::Huge) {
        const bool high = r % 2 == 0 ? (rng.next_u64() & 1) != 0 : 2 * c >= cols;
        row[c] = (high ? 1000.0f : -1000.0f) + rng.uniform(-1.0f, 1.0f);
      } else if (kind == Data::NegInf) {
        const bool neg_inf = r % 3 == 0 ? rng.integer(0, 2) == 0 : r % 3 == 1 ? c != cols - 1 : c != 0;
        if (neg_inf) row[c] = -INFINITY;
      }
    }
    if (kind == Data::NegInf && r % 3 == 0 && std::isinf(row[0])) row[0] = rng.uniform(-8.0f, 8.0f);
  }
  return in;
}

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
double abs_term() { return std::ldexp(1.0, -140); }

wb::Tolerance element_tolerance(float x, float row_max, int cols) {
  if (std::isinf(x)) return wb::Tolerance{0.0, 0.0};  // exp(-inf) is exactly 0
  const double u = wb::kFloatEpsilon;
  return wb::Tolerance{abs_term(), (12.0 + std::fabs(double(x) - row_max) + 7.0 * cols) * u};
}

double row_sum_tolerance(int cols) {
  const double ku = (12.0 + 7.0 * cols) * wb::kFloatEpsilon;
  return ku / (1.0 - ku) + cols * abs_term();
}

void check_softmax(const char* name, Launcher launch, Shape shape, Data kind) {
  const std::uint64_t seed = wb::test::seed();
  const int rows = shape.rows, cols = shape.cols;
  INFO(name << " on " << rows << " x " << cols << ", " << data_name(kind) << ", seed " << seed
            << " (replay with WB_SEED=" << seed << ")");
  const std::vector<float> in = make_input(kind, rows, cols, seed);
  const std::vector<double> reference = softmax_reference(in, rows, cols);
  const std::vector<float> expected(reference.begin(), reference.end());
  std::vector<float> row_max(rows, -INFINITY);
  for (std::size_t i = 0; i < in.size(); ++i) row_max[i / cols] = std::fmax(row_max[i / cols], in[i]);

  wb::GuardedDeviceBuffer<float> din(in.size());  // NaN canaries around the input catch reads past the end
  din.upload(in);
  wb::GuardedDeviceBuffer<float> dout(in.size());  // poisoned inside, canaries around
  WB_RUN_LAUNCHER(launch(din.data(), dout.data(), rows, cols, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), name);
  const std::vector<float> got = dout.download();
  auto tolerance_of = [&](std::size_t i) { return element_tolerance(in[i], row_max[i / cols], cols); };
  WB_REQUIRE_OK(wb::compare_each(expected.data(), got.data(), got.size(), tolerance_of, std::size_t(cols)), name);

  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += got[std::size_t(r) * cols + c];
    if (!(std::fabs(sum - 1.0) <= row_sum_tolerance(cols))) {
      std::ostringstream message;
      message << name << ": row " << r << " sums to " << sum << ", not 1 within " << row_sum_tolerance(cols)
              << ". Every element is close, but the row is not normalized: divide by the block's merged d "
                 "(every thread's, after block_merge), and subtract the merged m, not a thread's own.";
      FAIL(message.str());
    }
  }
}

// Row lengths: 1, a warp minus one, a warp (8 float4s), a warp plus one (scalar loads), then long
// rows; row counts 1, 3, 5, 7, 37, 1000 (no multiple of a block or of 8). The large case
// shrinks under the sanitizer.
std::vector<Shape> all_shapes() {
  std::vector<Shape> shapes = {{1, 1}, {3, 31}, {37, 32}, {5, 33}, {7, 1000}, {37, 4096}, {3, 10000}, {1000, 1000}};
  shapes.push_back(wb::test::sanitize_mode() ? Shape{64, 4096} : Shape{16384, 4096});
  return shapes;
}

std::vector<Shape> special_shapes() { return {{1, 1}, {3, 31}, {5, 33}, {37, 32}, {7, 1000}, {37, 4096}, {3, 10000}}; }

}  // namespace

TEST_CASE("softmax_online matches the double reference for rows of every length", "[p2][2.08][gpu]") {
  const Shape shape = GENERATE(Catch::Generators::from_range(all_shapes()));
  check_softmax("softmax_online", softmax_online, shape, Data::Uniform);
}

TEST_CASE("softmax_online does not overflow when 1000 and -1000 share a row", "[p2][2.08][gpu]") {
  const Shape shape = GENERATE(Catch::Generators::from_range(special_shapes()));
  check_softmax("softmax_online", softmax_online, shape, Data::Huge);
}

TEST_CASE("softmax_online gives 0 for -inf entries and still normalizes the row", "[p2][2.08][gpu]") {
  const Shape shape = GENERATE(Catch::Generators::from_range(special_shapes()));
  check_softmax("softmax_online", softmax_online, shape, Data::NegInf);
}
