// SPDX-License-Identifier: MIT
#include "phase1_matmul/tests/grading.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "common/buffer.h"
#include "common/check_cublas.h"
#include "common/testing.h"

namespace {

// CPU references in double up to this many multiply-adds; cuBLAS (pedantic FP32) above.
constexpr double kCpuReferenceLimit = double(1 << 27);

cublasHandle_t shared_cublas() {
  static wb::CublasHandle handle;
  return handle.get();
}

struct Inputs {
  std::vector<float> A, B, C;  // C is meaningful only when beta != 0
};

// Expected values and per-element magnitudes (for the tolerance), on the CPU or through cuBLAS.
void reference(const MatmulCase& c, const Inputs& in, std::vector<double>& expected, std::vector<double>& magnitude,
               bool* from_cublas) {
  const double macs = double(c.M) * double(c.N) * double(c.K);
  *from_cublas = macs > kCpuReferenceLimit;
  if (!*from_cublas) {
    gemm_reference_cpu(c.M, c.N, c.K, c.alpha, in.A, in.B, c.beta, in.C, expected, magnitude);
    return;
  }
  auto run = [&](const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C, float alpha,
                 float beta, std::vector<double>& out) {
    wb::DeviceBuffer<float> dA(A), dB(B), dC(C);
    gemm_reference_cublas(shared_cublas(), c.M, c.N, c.K, alpha, dA.data(), dB.data(), beta, dC.data(), nullptr);
    const std::vector<float> result = dC.download();
    out.assign(result.begin(), result.end());
  };
  const std::vector<float> C =
      c.beta == 0.0f ? std::vector<float>(in.A.size() ? std::size_t(c.M) * c.N : 0, 0.0f) : in.C;
  run(in.A, in.B, C, c.alpha, c.beta, expected);
  auto absolute = [](std::vector<float> v) {
    for (float& x : v) x = std::fabs(x);
    return v;
  };
  run(absolute(in.A), absolute(in.B), absolute(C), std::fabs(c.alpha), std::fabs(c.beta), magnitude);
}

wb::Tolerance tolerance_of(const MatmulCase& c, double magnitude, bool exact, MatmulPrecision precision, double slack) {
  return exact ? wb::Tolerance{} : gemm_check_tolerance(c.K, magnitude, precision, slack);
}

// A missed tail tile spoils (nearly) every element past its first row or column; a bug elsewhere,
// e.g. a dropped k term, leaves some elements right by chance and spreads over the whole matrix.
bool dense(std::size_t bad, std::size_t region) { return region > 0 && double(bad) >= 0.9 * double(region); }

// One sentence on where the wrong elements are, which usually names the bug.
std::string explain(const MatmulCase& c, const Inputs& in, const std::vector<float>& got,
                    const std::vector<double>& expected, const std::vector<double>& magnitude, bool exact,
                    MatmulPrecision precision, double slack) {
  int min_bad_row = c.M, min_bad_col = c.N;
  std::size_t bad = 0, unchanged = 0, beta_missing = 0, nan = 0, untouched_total = 0;
  for (int i = 0; i < c.M; ++i) {
    for (int j = 0; j < c.N; ++j) {
      const std::size_t idx = std::size_t(i) * c.N + j;
      const bool untouched = wb::same_bits(got[idx], wb::poison_value<float>());
      if (!untouched && wb::within(expected[idx], got[idx], tolerance_of(c, magnitude[idx], exact, precision, slack)))
        continue;
      ++bad;
      min_bad_row = std::min(min_bad_row, i);
      min_bad_col = std::min(min_bad_col, j);
      if (untouched) {
        ++untouched_total;
        continue;
      }
      if (std::isnan(got[idx])) ++nan;
      if (c.beta != 0.0f && got[idx] == in.C[idx]) ++unchanged;
      if (exact && c.beta != 0.0f && got[idx] == expected[idx] - double(c.beta) * in.C[idx]) ++beta_missing;
    }
  }
  std::ostringstream why;
  if (bad == 0) return "";
  if (untouched_total == std::size_t(c.M) * c.N) return "";  // describe() says: output untouched
  if (c.beta == 0.0f && nan > 0) {
    why << "With beta = 0 some outputs are NaN and C held NaN: beta = 0 must not read C (the BLAS rule), "
           "so skip the beta term when beta is 0.";
  } else if (unchanged == bad) {
    why << "C kept its old values: is the kernel implemented and launched?";
  } else if (beta_missing == bad) {
    why << "Every wrong element equals alpha * A * B: the kernel overwrote C instead of adding beta * C.";
  } else if (min_bad_row > 0 && dense(bad, std::size_t(c.M - min_bad_row) * c.N)) {
    why << "Wrong only where row >= " << min_bad_row << " (rows 0.." << min_bad_row - 1
        << " are right): the last rows of C (M = " << c.M << ") fall in a tile that is not handled.";
  } else if (min_bad_col > 0 && dense(bad, std::size_t(c.N - min_bad_col) * c.M)) {
    why << "Wrong only where column >= " << min_bad_col << " (columns 0.." << min_bad_col - 1
        << " are right): the last columns of C (N = " << c.N << ") fall in a tile that is not handled.";
  } else {
    why << "The wrong elements are spread over C, from row " << min_bad_row << " and column " << min_bad_col
        << " on: check the index formulas and the loop over K (K = " << c.K << ").";
  }
  return why.str();
}

}  // namespace

std::string grade_matmul(const char* name, MatmulLauncher launch, const MatmulCase& c, MatmulPrecision precision,
                         bool exact, std::uint64_t seed) {
  const std::size_t a_count = std::size_t(c.M) * c.K, b_count = std::size_t(c.K) * c.N,
                    c_count = std::size_t(c.M) * c.N;
  Inputs in;
  if (exact) {
    in.A = random_small_integers(a_count, seed);
    in.B = random_small_integers(b_count, seed + 1);
    in.C = random_small_integers(c_count, seed + 2, -4, 4);
  } else {
    in.A = wb::random_floats(a_count, seed);
    in.B = wb::random_floats(b_count, seed + 1);
    in.C = wb::random_floats(c_count, seed + 2);
  }
  if (c.beta == 0.0f) in.C.assign(c_count, wb::poison_value<float>());  // NaN: beta = 0 must not read C

  std::vector<double> expected, magnitude;
  bool from_cublas = false;
  reference(c, in, expected, magnitude, &from_cublas);
  // Against cuBLAS both results carry rounding error (exact inputs have none), so the bound doubles;
  // cuBLAS's FP32 magnitudes are themselves within (K + 2) u of the truth.
  const double slack = from_cublas ? 2.0 * (1.0 + (c.K + 2) * wb::kFloatEpsilon) : 1.0;

  // Inputs ringed with NaN canaries: a kernel that reads past A or B produces NaN.
  wb::GuardedDeviceBuffer<float> dA(a_count), dB(b_count), dC(c_count);
  dA.upload(in.A);
  dB.upload(in.B);
  dC.upload(in.C);
  // Launch errors and errors while the kernel runs are reported apart (common/testing.h explains).
  const std::string failed = wb::test::launch_and_explain(
      name, [&] { launch(c.M, c.N, c.K, c.alpha, dA.data(), dB.data(), c.beta, dC.data(), nullptr); });
  if (!failed.empty()) return failed;
  const wb::GuardReport guards = dC.check_guards();
  if (!guards.ok()) return guards.describe(name);
  const std::vector<float> got = dC.download();
  // Compared in float, so an untouched (poisoned) element is recognised bit for bit. Rounding the
  // double reference to float costs u * |expected| <= u * magnitude more: the bound adds it.
  const std::vector<float> expected_float(expected.begin(), expected.end());
  const wb::CompareReport report = wb::compare_each(
      expected_float.data(), got.data(), c_count,
      [&](std::size_t i) { return tolerance_of(c, magnitude[i], exact, precision, slack); },
      static_cast<std::size_t>(c.N));
  if (report.ok()) return "";
  return report.describe(name) + explain(c, in, got, expected, magnitude, exact, precision, slack);
}

std::vector<MatmulCase> standard_matmul_cases() {
  std::vector<MatmulCase> cases = {
      {1, 1, 1, 1.0f, 0.0f},          {1, 1, 1, 2.0f, -1.0f},         {2, 3, 4, 1.0f, 0.0f},
      {31, 33, 17, 1.0f, 0.0f},       {33, 31, 65, -1.5f, 0.5f},      {64, 64, 64, 1.0f, 1.0f},
      {127, 129, 65, 1.0f, 0.0f},     {127, 129, 65, 2.0f, -1.0f},    {256, 256, 1, 1.0f, 0.0f},
      {17, 19, 0, 1.0f, 0.5f},        {0, 5, 7, 1.0f, 0.0f},          {5, 0, 7, 1.0f, 0.0f},
      {1000, 1000, 1000, 1.0f, 0.0f}, {1000, 1000, 1000, 0.5f, 2.0f}, {4096, 16, 512, 1.0f, 0.0f},
      {16, 4096, 512, 1.0f, 0.0f},    {4096, 4096, 4096, 1.0f, 0.0f},
  };
  if (!wb::test::sanitize_mode()) return cases;
  std::vector<MatmulCase> small;
  for (const MatmulCase& c : cases)
    if (double(c.M) * c.N * std::max(c.K, 1) <= double(1 << 21)) small.push_back(c);
  return small;
}

void check_matmul(const char* name, MatmulLauncher launch, const MatmulCase& c, MatmulPrecision precision) {
  const std::uint64_t seed = wb::test::seed();
  INFO(name << " with M = " << c.M << ", N = " << c.N << ", K = " << c.K << ", alpha = " << c.alpha
            << ", beta = " << c.beta << ", seed " << seed << " (replay with WB_SEED=" << seed << ")");
  {
    INFO("small-integer inputs: every correct kernel gives the exact answer");
    const std::string failure = grade_matmul(name, launch, c, precision, true, seed);
    if (!failure.empty()) FAIL(failure);
  }
  {
    INFO("random inputs in [-1, 1]: tolerance (K + 2) u sum|alpha a b| + |beta c| per element");
    const std::string failure = grade_matmul(name, launch, c, precision, false, seed + 7);
    if (!failure.empty()) FAIL(failure);
  }
}
