// SPDX-License-Identifier: MIT
// The BF16 rungs' lesson and benchmark engine (lesson_support.h): data, reference, verification,
// timing of the rung and of cuBLAS's two BF16 GEMMs (cublasGemmEx and cublasLtMatmul).
#include <cublasLt.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "common/buffer.h"
#include "common/check_cublas.h"
#include "common/data.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/measure.h"
#include "phase1_matmul/harness/hang_notice.h"
#include "phase1_matmul/harness/lesson_support.h"

namespace p1 {

namespace {

std::vector<float> absolute(std::vector<float> v) {
  for (float& x : v) x = std::fabs(x);
  return v;
}

constexpr std::size_t kLtWorkspaceBytes = 32 * wb::MiB;

// cuBLASLt's plan for row-major C (M x N, FP32) = A (M x K, BF16) B^T (B N x K, BF16). Column-major,
// that is C^T (N x M) = B (N x K) A^T (K x M): Lt's first operand is our B, stored as the column-major
// K x N matrix B^T and transposed (TRANSA = T); its second is our A, the column-major K x M matrix A^T
// (TRANSB = N). Both operands are K-major: the "TN" layout tensor cores read natively.
class LtPlan {
 public:
  LtPlan(int M, int N, int K) {
    CUBLAS_CHECK(cublasLtCreate(&handle_));
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t transpose = CUBLAS_OP_T, keep = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof keep));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&b_layout_, CUDA_R_16BF, K, N, K));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&a_layout_, CUDA_R_16BF, K, M, K));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&c_layout_, CUDA_R_32F, N, M, N));
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference_));
    const std::uint64_t workspace = kLtWorkspaceBytes;
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                      sizeof workspace));
    int returned = 0;
    // The top heuristic algorithm: what a framework calling cuBLASLt gets without autotuning.
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(handle_, op_, b_layout_, a_layout_, c_layout_,
                                                                 c_layout_, preference_, 1, &heuristic_, &returned);
    found_ = status == CUBLAS_STATUS_SUCCESS && returned > 0;
  }
  ~LtPlan() {
    if (preference_) cublasLtMatmulPreferenceDestroy(preference_);
    if (c_layout_) cublasLtMatrixLayoutDestroy(c_layout_);
    if (a_layout_) cublasLtMatrixLayoutDestroy(a_layout_);
    if (b_layout_) cublasLtMatrixLayoutDestroy(b_layout_);
    if (op_) cublasLtMatmulDescDestroy(op_);
    if (handle_) cublasLtDestroy(handle_);
  }
  LtPlan(const LtPlan&) = delete;
  LtPlan& operator=(const LtPlan&) = delete;

  bool found() const { return found_; }
  void run(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, void* workspace, cudaStream_t stream) const {
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(handle_, op_, &alpha, B, b_layout_, A, a_layout_, &beta, C, c_layout_, C, c_layout_,
                                &heuristic_.algo, workspace, kLtWorkspaceBytes, stream));
  }

 private:
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t a_layout_ = nullptr, b_layout_ = nullptr, c_layout_ = nullptr;
  cublasLtMatmulPreference_t preference_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
  bool found_ = false;
};

}  // namespace

struct Bf16MatmulBench::Buffers {
  Buffers(const MatmulShape& s, std::uint64_t seed)
      : host_a(wb::rounded_to_bf16(wb::random_floats(std::size_t(s.M) * s.K, seed))),
        host_b(wb::rounded_to_bf16(wb::random_floats(std::size_t(s.N) * s.K, seed + 1))),
        a(wb::to_bf16(host_a)),
        b(wb::to_bf16(host_b)),
        c(std::size_t(s.M) * s.N),
        library(std::size_t(s.M) * s.N),
        workspace(kLtWorkspaceBytes),
        lt(s.M, s.N, s.K) {}
  std::vector<float> host_a, host_b;  // the BF16 values, widened
  wb::DeviceBuffer<__nv_bfloat16> a, b;
  wb::GuardedDeviceBuffer<float> c, library;
  std::vector<float> expected, scale;  // pedantic FP32 on the BF16 values, and |A| |B|^T
  wb::DeviceBuffer<unsigned char> workspace;
  wb::CublasHandle handle;
  LtPlan lt;
};

Bf16MatmulBench::Bf16MatmulBench(MatmulShape shape, std::uint64_t seed)
    : shape_(shape), buffers_(std::make_unique<Buffers>(shape, seed)) {
  Buffers& b = *buffers_;
  const std::size_t count = std::size_t(shape.M) * shape.N;
  wb::DeviceBuffer<float> result(count);
  {
    const wb::DeviceBuffer<float> wide_a(b.host_a), wide_b(b.host_b);
    gemm_nt_reference_cublas(b.handle.get(), shape.M, shape.N, shape.K, 1.0f, wide_a.data(), wide_b.data(), 0.0f,
                             result.data(), nullptr);
    b.expected = result.download();
  }
  const wb::DeviceBuffer<float> abs_a(absolute(b.host_a)), abs_b(absolute(b.host_b));
  gemm_nt_reference_cublas(b.handle.get(), shape.M, shape.N, shape.K, 1.0f, abs_a.data(), abs_b.data(), 0.0f,
                           result.data(), nullptr);
  b.scale = result.download();
}

Bf16MatmulBench::~Bf16MatmulBench() = default;

namespace {
bool check_bf16(const std::string& what, const std::vector<float>& expected, const std::vector<float>& scale,
                const wb::GuardedDeviceBuffer<float>& out, const MatmulShape& shape) {
  // Both results carry rounding error, so the bound doubles (reference.h explains the BF16 bound).
  return wb::check_output(
      what, expected, out,
      [&](std::size_t i) { return gemm_check_tolerance(shape.K, scale[i], MatmulPrecision::BF16, 2.0); },
      std::size_t(shape.N));
}
}  // namespace

bool Bf16MatmulBench::verify(const std::string& what, Bf16MatmulLauncher launch) {
  Buffers& b = *buffers_;
  b.c.fill(wb::poison_value<float>());
  launch(shape_.M, shape_.N, shape_.K, 1.0f, b.a.data(), b.b.data(), 0.0f, b.c.data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return check_bf16(what, b.expected, b.scale, b.c, shape_);
}

wb::TimingStats Bf16MatmulBench::time(Bf16MatmulLauncher launch, const wb::BenchOptions& options) {
  Buffers& b = *buffers_;
  return wb::bench(nullptr, options, [&] {
    launch(shape_.M, shape_.N, shape_.K, 1.0f, b.a.data(), b.b.data(), 0.0f, b.c.data(), nullptr);
  });
}

Bf16LibraryTiming Bf16MatmulBench::time_library(const wb::BenchOptions& options) {
  Buffers& b = *buffers_;
  const int M = shape_.M, N = shape_.N, K = shape_.K;
  const float alpha = 1.0f, beta = 0.0f;
  CUBLAS_CHECK(cublasSetStream(b.handle.get(), nullptr));
  CUBLAS_CHECK(cublasSetMathMode(b.handle.get(), CUBLAS_DEFAULT_MATH));  // the reference left it pedantic
  // Row-major C = A B^T is the column-major C^T = B A^T: B (stored as B^T, K x N) transposed, then A^T.
  auto gemm_ex = [&] {
    CUBLAS_CHECK(cublasGemmEx(b.handle.get(), CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &alpha, b.b.data(), CUDA_R_16BF, K,
                              b.a.data(), CUDA_R_16BF, K, &beta, b.library.data(), CUDA_R_32F, N, CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
  };
  auto lt = [&] { b.lt.run(b.a.data(), b.b.data(), b.library.data(), b.workspace.data(), nullptr); };

  Bf16LibraryTiming timing;
  auto verified = [&](const char* name, const std::function<void()>& run) {
    b.library.fill(wb::poison_value<float>());
    run();
    CUDA_CHECK(cudaDeviceSynchronize());
    if (!check_bf16(name, b.expected, b.scale, b.library, shape_))
      std::fprintf(stderr, "warning: %s's result is outside the bound: the yardstick is suspect (a harness bug)\n",
                   name);
    return wb::bench(nullptr, options, run);
  };
  timing.gemm_ex = verified("cublasGemmEx (BF16)", gemm_ex);
  timing.lt_found = b.lt.found();
  if (timing.lt_found) timing.lt = verified("cublasLtMatmul (BF16)", lt);
  return timing;
}

int run_bf16_matmul_lesson(wb::Lesson& lesson, const char* launcher_name, Bf16MatmulLauncher launch) {
  const MatmulShape shape = parse_matmul_shape(lesson.options().size.empty() ? "4096" : lesson.options().size);
  const double a = double(shape.M) * shape.K, b = double(shape.K) * shape.N, c = double(shape.M) * shape.N;
  // Device: BF16 A and B, their float copies for the reference (two at a time), C, the library's C, the
  // reference result and cuBLASLt's workspace. Host: float and BF16 copies of A and B, two float arrays of C.
  lesson.require_memory(2.0 * (a + b) + 8.0 * (a + b) + 12.0 * c + double(kLtWorkspaceBytes), 6.0 * (a + b) + 16.0 * c);

  Bf16MatmulBench bench(shape, lesson.seed());
  wb::MeasureSteps steps;
  steps.verify = [&](const std::string& when) { return bench.verify(launcher_name + when, launch); };
  // Compute-bound: the operands stay in L2 between repeats either way, so no flush.
  steps.time = [&] { return bench.time(launch, lesson.bench_options(false)); };
  const wb::Measured measured = wb::measure(steps);
  const wb::TimingStats& time = measured.time;
  const bool pass = measured.pass;
  const Bf16LibraryTiming library = bench.time_library(lesson.bench_options(false));
  if (!lesson.options().csv) {
    if (library.lt_found)
      std::printf("cuBLAS BF16: cublasGemmEx %.3f ms, cublasLtMatmul %.3f ms: %s is the yardstick\n",
                  library.gemm_ex.median_ms, library.lt.median_ms, library.best_name());
    else
      std::printf("cuBLAS BF16: cublasGemmEx %.3f ms (cuBLASLt offered no algorithm)\n", library.gemm_ex.median_ms);
  }

  return report_matmul_result(lesson, launcher_name, shape, time, MatmulPrecision::BF16,
                              wb::bf16_peak_gflops(lesson.device()), library.best_ms(), "cuBLAS BF16 best", pass);
}

void warn_mbarrier_hangs(const wb::Lesson& lesson) {
  std::FILE* out = lesson.options().csv ? stderr : stdout;
  std::fprintf(out,
               "%s %s: if this lesson prints nothing more and does not return, a kernel is waiting on an mbarrier "
               "that never completes; Ctrl-C stops it. %s\n",
               lesson.id().c_str(), lesson.name().c_str(), kMbarrierHangCauses);
  std::fflush(out);
}

}  // namespace p1
