// SPDX-License-Identifier: MIT
#include "phase1_matmul/tests/grading.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>

#include "common/buffer.h"
#include "common/check_cublas.h"
#include "common/testing.h"
#include "phase1_matmul/harness/hang_notice.h"

namespace {

// CPU references in double up to this many multiply-adds; cuBLAS (pedantic FP32) above.
constexpr double kCpuReferenceLimit = double(1 << 27);

cublasHandle_t shared_cublas() {
  static wb::CublasHandle handle;
  return handle.get();
}

// How B is stored: K x N for the FP32 ladder (C = A B), N x K for the BF16 rungs (C = A B^T).
enum class BLayout { KxN, NxK };

struct Inputs {
  std::vector<float> A, B, C;  // C is meaningful only when beta != 0; BF16 inputs hold their BF16 values
};

double b_element(const MatmulCase& c, const Inputs& in, BLayout layout, int k, int j) {
  return layout == BLayout::KxN ? in.B[std::size_t(k) * c.N + j] : in.B[std::size_t(j) * c.K + k];
}

// Expected values and per-element magnitudes (for the tolerance), on the CPU or through cuBLAS.
void reference(const MatmulCase& c, const Inputs& in, BLayout layout, std::vector<double>& expected,
               std::vector<double>& magnitude, bool* from_cublas) {
  const double macs = double(c.M) * double(c.N) * double(c.K);
  *from_cublas = macs > kCpuReferenceLimit;
  if (!*from_cublas) {
    if (layout == BLayout::KxN)
      p1::gemm_reference_cpu(c.M, c.N, c.K, c.alpha, in.A, in.B, c.beta, in.C, expected, magnitude);
    else
      p1::gemm_nt_reference_cpu(c.M, c.N, c.K, c.alpha, in.A, in.B, c.beta, in.C, expected, magnitude);
    return;
  }
  auto run = [&](const std::vector<float>& A, const std::vector<float>& B, const std::vector<float>& C, float alpha,
                 float beta, std::vector<double>& out) {
    wb::DeviceBuffer<float> dA(A), dB(B), dC(C);
    if (layout == BLayout::KxN)
      p1::gemm_reference_cublas(shared_cublas(), c.M, c.N, c.K, alpha, dA.data(), dB.data(), beta, dC.data(), nullptr);
    else
      p1::gemm_nt_reference_cublas(shared_cublas(), c.M, c.N, c.K, alpha, dA.data(), dB.data(), beta, dC.data(),
                                   nullptr);
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

wb::Tolerance tolerance_of(const MatmulCase& c, double magnitude, bool exact, p1::MatmulPrecision precision,
                           double slack) {
  return exact ? wb::Tolerance{} : p1::gemm_check_tolerance(c.K, magnitude, precision, slack);
}

// A missed tail tile spoils (nearly) every element past its first row or column; a bug elsewhere,
// e.g. a dropped k term, leaves some elements right by chance and spreads over the whole matrix.
bool dense(std::size_t bad, std::size_t region) {
  return region > 0 && double(bad) >= 0.9 * double(region);
}

// With exact inputs, does every wrong element equal what a given wrong kernel computes? `term(i, j, k)`
// is the product that kernel adds for k in [0, k_end). Only for CPU-sized cases (it recomputes).
template <typename Term>
bool every_bad_element_is(const MatmulCase& c, const Inputs& in, const std::vector<float>& got,
                          const std::vector<std::size_t>& bad, int k_end, Term term) {
  if (bad.empty() || double(c.M) * c.N * c.K > kCpuReferenceLimit) return false;
  for (std::size_t idx : bad) {
    const int i = int(idx / std::size_t(c.N)), j = int(idx % std::size_t(c.N));
    double sum = 0;
    for (int k = 0; k < k_end; ++k) sum += term(i, j, k);
    const double value = double(c.alpha) * sum + (c.beta != 0.0f ? double(c.beta) * in.C[idx] : 0.0);
    if (double(got[idx]) != value) return false;
  }
  return true;
}

// One sentence on where the wrong elements are, which usually names the bug.
std::string explain(const MatmulCase& c, const Inputs& in, BLayout layout, const std::vector<float>& got,
                    const std::vector<double>& expected, const std::vector<double>& magnitude, bool exact,
                    p1::MatmulPrecision precision, double slack) {
  int min_bad_row = c.M, min_bad_col = c.N;
  std::size_t unchanged = 0, beta_missing = 0, nan = 0, untouched_total = 0;
  std::vector<std::size_t> bad_elements;
  for (int i = 0; i < c.M; ++i) {
    for (int j = 0; j < c.N; ++j) {
      const std::size_t idx = std::size_t(i) * c.N + j;
      const bool untouched = wb::same_bits(got[idx], wb::poison_value<float>());
      if (!untouched && wb::within(expected[idx], got[idx], tolerance_of(c, magnitude[idx], exact, precision, slack)))
        continue;
      bad_elements.push_back(idx);
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
  const std::size_t bad = bad_elements.size();
  std::ostringstream why;
  if (bad == 0) return "";
  if (untouched_total == std::size_t(c.M) * c.N) return "";  // describe() says: output untouched
  auto a_at = [&](int i, int k) { return double(in.A[std::size_t(i) * c.K + k]); };
  // The last K % tile terms missing: the partial last K tile was never loaded (tiles of 8 to 256).
  int k_cut = -1, tried = -1;
  if (exact && untouched_total == 0) {
    for (int tile : {256, 128, 64, 32, 16, 8}) {
      const int cut = c.K - c.K % tile;
      if (cut == c.K || cut == 0 || cut == tried) continue;
      tried = cut;
      if (every_bad_element_is(c, in, got, bad_elements, cut,
                               [&](int i, int j, int k) { return a_at(i, k) * b_element(c, in, layout, k, j); })) {
        k_cut = cut;
        break;
      }
    }
  }
  // The BF16 rungs store B as N x K; a kernel that indexes it as the FP32 ladder's K x N reads B[k N + j].
  const bool b_as_kxn = exact && untouched_total == 0 && layout == BLayout::NxK &&
                        every_bad_element_is(c, in, got, bad_elements, c.K, [&](int i, int j, int k) {
                          return a_at(i, k) * double(in.B[std::size_t(k) * c.N + j]);
                        });
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
  } else if (k_cut > 0) {
    why << "Every wrong element is the sum over k < " << k_cut << " only: the last " << c.K - k_cut
        << " terms (k = " << k_cut << ".." << c.K - 1 << ") are missing. K = " << c.K
        << " is not a multiple of the K tile, and the partial last tile along K must be loaded too "
           "(zero-filled past K).";
  } else if (b_as_kxn) {
    why << "Every wrong element is what A times B read as K x N gives: here B is N x K (row j of B holds "
           "output column j's weights, like a Linear layer), so C(i, j) is row i of A dotted with row j of B.";
  } else {
    why << "The wrong elements are spread over C, from row " << min_bad_row << " and column " << min_bad_col
        << " on: check the index formulas and the loop over K (K = " << c.K << ").";
  }
  return why.str();
}

// One case of either grader. The inputs are offset c.a_offset / c.b_offset elements (floats, or BF16
// elements in the BF16 grader) and C c.c_offset floats from a 256-byte boundary (0: aligned), in both
// guard layouts (WB_EXACT_INPUTS too).
struct GradeSpec {
  MatmulCase c;
  p1::MatmulPrecision precision;
  BLayout layout;
  bool exact;
  std::uint64_t seed;
};

// Inputs of element type T (float, or BF16 for the tensor-core rungs; C is FP32 either way) go to the
// device ringed with NaN canaries; `launch(A, B, C)` runs the launcher under test on them.
template <typename T, typename Launch>
std::string grade_generic(const char* name, const GradeSpec& s, Launch launch) {
  const MatmulCase& c = s.c;
  const std::size_t a_count = std::size_t(c.M) * c.K, b_count = std::size_t(c.K) * c.N,
                    c_count = std::size_t(c.M) * c.N;
  Inputs in;
  if (s.exact) {
    in.A = p1::random_small_integers(a_count, s.seed);  // exact in TF32 and BF16 too
    in.B = p1::random_small_integers(b_count, s.seed + 1);
    in.C = p1::random_small_integers(c_count, s.seed + 2, -4, 4);
  } else {
    in.A = wb::random_floats(a_count, s.seed);
    in.B = wb::random_floats(b_count, s.seed + 1);
    in.C = wb::random_floats(c_count, s.seed + 2);
  }
  if (std::is_same<T, __nv_bfloat16>::value) {
    // The reference multiplies exactly the values the kernel gets: rounding the inputs costs nothing.
    in.A = wb::rounded_to_bf16(std::move(in.A));
    in.B = wb::rounded_to_bf16(std::move(in.B));
  }
  if (c.beta == 0.0f) in.C.assign(c_count, wb::poison_value<float>());  // NaN: beta = 0 must not read C

  std::vector<double> expected, magnitude;
  bool from_cublas = false;
  reference(c, in, s.layout, expected, magnitude, &from_cublas);
  // Against cuBLAS both results carry rounding error (exact inputs have none), so the bound doubles;
  // cuBLAS's FP32 magnitudes are themselves within (K + 2) u of the truth.
  const double slack = from_cublas ? 2.0 * (1.0 + (c.K + 2) * wb::kFloatEpsilon) : 1.0;

  // Inputs ringed with NaN canaries: a kernel that reads past A or B produces NaN.
  constexpr std::size_t guard = wb::GuardedDeviceBuffer<T>::kDefaultGuard;
  wb::GuardedDeviceBuffer<T> dA(a_count, guard + std::size_t(s.c.a_offset)),
      dB(b_count, guard + std::size_t(s.c.b_offset));
  wb::GuardedDeviceBuffer<float> dC(c_count, guard + std::size_t(s.c.c_offset));
  dA.upload(wb::device_values<T>(in.A));
  dB.upload(wb::device_values<T>(in.B));
  dC.upload(in.C);
  // Launch errors and errors while the kernel runs are reported apart (common/testing.h explains).
  const std::string failed = wb::test::launch_and_explain(name, [&] { launch(dA.data(), dB.data(), dC.data()); });
  if (!failed.empty()) return failed;
  const wb::GuardReport guards = dC.check_guards();
  if (!guards.ok()) return guards.describe(name);
  const std::vector<float> got = dC.download();
  // Compared in float, so an untouched (poisoned) element is recognised bit for bit. Rounding the
  // double reference to float costs u * |expected| <= u * magnitude more: the bound adds it.
  const std::vector<float> expected_float(expected.begin(), expected.end());
  const wb::CompareReport report = wb::compare_each(
      expected_float.data(), got.data(), c_count,
      [&](std::size_t i) { return tolerance_of(c, magnitude[i], s.exact, s.precision, slack); },
      static_cast<std::size_t>(c.N));
  if (report.ok()) return "";
  return report.describe(name) + explain(c, in, s.layout, got, expected, magnitude, s.exact, s.precision, slack);
}

}  // namespace

std::string grade_matmul(const char* name, MatmulLauncher launch, const MatmulCase& c, p1::MatmulPrecision precision,
                         bool exact, std::uint64_t seed) {
  const GradeSpec spec{c, precision, BLayout::KxN, exact, seed};
  return grade_generic<float>(name, spec, [&](const float* A, const float* B, float* C) {
    launch(c.M, c.N, c.K, c.alpha, A, B, c.beta, C, nullptr);
  });
}

std::string grade_matmul_bf16(const char* name, Bf16MatmulLauncher launch, const Bf16MatmulCase& b, bool exact,
                              std::uint64_t seed) {
  const MatmulCase c{b.M, b.N, b.K, b.alpha, b.beta, b.a_offset, b.b_offset, b.c_offset};
  const GradeSpec spec{c, p1::MatmulPrecision::BF16, BLayout::NxK, exact, seed};
  return grade_generic<__nv_bfloat16>(name, spec, [&](const __nv_bfloat16* A, const __nv_bfloat16* B, float* C) {
    launch(c.M, c.N, c.K, c.alpha, A, B, c.beta, C, nullptr);
  });
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

void check_matmul(const char* name, MatmulLauncher launch, const MatmulCase& c, p1::MatmulPrecision precision) {
  const std::uint64_t seed = wb::test::seed();
  INFO(name << " with M = " << c.M << ", N = " << c.N << ", K = " << c.K << ", alpha = " << c.alpha
            << ", beta = " << c.beta
            << (c.a_offset || c.b_offset || c.c_offset
                    ? ", A, B, C " + std::to_string(c.a_offset) + ", " + std::to_string(c.b_offset) + ", " +
                          std::to_string(c.c_offset) + " floats past a 256-byte boundary"
                    : std::string())
            << ", seed " << seed << " (replay with WB_SEED=" << seed << ")");
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

namespace {
// Sizes under WB_SANITIZE: every case of at most 2^21 multiply-adds (all the tails and edge cases).
template <typename Case>
std::vector<Case> shrunk_for_sanitizer(const std::vector<Case>& cases) {
  if (!wb::test::sanitize_mode()) return cases;
  std::vector<Case> small;
  for (const Case& c : cases)
    if (double(c.M) * c.N * std::max(c.K, 1) <= double(1 << 21)) small.push_back(c);
  return small;
}

bool hang_watch = false;
}  // namespace

std::vector<Bf16MatmulCase> bf16_matmul_cases() {
  return shrunk_for_sanitizer<Bf16MatmulCase>({
      // The fast path (K % 8 == 0): tails in M and N from 1 to a prime, K not a multiple of 64.
      {1, 1, 8, 1.0f, 0.0f},
      {1, 1, 8, 2.0f, -1.0f},
      {15, 17, 16, 1.0f, 0.0f},
      {17, 15, 24, 1.0f, 0.0f},
      {63, 65, 72, 1.0f, 0.0f},
      {65, 63, 200, 1.0f, 0.0f},
      {127, 129, 136, 1.0f, 0.0f},
      {129, 127, 264, 2.0f, -1.0f},
      {251, 251, 248, 1.0f, 0.0f},
      {251, 129, 520, -1.5f, 0.5f},
      // M or N below one block tile, tall and wide.
      {8, 256, 64, 1.0f, 0.0f},
      {256, 8, 64, 1.0f, 0.0f},
      {1, 512, 128, 1.0f, 0.0f},
      {512, 1, 128, 1.0f, 0.0f},
      {4096, 16, 512, 1.0f, 0.0f},
      {16, 4096, 512, 1.0f, 0.0f},
      // Whole tiles; K one tile and several; beta = 1 and beta = 2.
      {128, 128, 64, 1.0f, 0.0f},
      {256, 256, 128, 1.0f, 1.0f},
      {128, 256, 512, 0.5f, 2.0f},
      // The fallback (K % 8 != 0): 1x1x1, odd K.
      {1, 1, 1, 1.0f, 0.0f},
      {1, 1, 1, 2.0f, -1.0f},
      {33, 17, 13, 1.0f, 0.0f},
      {17, 63, 65, 1.0f, 0.0f},
      {65, 15, 127, 2.0f, -1.0f},
      {129, 251, 251, 1.0f, 0.0f},
      // K = 0 (C = beta C; beta = 0 writes zeros), M = 0, N = 0.
      {17, 19, 0, 1.0f, 0.5f},
      {17, 19, 0, 1.0f, 0.0f},
      {0, 5, 8, 1.0f, 0.0f},
      {5, 0, 8, 1.0f, 0.0f},
      // Large (the cuBLAS reference): many waves of tiles, and the lessons' shapes.
      {1000, 1000, 1000, 1.0f, 0.0f},
      {1000, 1000, 1000, 0.5f, 2.0f},
      {4096, 4096, 4096, 1.0f, 0.0f},
      {8192, 1024, 4096, 1.0f, 0.0f},
  });
}

std::vector<Bf16MatmulCase> bf16_misaligned_cases() {
  // A + 1 or B + 1 element: 2-byte aligned only, so bf16_fast_path_ok refuses them even though K % 8 == 0.
  return shrunk_for_sanitizer<Bf16MatmulCase>({
      {65, 63, 64, 1.0f, 0.0f, 1, 0},
      {63, 65, 64, 2.0f, -1.0f, 0, 1},
      {17, 33, 8, 1.0f, 0.0f, 1, 1},
      {128, 128, 128, 1.0f, 0.0f, 1, 0},
  });
}

std::vector<Bf16MatmulCase> bf16_misaligned_c_cases() {
  // Aligned A and B with K % 8 == 0 take the fast path, whatever C is; beta != 0 reads C as well.
  return shrunk_for_sanitizer<Bf16MatmulCase>({
      {129, 256, 56, 1.0f, 0.5f, 0, 0, 1},  // C + 1, N % 4 == 0: float2 and TMA stores must both refuse it
      {65, 130, 72, 2.0f, -1.0f, 0, 0, 1},  // C + 1, N % 4 == 2: the register epilogue in every rung
      {128, 256, 64, 1.0f, 1.0f, 0, 0, 2},  // C + 2: float2 stores are fine, a TMA store of C is not
  });
}

void watch_for_hangs(const char* rung) {
  if (!hang_watch) {
    std::printf(
        "%s: if this test stops after a 'case' line until CTest kills it (its TIMEOUT), a kernel is waiting on an "
        "mbarrier that never completes. %s The last 'case' line is the shape that hung.\n",
        rung, p1::kMbarrierHangCauses);
    std::fflush(stdout);
  }
  hang_watch = true;
}

void watch_for_stopped_waits(const char* rung) {
  if (!hang_watch) {
    std::printf(
        "%s: its mbarrier waits give up after about 2 s and stop the kernel (a trap): the case then fails "
        "\"while running\", and the cases after it fail too (the GPU context is lost). %s %s The first case "
        "that failed while running is the one to read.\n",
        rung, p1::kMbarrierHangCauses, p1::kClusterHangCauses);
    std::fflush(stdout);
  }
  hang_watch = true;
}

void check_matmul_bf16(const char* name, Bf16MatmulLauncher launch, const Bf16MatmulCase& c) {
  const std::uint64_t seed = wb::test::seed();
  if (hang_watch) {
    std::printf("case M = %d, N = %d, K = %d, alpha = %g, beta = %g%s%s\n", c.M, c.N, c.K, double(c.alpha),
                double(c.beta), c.a_offset || c.b_offset ? ", misaligned" : "", c.c_offset ? ", C misaligned" : "");
    std::fflush(stdout);
  }
  // Which path the contract sends this case down (matmul_bf16.cuh): a wrong dispatch shows here.
  const bool fast = c.K > 0 && c.K % 8 == 0 && c.a_offset % 8 == 0 && c.b_offset % 8 == 0;
  INFO(name << " with M = " << c.M << ", N = " << c.N << ", K = " << c.K << ", alpha = " << c.alpha
            << ", beta = " << c.beta << (c.a_offset ? ", A misaligned by one element" : "")
            << (c.b_offset ? ", B misaligned by one element" : "")
            << (c.c_offset ? ", C " + std::to_string(c.c_offset) + " float(s) past a 16-byte boundary" : std::string())
            << ", seed " << seed << " (replay with WB_SEED=" << seed << ")");
  INFO(std::string(fast ? "the fast path: K % 8 == 0 and 16-byte aligned A and B (bf16_fast_path_ok)"
                        : "not the fast path (K % 8 != 0, K = 0 or misaligned A or B): matmul_bf16_fallback "
                          "should take it"));
  {
    INFO("small-integer inputs (exact in BF16): every correct kernel gives the exact answer");
    const std::string failure = grade_matmul_bf16(name, launch, c, true, seed);
    if (!failure.empty()) FAIL(failure);
  }
  {
    INFO(
        "random BF16 inputs in [-1, 1]: tolerance 2u (K + ceil(K/4) + 2) sum|alpha a b| + |beta c| per element "
        "(tensor cores add with truncation)");
    const std::string failure = grade_matmul_bf16(name, launch, c, false, seed + 7);
    if (!failure.empty()) FAIL(failure);
  }
}
