// SPDX-License-Identifier: MIT
#include "phase1_matmul/harness/lesson_support.h"

#include <cmath>
#include <cstdio>
#include <vector>

#include "common/buffer.h"
#include "common/check_cublas.h"
#include "common/data.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/measure.h"

namespace p1 {

namespace {

std::vector<float> absolute(std::vector<float> v) {
  for (float& x : v) x = std::fabs(x);
  return v;
}

}  // namespace

std::string MatmulShape::text() const {
  if (M == N && N == K) return "M=N=K=" + std::to_string(M);
  return std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K);
}

struct MatmulBench::Buffers {
  Buffers(const MatmulShape& s, std::uint64_t seed)
      : host_a(wb::random_floats(std::size_t(s.M) * s.K, seed)),
        host_b(wb::random_floats(std::size_t(s.K) * s.N, seed + 1)),
        a(host_a),
        b(host_b),
        c(std::size_t(s.M) * s.N),
        library(std::size_t(s.M) * s.N) {}
  std::vector<float> host_a, host_b;
  wb::DeviceBuffer<float> a, b;
  wb::GuardedDeviceBuffer<float> c;
  wb::DeviceBuffer<float> library;
  std::vector<float> expected, scale;  // the pedantic FP32 result and |A| |B|
  wb::CublasHandle handle;
};

MatmulBench::MatmulBench(MatmulShape shape, std::uint64_t seed)
    : shape_(shape), buffers_(std::make_unique<Buffers>(shape, seed)) {
  Buffers& b = *buffers_;
  const std::size_t count = std::size_t(shape.M) * shape.N;
  wb::DeviceBuffer<float> result(count);
  gemm_reference_cublas(b.handle.get(), shape.M, shape.N, shape.K, 1.0f, b.a.data(), b.b.data(), 0.0f, result.data(),
                        nullptr);
  b.expected = result.download();
  wb::DeviceBuffer<float> abs_a(absolute(b.host_a)), abs_b(absolute(b.host_b));
  gemm_reference_cublas(b.handle.get(), shape.M, shape.N, shape.K, 1.0f, abs_a.data(), abs_b.data(), 0.0f,
                        result.data(), nullptr);
  b.scale = result.download();
}

MatmulBench::~MatmulBench() = default;

bool MatmulBench::verify(const std::string& what, MatmulLauncher launch, MatmulPrecision precision) {
  Buffers& b = *buffers_;
  b.c.fill(wb::poison_value<float>());
  launch(shape_.M, shape_.N, shape_.K, 1.0f, b.a.data(), b.b.data(), 0.0f, b.c.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const int K = shape_.K;
  // Both results carry rounding error, so the bound doubles (reference.h explains the bound).
  return wb::check_output(
      what, b.expected, b.c, [&](std::size_t i) { return gemm_check_tolerance(K, b.scale[i], precision, 2.0); },
      std::size_t(shape_.N));
}

wb::TimingStats MatmulBench::time(MatmulLauncher launch, const wb::BenchOptions& options) {
  Buffers& b = *buffers_;
  return wb::bench(nullptr, options, [&] {
    launch(shape_.M, shape_.N, shape_.K, 1.0f, b.a.data(), b.b.data(), 0.0f, b.c.data(), nullptr);
  });
}

wb::TimingStats MatmulBench::time_library(MatmulPrecision precision, const wb::BenchOptions& options) {
  Buffers& b = *buffers_;
  const int M = shape_.M, N = shape_.N, K = shape_.K;
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasSetStream(b.handle.get(), nullptr));
  CUBLAS_CHECK(cublasSetMathMode(b.handle.get(), CUBLAS_DEFAULT_MATH));
  return wb::bench(nullptr, options, [&] {
    // Row-major through C^T = B^T A^T, as in gemm_reference_cublas.
    if (precision == MatmulPrecision::FP32) {
      CUBLAS_CHECK(cublasSgemm(b.handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b.b.data(), N, b.a.data(), K,
                               &beta, b.library.data(), N));
    } else {
      CUBLAS_CHECK(cublasGemmEx(b.handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, b.b.data(), CUDA_R_32F, N,
                                b.a.data(), CUDA_R_32F, K, &beta, b.library.data(), CUDA_R_32F, N,
                                CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
    }
  });
}

MatmulShape parse_matmul_shape(const std::string& text) {
  std::vector<std::size_t> dims;
  if (!wb::parse_dims(text, &dims) || dims.size() == 2)
    throw wb::UsageError("--size needs N (a cube) or MxNxK, got '" + text + "'");
  if (dims.size() == 1) dims = {dims[0], dims[0], dims[0]};
  for (std::size_t d : dims)
    if (d == 0 || d > 65536)
      throw wb::UsageError("--size: each of M, N, K must be from 1 to 65536, got '" + text + "'");
  return MatmulShape{int(dims[0]), int(dims[1]), int(dims[2])};
}

double matmul_peak_gflops(const wb::DeviceInfo& device, MatmulPrecision precision) {
  return precision == MatmulPrecision::FP32 ? wb::fp32_peak_gflops(device) : wb::tf32_peak_gflops(device);
}

int run_matmul_lesson(wb::Lesson& lesson, const char* launcher_name, MatmulLauncher launch, MatmulPrecision precision) {
  const MatmulShape shape = parse_matmul_shape(lesson.options().size.empty() ? "4096" : lesson.options().size);
  const double a = double(shape.M) * shape.K, b = double(shape.K) * shape.N, c = double(shape.M) * shape.N;
  lesson.require_memory(4.0 * (2.0 * a + 2.0 * b + 3.0 * c), 4.0 * (2.0 * a + 2.0 * b + 3.0 * c));

  MatmulBench bench(shape, lesson.seed());
  wb::MeasureSteps steps;
  steps.verify = [&](const std::string& when) { return bench.verify(launcher_name + when, launch, precision); };
  // Compute-bound: the operands stay in L2 between repeats either way, so no flush.
  steps.time = [&] { return bench.time(launch, lesson.bench_options(false)); };
  const wb::Measured measured = wb::measure(steps);
  const wb::TimingStats& time = measured.time;
  const bool pass = measured.pass;
  const wb::TimingStats library = bench.time_library(precision, lesson.bench_options(false));

  const bool fp32 = precision == MatmulPrecision::FP32;
  return report_matmul_result(lesson, launcher_name, shape, time, precision,
                              matmul_peak_gflops(lesson.device(), precision), library.median_ms,
                              fp32 ? "cuBLAS" : "cuBLAS TF32", pass);
}

int report_matmul_result(wb::Lesson& lesson, const char* launcher_name, const MatmulShape& shape,
                         const wb::TimingStats& time, MatmulPrecision precision, double peak_gflops, double library_ms,
                         const char* library_label, bool pass) {
  const bool fp32 = precision == MatmulPrecision::FP32, tf32 = precision == MatmulPrecision::TF32;
  wb::ResultLine line;
  line.id = lesson.id();
  line.name = launcher_name;
  line.problem = shape.text();
  line.time = time;
  line.unit = wb::RateUnit::GFLOPs;
  line.rate = wb::gflop_per_s(shape.flop(), time.median_ms);
  line.flop = shape.flop();
  line.dtype = fp32 ? "fp32" : tf32 ? "tf32" : "bf16";
  line.peak_label = fp32 ? "FP32 peak" : tf32 ? "TF32 peak" : "BF16 peak";
  wb::set_peak(line, peak_gflops);  // 0: unknown, and the line says so
  line.ref_label = library_label;
  line.ref_value = 100.0 * library_ms / time.median_ms;
  line.pass = pass;
  lesson.report(line);
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace p1
