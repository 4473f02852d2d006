// SPDX-License-Identifier: MIT
#include "phase1_matmul/lesson_support.h"

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/check_cublas.h"
#include "common/data.h"
#include "common/device.h"
#include "common/gpu.h"

namespace {

// The library line the rung is compared with, at the same input precision.
void library_gemm(cublasHandle_t handle, MatmulPrecision precision, int M, int N, int K, const float* A,
                  const float* B, float* C) {
  const float alpha = 1.0f, beta = 0.0f;
  if (precision == MatmulPrecision::FP32) {
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    CUBLAS_CHECK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, N, A, K, &beta, C, N));
  } else {
    CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));
    CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, B, CUDA_R_32F, N, A, CUDA_R_32F, K,
                              &beta, C, CUDA_R_32F, N, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
  }
}

std::vector<float> absolute(std::vector<float> v) {
  for (float& x : v) x = std::fabs(x);
  return v;
}

}  // namespace

int tf32_flop_per_clock_per_sm(int cc_major, int cc_minor) {
  if (cc_major >= 9) return 2048;
  if (cc_major == 8 && cc_minor == 0) return 1024;
  if (cc_major == 8) return 512;
  return 0;
}

int run_matmul_lesson(wb::Lesson& lesson, const char* launcher_name, MatmulLauncher launch,
                      MatmulPrecision precision) {
  std::vector<std::size_t> dims;
  const std::string size = lesson.options().size.empty() ? "4096" : lesson.options().size;
  if (!wb::parse_dims(size, &dims) || dims.size() == 2 || dims[0] == 0)
    throw wb::UsageError("--size needs N (a cube) or MxNxK with positive sizes, got '" + size + "'");
  if (dims.size() == 1) dims = {dims[0], dims[0], dims[0]};
  for (std::size_t d : dims)
    if (d == 0 || d > 65536) throw wb::UsageError("--size: each of M, N, K must be from 1 to 65536");
  const int M = static_cast<int>(dims[0]), N = static_cast<int>(dims[1]), K = static_cast<int>(dims[2]);
  const double a_count = double(M) * K, b_count = double(K) * N, c_count = double(M) * N;
  lesson.require_memory(4.0 * (a_count + b_count + 3.0 * c_count), 4.0 * (2.0 * a_count + 2.0 * b_count + 4.0 * c_count));

  const std::size_t c_elements = static_cast<std::size_t>(c_count);
  const std::vector<float> A = wb::random_floats(static_cast<std::size_t>(a_count), lesson.seed());
  const std::vector<float> B = wb::random_floats(static_cast<std::size_t>(b_count), lesson.seed() + 1);
  wb::DeviceBuffer<float> dA(A), dB(B), reference(c_elements), magnitude(c_elements), library(c_elements);
  wb::GuardedDeviceBuffer<float> dC(c_elements);
  wb::CublasHandle handle;

  // The reference: pedantic FP32 cuBLAS, and alpha |A| |B| for the per-element error bound.
  gemm_reference_cublas(handle.get(), M, N, K, 1.0f, dA.data(), dB.data(), 0.0f, reference.data(), nullptr);
  {
    wb::DeviceBuffer<float> absA(absolute(A)), absB(absolute(B));
    gemm_reference_cublas(handle.get(), M, N, K, 1.0f, absA.data(), absB.data(), 0.0f, magnitude.data(), nullptr);
  }
  const std::vector<float> expected = reference.download(), scale = magnitude.download();
  auto tolerance_of = [&](std::size_t i) {
    // Both results carry rounding error, so the bound doubles (reference.h explains the bound).
    wb::Tolerance tol = gemm_tolerance(K, 2.0 * scale[i], precision);
    tol.abs += wb::kFloatEpsilon * scale[i];
    return tol;
  };
  auto verify = [&](const std::string& what) {
    const wb::CompareReport values =
        wb::compare_each(expected.data(), dC.download().data(), expected.size(), tolerance_of, std::size_t(N));
    const wb::GuardReport guards = dC.check_guards();
    if (!values.ok()) std::fprintf(stderr, "%s", values.describe(what).c_str());
    if (!guards.ok()) std::fprintf(stderr, "%s", guards.describe(what).c_str());
    return values.ok() && guards.ok();
  };

  const auto run = [&] { launch(M, N, K, 1.0f, dA.data(), dB.data(), 0.0f, dC.data(), nullptr); };
  run();
  CUDA_CHECK(cudaDeviceSynchronize());
  bool pass = verify(launcher_name);
  // Compute-bound: the operands stay in L2 between repeats either way, so no flush.
  const wb::TimingStats time = wb::bench(nullptr, lesson.bench_options(false), run);
  pass = verify(std::string(launcher_name) + " (after timing)") && pass;
  const wb::TimingStats library_time = wb::bench(nullptr, lesson.bench_options(false), [&] {
    library_gemm(handle.get(), precision, M, N, K, dA.data(), dB.data(), library.data());
  });

  // Napkin math: 2 M N K FLOP (one multiply and one add per term); at 4096^3 that is 137 GFLOP.
  const double flop = 2.0 * M * double(N) * K;
  const wb::DeviceInfo& device = lesson.device();
  wb::ResultLine line;
  line.id = lesson.id();
  line.name = launcher_name;
  line.problem = M == N && N == K ? "M=N=K=" + std::to_string(M)
                                  : std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
  line.time = time;
  line.unit = wb::RateUnit::GFLOPs;
  line.rate = wb::gflop_per_s(flop, time.median_ms);
  const double peak = precision == MatmulPrecision::FP32
                          ? lesson.fp32_peak_gflops()
                          : double(device.sm_count) * tf32_flop_per_clock_per_sm(device.cc_major, device.cc_minor) *
                                (device.sm_clock_khz * 1e3) / 1e9;
  line.peak_label = precision == MatmulPrecision::FP32 ? "FP32 peak" : "TF32 peak";
  line.peak_pct = peak > 0 ? 100.0 * line.rate / peak : 0.0;
  line.ref_label = precision == MatmulPrecision::FP32 ? "cuBLAS" : "cuBLAS TF32";
  line.ref_value = 100.0 * library_time.median_ms / time.median_ms;
  line.pass = pass;
  lesson.report(line);
  return pass ? wb::kExitPass : wb::kExitFail;
}
