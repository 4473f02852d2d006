// SPDX-License-Identifier: MIT
// Row-wise graders shared by 2.05/2.06 (RMSNorm), 2.07/2.08 (softmax) and 2.10 (LayerNorm); see
// rowwise_grading.h.
#include "phase2_elementwise/tests/rowwise_grading.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/buffer.h"
#include "common/data.h"
#include "common/testing.h"
#include "phase2_elementwise/harness/reference.h"

namespace p2 {

// ---- RMSNorm ------------------------------------------------------------------------------------

// Row r of the input: random in [-1, 1]; the middle row (when rows > 1) all zeros, which must give
// zeros (rsqrt(0 + eps) is finite; without eps it is inf and 0 * inf = NaN); every third other row
// scaled by 1e-3, so its mean square (~3e-7) sits below eps and a missing or hard-wired eps is off
// by a factor 2 to 6 there.
std::vector<float> rmsnorm_input(int rows, int cols, std::uint64_t seed) {
  std::vector<float> in = wb::random_floats(static_cast<std::size_t>(rows) * cols, seed);
  for (int r = 0; r < rows; ++r) {
    float* row = &in[static_cast<std::size_t>(r) * cols];
    const bool zero = rows > 1 && r == rows / 2;
    const bool tiny = r % 3 == 1;
    for (int c = 0; c < cols; ++c) row[c] = zero ? 0.0f : tiny ? row[c] * 1e-3f : row[c];
  }
  return in;
}

// Row lengths 1, 31, 32, 33 (inside one warp, around it: lanes with nothing to sum must still
// shuffle), 1000 and 4096 (float4), 10000 (float4, several items per thread), 20000 (5000 float4s:
// more than one step of 4 per thread with 1024 threads, the last one partial); 129 and 4097 take the
// scalar path (cols % 4 = 1) past one warp: 129 at 4 floats a thread needs 33 threads, two warps in
// 2.05's reference (4 or 5 floats a lane in 2.06's); 4097 is more than one step of 4 floats per
// thread with 1024 threads, the second step holding column 4096 alone; row counts 1, 3, 5, 7 and 37
// leave threads or warps of the last block past the last row (they must write nothing); 1000 x 1 is
// many full blocks of one-float rows.
std::vector<RowShape> rmsnorm_shapes() {
  return {{1, 1},     {3, 31},    {37, 32},   {5, 33},      {1000, 1}, {7, 1000},
          {37, 4096}, {3, 10000}, {3, 20000}, {1000, 1000}, {5, 129},  {3, 4097}};
}

void check_rmsnorm(const char* name, RmsnormLauncher launch, const std::vector<float>& in, int rows, int cols,
                   float eps, std::uint64_t seed) {
  INFO(name << " on " << rows << " x " << cols << " with eps = " << eps << ", seed " << seed
            << " (replay with WB_SEED=" << seed << ")");
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  const std::vector<float> weight = wb::random_floats(static_cast<std::size_t>(cols), seed + 1, -2.0f, 2.0f);
  const std::vector<double> exact = p2::rmsnorm_reference(in, weight, rows, cols, eps);
  const std::vector<float> expected(exact.begin(), exact.end());

  // Inputs in guarded buffers too: a read past the end of a row meets a NaN canary and shows.
  wb::GuardedDeviceBuffer<float> din(count), dweight(static_cast<std::size_t>(cols));
  din.upload(in);
  dweight.upload(weight);
  wb::GuardedDeviceBuffer<float> dout(count);  // poisoned inside, canaries around
  WB_RUN_LAUNCHER(launch(din.data(), dweight.data(), dout.data(), rows, cols, eps, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), name);
  WB_REQUIRE_OK(wb::compare(expected, dout.download(), p2::rmsnorm_tolerance(cols), static_cast<std::size_t>(cols)),
                name);
}

// ---- softmax --------------------------------------------------------------------------------------
namespace {

const char* data_name(SoftmaxData kind) {
  switch (kind) {
    case SoftmaxData::Uniform:
      return "uniform values in [-8, 8)";
    case SoftmaxData::Huge:
      return "values near 1000 and -1000 mixed";
    default:
      return "values in [-8, 8) with -inf entries";
  }
}

// Outputs that underflow to denormals (x - m below about -87) err by their ulp, 2^-149, an absolute
// amount: 2^-140 covers it and is still far below the smallest normal float.
double abs_term() {
  return std::ldexp(1.0, -140);
}

wb::Tolerance element_tolerance(const SoftmaxBound& bound, float x, float row_max, int cols) {
  if (std::isinf(x)) return wb::Tolerance{0.0, 0.0};  // exp(-inf) is exactly 0
  const double units = bound.element_base + std::fabs(double(x) - row_max) + bound.element_per_col * cols;
  return wb::Tolerance{abs_term(), units * wb::kFloatEpsilon};
}

// As Higham's gamma, k u / (1 - k u), which also covers the second-order terms.
double row_sum_tolerance(const SoftmaxBound& bound, int cols) {
  const double ku = (bound.row_sum_base + bound.row_sum_per_col * cols) * wb::kFloatEpsilon;
  return ku / (1.0 - ku) + cols * abs_term();
}

}  // namespace

// Rows x cols inputs of one kind. Huge: even rows mix 1000 + [-1, 1) and -1000 + [-1, 1) at random,
// odd rows hold -1000s then 1000s (a running max jumps by 2000 halfway). NegInf: a third of the
// entries -inf at random, and rows that are -inf except their last (r % 3 == 1) or first
// (r % 3 == 2) entry; never a whole row.
std::vector<float> softmax_input(SoftmaxData kind, int rows, int cols, std::uint64_t seed) {
  std::vector<float> in = wb::random_floats(std::size_t(rows) * cols, seed, -8.0f, 8.0f);
  wb::Rng rng(seed + 1);
  for (int r = 0; r < rows; ++r) {
    float* row = &in[std::size_t(r) * cols];
    for (int c = 0; c < cols; ++c) {
      if (kind == SoftmaxData::Huge) {
        const bool high = r % 2 == 0 ? (rng.next_u64() & 1) != 0 : 2 * c >= cols;
        row[c] = (high ? 1000.0f : -1000.0f) + rng.uniform(-1.0f, 1.0f);
      } else if (kind == SoftmaxData::NegInf) {
        const bool neg_inf = r % 3 == 0 ? rng.integer(0, 2) == 0 : r % 3 == 1 ? c != cols - 1 : c != 0;
        if (neg_inf) row[c] = -INFINITY;
      }
    }
    if (kind == SoftmaxData::NegInf && r % 3 == 0 && std::isinf(row[0])) row[0] = rng.uniform(-8.0f, 8.0f);
  }
  return in;
}

// Row lengths: 1, a warp minus one, a warp (8 float4s), a warp plus one (scalar loads), then long
// rows; row counts 1, 3, 5, 7, 37, 1000 (no multiple of a block or of 8). The large case
// shrinks under the sanitizer. 257 and 1025 are scalar rows (not a multiple of 4) longer than a
// block of 256 threads: 257 leaves thread 0 a second float; 1025 gives every thread 4 floats and
// thread 0 a fifth, more than one batch of 4 loads (or 2 while writing) in 2.07's reference.
std::vector<RowShape> softmax_all_shapes() {
  std::vector<RowShape> shapes = {{1, 1},     {3, 31},    {37, 32},     {5, 33},  {7, 1000},
                                  {37, 4096}, {3, 10000}, {1000, 1000}, {5, 257}, {3, 1025}};
  shapes.push_back(wb::test::sanitize_mode() ? RowShape{64, 4096} : RowShape{16384, 4096});
  return shapes;
}

// 1025: the scalar walk with several floats per thread meets the 1000 and -1000 and the -inf rows.
std::vector<RowShape> softmax_special_shapes() {
  return {{1, 1}, {3, 31}, {5, 33}, {37, 32}, {7, 1000}, {37, 4096}, {3, 10000}, {3, 1025}};
}

void check_softmax(const char* name, SoftmaxLauncher launch, RowShape shape, SoftmaxData kind,
                   const SoftmaxBound& bound) {
  const std::uint64_t seed = wb::test::seed();
  const int rows = shape.rows, cols = shape.cols;
  INFO(name << " on " << rows << " x " << cols << ", " << data_name(kind) << ", seed " << seed
            << " (replay with WB_SEED=" << seed << ")");
  const std::vector<float> in = softmax_input(kind, rows, cols, seed);
  const std::vector<double> reference = p2::softmax_reference(in, rows, cols);
  const std::vector<float> expected(reference.begin(), reference.end());
  std::vector<float> row_max(rows, -INFINITY);
  for (std::size_t i = 0; i < in.size(); ++i) row_max[i / cols] = std::fmax(row_max[i / cols], in[i]);

  wb::GuardedDeviceBuffer<float> din(in.size());  // NaN canaries around the input catch reads past the end
  din.upload(in);
  wb::GuardedDeviceBuffer<float> dout(in.size());  // poisoned inside, canaries around
  WB_RUN_LAUNCHER(launch(din.data(), dout.data(), rows, cols, nullptr));
  WB_REQUIRE_OK(dout.check_guards(), name);
  const std::vector<float> got = dout.download();
  auto tolerance_of = [&](std::size_t i) { return element_tolerance(bound, in[i], row_max[i / cols], cols); };
  WB_REQUIRE_OK(wb::compare_each(expected.data(), got.data(), got.size(), tolerance_of, std::size_t(cols)), name);

  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int c = 0; c < cols; ++c) sum += got[std::size_t(r) * cols + c];
    if (!(std::fabs(sum - 1.0) <= row_sum_tolerance(bound, cols))) {
      std::ostringstream message;
      message << name << ": row " << r << " sums to " << sum << ", not 1 within " << row_sum_tolerance(bound, cols)
              << ". Every element is close, but the row is not normalized: " << bound.row_sum_advice;
      FAIL(message.str());
    }
  }
}

// ---- LayerNorm ------------------------------------------------------------------------------------
namespace {

constexpr int kLayernormKinds = 5;
// Constant rows: values whose sums stay exact in float at any row length the tests use, so every
// stable method gets mean = the value exactly (harness/reference.cpp).
constexpr float kLayernormConstants[] = {0.75f, -3.0f, 1024.0f, 0.0f};

// A guard of kDefaultGuard + k floats puts data() k floats past a 256-byte boundary, canaries still
// right before element 0 and after the last element (as 2.03's test).
std::size_t layernorm_guard(std::size_t misalign) {
  return wb::GuardedDeviceBuffer<float>::kDefaultGuard + misalign;
}

std::size_t floats_past_256(const float* p) {
  return (reinterpret_cast<std::uintptr_t>(p) % 256) / 4;
}

// The rows where E[x^2] - E[x]^2 cancels: a mean over 100 times the standard deviation.
bool large_mean(const p2::LayernormReference& ref, int r) {
  return ref.var[r] > 0 && std::fabs(ref.mean[r]) > 100 * std::sqrt(ref.var[r]);
}

// What the wrong rows have in common, as sentences the learner can act on ("" when nothing stands out).
std::string layernorm_diagnosis(const p2::LayernormReference& ref, const std::vector<float>& x,
                                const std::vector<float>& gamma, const std::vector<float>& beta,
                                const std::vector<char>& bad_row, const std::vector<float>& got_y,
                                const std::vector<float>& got_rstd, const std::vector<std::size_t>& bad_y, int cols,
                                float eps) {
  const int rows = static_cast<int>(bad_row.size());
  std::ostringstream notes;
  // Only the rows with a mean (and among them one near 1e4), or only the constant rows, are wrong?
  bool any = false, large = false, only_offset = true, only_constant = true;
  for (int r = 0; r < rows; ++r) {
    if (!bad_row[r]) continue;
    any = true;
    large = large || large_mean(ref, r);
    only_offset = only_offset && !ref.bound[r].constant && std::fabs(ref.mean[r]) > 2 * std::sqrt(ref.var[r]);
    only_constant = only_constant && ref.bound[r].constant;
  }
  if (large && only_offset)
    notes << "Only rows with a mean well away from 0 are wrong, among them those near 1e4 (noise of std ~1): "
             "E[x^2] - E[x]^2 in float cancels there (two numbers near 1e8, each rounded by up to 4, for a variance "
             "near 1; a negative result gives NaN). Combine (count, mean, M2) partials with Welford's update and "
             "Chan's formula, or sum x - K with a shift K taken from the row.\n";
  if (any && only_constant)
    notes << "A constant row is wrong: it must give mean = its value, y = beta exactly and rstd = 1 / sqrt(eps). "
             "Subtract the mean before scaling (x - mean is exactly 0 there), and take the mean as a sum divided by "
             "the count, or by Welford / Chan updates (sum * (1 / n) rounds).\n";
  // Divided by cols - 1: rstd is then 1 / sqrt(var cols / (cols - 1) + eps), clearly apart from the
  // right one where var is well above eps.
  for (int r = 0; r < rows && cols > 1; ++r) {
    if (!bad_row[r] || ref.bound[r].constant || !(ref.var[r] > 10.0 * eps)) continue;
    const double unbiased = 1.0 / std::sqrt(ref.var[r] * cols / (cols - 1) + double(eps));
    const double got = got_rstd[r];
    if (std::fabs(got - unbiased) <= 0.25 * std::fabs(unbiased - ref.rstd[r]))
      notes << "rstd[" << r << "] = " << got << " is 1 / sqrt(M2 / (cols - 1) + eps): LayerNorm uses the population "
            << "variance, M2 / cols, as torch.nn.functional.layer_norm does (cols - 1 is the sample variance).\n";
    break;
  }
  // Scale and shift exchanged: y = (x - mean) rstd beta + gamma.
  for (const std::size_t i : bad_y) {
    const int r = static_cast<int>(i / cols), c = static_cast<int>(i % cols);
    if (ref.bound[r].constant || !std::isfinite(got_y[i])) continue;
    const double swapped = (x[i] - ref.mean[r]) * ref.rstd[r] * beta[c] + gamma[c];
    if (std::fabs(got_y[i] - swapped) <= 1e-4 * (std::fabs(swapped) + 1))
      notes << "y"
            << "[" << r << ", " << c << "] = " << got_y[i] << " is (x - mean) * rstd * beta + gamma: gamma (the "
            << "scale) and beta (the shift) are swapped.\n";
    break;
  }
  return notes.str();
}

}  // namespace

const char* layernorm_row_kind(int row) {
  switch (row % kLayernormKinds) {
    case 0:
      return "noise in [-1, 1]";
    case 1:
      return "3 + noise in [-1, 1]";
    case 2:
      return "1e4 + noise in [-2, 2]";
    case 3:
      return "noise of 1e-3 (variance below eps)";
    default:
      return "constant";
  }
}

std::vector<float> layernorm_input(int rows, int cols, std::uint64_t seed) {
  std::vector<float> x = wb::random_floats(static_cast<std::size_t>(rows) * cols, seed);
  for (int r = 0; r < rows; ++r) {
    float* row = &x[static_cast<std::size_t>(r) * cols];
    const int kind = r % kLayernormKinds;
    const float constant = kLayernormConstants[(r / kLayernormKinds) % 4];
    for (int c = 0; c < cols; ++c) {
      const float v = row[c];
      row[c] = kind == 1 ? 3.0f + v : kind == 2 ? 1e4f + 2.0f * v : kind == 3 ? 1e-3f * v : kind == 4 ? constant : v;
    }
  }
  return x;
}

// Row counts 0 (nothing to launch), 1, 3 (the large-mean row is row 2) and 1000 (every kind, rows of no
// block multiple); row lengths 1-3, around a warp (31-33: lanes without data), around 256 (a warp's
// 2 float4s, a block's step), 1000 (no multiple of 4: rows stop being 16-byte aligned), 1024, 4097
// and 32768 (a block per row, the longest bench row).
std::vector<LayernormCase> layernorm_shapes() {
  std::vector<LayernormCase> shapes;
  for (const int rows : {0, 1, 3, 1000}) {
    for (const int cols : {1, 2, 3, 31, 32, 33, 255, 256, 257, 1000, 1024, 4097, 32768}) {
      if (wb::test::sanitize_mode() && static_cast<std::size_t>(rows) * cols > (std::size_t(1) << 18)) continue;
      shapes.push_back(LayernormCase{rows, cols});
    }
  }
  return shapes;
}

std::string grade_layernorm(const char* name, LayernormLauncher launch, const LayernormCase& shape,
                            std::uint64_t seed) {
  const int rows = shape.rows, cols = shape.cols;
  const std::size_t count = static_cast<std::size_t>(rows) * cols;
  const std::vector<float> x = layernorm_input(rows, cols, seed);
  const std::vector<float> gamma = wb::random_floats(static_cast<std::size_t>(cols), seed + 1, -2.0f, 2.0f);
  const std::vector<float> beta = wb::random_floats(static_cast<std::size_t>(cols), seed + 2, -1.0f, 1.0f);
  const p2::LayernormReference ref = p2::layernorm_reference(x, gamma, beta, rows, cols, shape.eps);

  // Inputs between NaN canaries too (a read past a row's end meets one), outputs poisoned inside.
  const std::size_t guard = layernorm_guard(shape.misalign);
  wb::GuardedDeviceBuffer<float> dx(count, guard), dgamma(static_cast<std::size_t>(cols), guard),
      dbeta(static_cast<std::size_t>(cols), guard), dy(count, guard);
  wb::GuardedDeviceBuffer<float> dmean(static_cast<std::size_t>(rows)), drstd(static_cast<std::size_t>(rows));
  dx.upload(x);
  dgamma.upload(gamma);
  dbeta.upload(beta);
  for (const float* p : std::initializer_list<const float*>{dx.data(), dgamma.data(), dbeta.data(), dy.data()})
    if (count > 0 && floats_past_256(p) != shape.misalign) return "the test's buffers are not misaligned as intended";

  std::ostringstream call;
  call << name << "(x, gamma, beta, y, mean, rstd, rows = " << rows << ", cols = " << cols << ", eps = " << shape.eps
       << ")";
  const std::string failed = wb::test::launch_and_explain(call.str(), [&] {
    launch(dx.data(), dgamma.data(), dbeta.data(), dy.data(), dmean.data(), drstd.data(), rows, cols, shape.eps,
           nullptr);
  });
  if (!failed.empty()) return failed;
  std::string verdict;
  for (const auto& [what, guards] :
       {std::pair<std::string, wb::GuardReport>{std::string(name) + " y", dy.check_guards()},
        std::pair<std::string, wb::GuardReport>{std::string(name) + " mean", dmean.check_guards()},
        std::pair<std::string, wb::GuardReport>{std::string(name) + " rstd", drstd.check_guards()}})
    if (!guards.ok()) verdict += guards.describe(what);
  if (!verdict.empty()) return verdict;

  return judge_layernorm(name, x, gamma, beta, ref, dy.download(), dmean.download(), drstd.download(), cols, shape.eps);
}

std::string judge_layernorm(const char* name, const std::vector<float>& x, const std::vector<float>& gamma,
                            const std::vector<float>& beta, const p2::LayernormReference& ref,
                            const std::vector<float>& got_y, const std::vector<float>& got_mean,
                            const std::vector<float>& got_rstd, int cols, float eps) {
  const int rows = static_cast<int>(ref.mean.size());
  const std::size_t count = x.size();
  const std::string y_name = std::string(name) + " y";
  const std::string mean_name = std::string(name) + " mean";
  const std::string rstd_name = std::string(name) + " rstd";
  std::string verdict;
  const std::vector<float> want_y(ref.y.begin(), ref.y.end()), want_mean(ref.mean.begin(), ref.mean.end()),
      want_rstd(ref.rstd.begin(), ref.rstd.end());
  auto y_tolerance = [&](std::size_t i) {
    const std::size_t r = i / cols;
    return p2::layernorm_y_tolerance(ref.bound[r], x[i] - ref.mean[r], ref.rstd[r], gamma[i % cols], ref.y[i]);
  };
  auto mean_tolerance = [&](std::size_t r) { return p2::layernorm_mean_tolerance(ref.bound[r], ref.mean[r]); };
  auto rstd_tolerance = [&](std::size_t r) { return p2::layernorm_rstd_tolerance(ref.bound[r], ref.rstd[r]); };
  const wb::CompareReport y_report =
      wb::compare_each(want_y.data(), got_y.data(), count, y_tolerance, static_cast<std::size_t>(cols));
  const wb::CompareReport mean_report =
      wb::compare_each(want_mean.data(), got_mean.data(), got_mean.size(), mean_tolerance);
  const wb::CompareReport rstd_report =
      wb::compare_each(want_rstd.data(), got_rstd.data(), got_rstd.size(), rstd_tolerance);
  if (y_report.ok() && mean_report.ok() && rstd_report.ok()) return "";

  if (!y_report.ok()) verdict += y_report.describe(y_name + " (rows x cols)");
  if (!mean_report.ok()) verdict += mean_report.describe(mean_name + " (one per row)");
  if (!rstd_report.ok()) verdict += rstd_report.describe(rstd_name + " (one per row)");
  // The rows with any wrong value, and the first wrong elements of y, for the diagnosis.
  std::vector<char> bad_row(static_cast<std::size_t>(rows), 0);
  std::vector<std::size_t> bad_y;
  for (std::size_t i = 0; i < count; ++i) {
    if (wb::within(want_y[i], got_y[i], y_tolerance(i))) continue;
    bad_row[i / cols] = 1;
    if (bad_y.size() < 8) bad_y.push_back(i);
  }
  for (int r = 0; r < rows; ++r)
    if (!wb::within(want_mean[r], got_mean[r], mean_tolerance(r)) ||
        !wb::within(want_rstd[r], got_rstd[r], rstd_tolerance(r)))
      bad_row[r] = 1;
  return verdict + layernorm_diagnosis(ref, x, gamma, beta, bad_row, got_y, got_rstd, bad_y, cols, eps);
}

void check_layernorm(const char* name, LayernormLauncher launch, const LayernormCase& shape) {
  const std::uint64_t seed = wb::test::seed();
  const std::string verdict = grade_layernorm(name, launch, shape, seed);
  if (verdict.empty()) return;
  std::ostringstream message;
  message << name << " on " << shape.rows << " x " << shape.cols << ", eps = " << shape.eps;
  if (shape.misalign > 0) message << ", x, gamma, beta and y " << shape.misalign << " floats past 16-byte alignment";
  message << ", seed " << seed << " (replay with WB_SEED=" << seed << "). Row r holds kind r % 5: 0 "
          << layernorm_row_kind(0) << ", 1 " << layernorm_row_kind(1) << ", 2 " << layernorm_row_kind(2) << ", 3 "
          << layernorm_row_kind(3) << ", 4 " << layernorm_row_kind(4) << ".\n"
          << verdict;
  FAIL(message.str());
}

}  // namespace p2
