// SPDX-License-Identifier: MIT
// 1.08 cublas: the library you have been racing, called on row-major data, and its math modes.
//
// You learn: cuBLAS is column-major, and a row-major matrix read column-major is its transpose, so
// C = A B becomes C^T = B^T A^T: pass B first, swap M and N, and give row lengths as leading
// dimensions; no copy and no transpose kernel. You also learn that the handle carries state (the
// stream, the math mode) and that one flag decides whether "FP32" GEMM uses the tensor cores.
// Task: finish sgemm_row_major: bind the stream, set the math mode, and call cublasSgemm with the
// swapped arguments. matmul_cublas calls it with CUBLAS_PEDANTIC_MATH (true FP32, no tensor cores).
// You decide: which operand cuBLAS sees first, which of M and N is its m, and each leading dimension (K
//             = 0 included); which handle state to set on every call.
// Source: cuBLAS documentation, "Data Layout" (column-major): a row-major matrix read column-major is
// its transpose.
// Run:   ./workbook run 1.08 [-- --size 4096]
// Check: ./workbook check 1.08
// Aim:   matmul_cublas at ~100% of cuBLAS (it is cuBLAS); the TF32 line 4-8x faster on an H100, with
//        relative error ~1e-3 instead of ~1e-6.
// Previous: 1.07 warptiling. Next: 1.09 tensor_cores.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "common/check_cublas.h"
#include "common/workbook.h"
#include "phase1_matmul/harness/lesson_support.h"
#include "phase1_matmul/matmul.cuh"

// ---- kernels ----------------------------------------------------------------------------------------

// None: the kernels are NVIDIA's. cuBLAS picks one per shape, GPU and math mode (its heuristics),
// which is why it is the number every rung of the ladder is measured against.

// ---- launchers --------------------------------------------------------------------------------------

namespace {

// C = alpha A B + beta C for row-major A (M x K), B (K x N), C (M x N), on `stream`, in math mode
// `math`. The lesson also calls it with the faster math modes.
void sgemm_row_major(cublasHandle_t handle, cublasMath_t math, int M, int N, int K, float alpha, const float* A,
                     const float* B, float beta, float* C, cudaStream_t stream) {
  if (M == 0 || N == 0) return;  // nothing to compute; cuBLAS would accept it, the contract says "launch nothing"
  // The handle remembers its stream: set it on every call, or the GEMM runs on whatever stream the
  // last caller chose and races with your other work on `stream`.
  // TODO(1.08): make the GEMM below run on `stream`, the call checked (1 line).
  // The math mode is handle state too: PEDANTIC forbids tensor cores and reduced precision,
  // TF32_TENSOR_OP allows rounding the inputs to TF32.
  // TODO(1.08): make the handle compute in `math`, the call checked (1 line).
  // Row-major X (r x c) is column-major X^T (c x r) with leading dimension c. Which column-major
  // product of the matrices cuBLAS sees gives it C^T, without moving any data? A leading dimension must
  // be at least 1 even when K = 0 (cuBLAS checks lda >= max(1, rows) and returns
  // CUBLAS_STATUS_INVALID_VALUE otherwise).
  // TODO(1.08): one cublasSgemm, checked, that leaves row-major C = alpha A B + beta C (about 2
  //             lines). Then delete the (void) line below: it only silences unused-parameter warnings.
  (void)handle, (void)math, (void)K, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)stream;  // TODO(1.08)
}

}  // namespace

void matmul_cublas(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                   cudaStream_t stream) {
  // One handle for the whole process, created on the first call: cublasCreate allocates workspace
  // and loads kernels, which costs milliseconds. The lessons call the launcher once before timing,
  // so that cost stays out of the measurement. (Function-local statics are initialised once, thread-safely.)
  static wb::CublasHandle handle;
  // PEDANTIC: true FP32 arithmetic, the same precision as rungs 1.01-1.07, so the race is fair.
  sgemm_row_major(handle.get(), CUBLAS_PEDANTIC_MATH, M, N, K, alpha, A, B, beta, C, stream);
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// One extra line: `math` on the same data, its error against the pedantic result, its speed against it.
struct ModeRun {
  const char* name;
  cublasMath_t math;
  p1::MatmulPrecision precision;  // what the tolerance assumes about the inputs
};

// Napkin math: 2 M N K FLOP = 137 GFLOP at 4096^3. An H100 SXM does ~67 TFLOP/s FP32 on its CUDA
// cores (~2 ms) but ~495 TFLOP/s dense TF32 on its tensor cores (~0.3 ms): the same call, one flag
// apart. A and B are 64 MiB each at 4096: the arithmetic intensity (~680 FLOP/byte if each is read
// once) is far above the ~20 FLOP/byte the HBM can feed, so every mode here is compute-bound.
int cublas_lesson(wb::Lesson& lesson) {
  // 1. The graded launcher against cublasSgemm in its default math: the same library, so ~100%.
  const int status = p1::run_matmul_lesson(lesson, "matmul_cublas", matmul_cublas);
  if (status != wb::kExitPass) return status;

  // 2. The math modes. run_matmul_lesson has already checked --size, so parsing it cannot fail here.
  std::vector<std::size_t> dims;
  if (!wb::parse_dims(lesson.options().size.empty() ? "4096" : lesson.options().size, &dims)) return wb::kExitFail;
  if (dims.size() == 1) dims = {dims[0], dims[0], dims[0]};
  const int M = static_cast<int>(dims[0]), N = static_cast<int>(dims[1]), K = static_cast<int>(dims[2]);
  const std::size_t c_count = std::size_t(M) * N;
  const std::vector<float> A = wb::random_floats(std::size_t(M) * K, lesson.seed());
  const std::vector<float> B = wb::random_floats(std::size_t(K) * N, lesson.seed() + 1);
  std::vector<float> absA(A), absB(B);
  for (float& x : absA) x = std::fabs(x);
  for (float& x : absB) x = std::fabs(x);
  wb::DeviceBuffer<float> dA(A), dB(B), dAbsA(absA), dAbsB(absB), pedantic(c_count), magnitude(c_count);
  wb::GuardedDeviceBuffer<float> dC(c_count);
  wb::CublasHandle handle;  // the lesson's own handle, made here, outside every timed region

  // The pedantic result is the reference; |A| |B| scales the per-element error bound.
  p1::gemm_reference_cublas(handle.get(), M, N, K, 1.0f, dA.data(), dB.data(), 0.0f, pedantic.data(), nullptr);
  p1::gemm_reference_cublas(handle.get(), M, N, K, 1.0f, dAbsA.data(), dAbsB.data(), 0.0f, magnitude.data(), nullptr);
  const std::vector<float> expected = pedantic.download(), scale = magnitude.download();
  const wb::TimingStats pedantic_time = wb::bench(nullptr, lesson.bench_options(false), [&] {
    matmul_cublas(M, N, K, 1.0f, dA.data(), dB.data(), 0.0f, dC.data(), nullptr);
  });

  const double flop = 2.0 * M * double(N) * K;
  const wb::DeviceInfo& device = lesson.device();
  const double tf32_peak = p1::matmul_peak_gflops(device, p1::MatmulPrecision::TF32);
  double max_error = 0, max_value = 0;
  for (float v : expected) max_value = std::max(max_value, double(std::fabs(v)));

  bool pass = true;
  const ModeRun modes[] = {
      {"cublasSgemm_default_math", CUBLAS_DEFAULT_MATH, p1::MatmulPrecision::FP32},
      {"cublasSgemm_tf32_tensor_op", CUBLAS_TF32_TENSOR_OP_MATH, p1::MatmulPrecision::TF32},
  };
  for (const ModeRun& mode : modes) {
    const auto run = [&] {
      sgemm_row_major(handle.get(), mode.math, M, N, K, 1.0f, dA.data(), dB.data(), 0.0f, dC.data(), nullptr);
    };
    run();
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = dC.download();
    // The error against the pedantic result, relative to the largest |C|: one number per mode.
    max_error = 0;
    for (std::size_t i = 0; i < c_count; ++i) max_error = std::max(max_error, std::fabs(double(got[i]) - expected[i]));
    const wb::CompareReport values = wb::compare_each(
        expected.data(), got.data(), c_count,
        [&](std::size_t i) { return p1::gemm_check_tolerance(K, scale[i], mode.precision, 2.0); }, std::size_t(N));
    const wb::GuardReport guards = dC.check_guards();
    if (!values.ok()) std::fprintf(stderr, "%s", values.describe(mode.name).c_str());
    if (!guards.ok()) std::fprintf(stderr, "%s", guards.describe(mode.name).c_str());
    const wb::TimingStats time = wb::bench(nullptr, lesson.bench_options(false), run);

    wb::ResultLine line;
    line.id = lesson.id();
    line.name = mode.name;
    line.problem = p1::MatmulShape{M, N, K}.text();
    line.time = time;
    line.unit = wb::RateUnit::GFLOPs;
    line.rate = wb::gflop_per_s(flop, time.median_ms);
    const bool tf32 = mode.precision == p1::MatmulPrecision::TF32;
    const double peak = tf32 ? tf32_peak : lesson.fp32_peak_gflops();
    line.peak_label = tf32 ? "TF32 peak" : "FP32 peak";
    wb::set_peak(line, peak);                // 0: unknown, and the line says so
    line.ref_style = wb::RefStyle::Speedup;  // "4.50x pedantic": how much faster than matmul_cublas
    line.ref_label = "pedantic";
    line.ref_value = time.median_ms > 0 ? pedantic_time.median_ms / time.median_ms : 0.0;
    line.pass = values.ok() && guards.ok();
    pass = line.pass && pass;
    lesson.report(line);
    if (!lesson.options().csv) {
      std::printf("      %s: max |C - C_pedantic| / max |C_pedantic| = %.2e\n", mode.name,
                  max_value > 0 ? max_error / max_value : 0.0);
    }
  }
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(cublas_lesson, "cublasSgemm on row-major data, and what its math modes do to speed and accuracy");
