// SPDX-License-Identifier: MIT
#include <cmath>
#include <stdexcept>

#include "common/check.h"
#include "common/util.h"
#include "phase2_elementwise/harness/activations.cuh"
#include "phase6_multi_gpu/harness/mlp_support.h"

#define CUBLAS_CHECK_P6(call)                                                                      \
  do {                                                                                             \
    const cublasStatus_t status_ = (call);                                                         \
    if (status_ != CUBLAS_STATUS_SUCCESS)                                                          \
      throw std::runtime_error(std::string(#call) + " failed: " + cublasGetStatusString(status_)); \
  } while (0)

namespace p6 {

std::string MlpShape::describe() const {
  return std::to_string(tokens) + "x" + std::to_string(model) + "x" + std::to_string(hidden);
}

MlpEngine::MlpEngine(const RankGroup& group) : group_(group) {
  for (int r = 0; r < group.size(); ++r) {
    DeviceScope scope(group.device(r));
    cublasHandle_t handle = nullptr;
    CUBLAS_CHECK_P6(cublasCreate(&handle));
    CUBLAS_CHECK_P6(cublasSetStream(handle, group.stream(r)));
    handles_.push_back(handle);
    scratch_.push_back(nullptr);
    scratch_floats_.push_back(0);
  }
}

MlpEngine::~MlpEngine() {
  for (int r = 0; r < group_.size(); ++r) {
    DeviceScope scope(group_.device(r));
    cudaStreamSynchronize(group_.stream(r));
    cublasDestroy(handles_[static_cast<std::size_t>(r)]);
    cudaFree(scratch_[static_cast<std::size_t>(r)]);
  }
}

float* MlpEngine::scratch(int r, std::size_t floats) {
  const std::size_t i = static_cast<std::size_t>(r);
  if (scratch_floats_[i] < floats) {
    DeviceScope scope(group_.device(r));
    CUDA_CHECK(cudaStreamSynchronize(group_.stream(r)));
    CUDA_CHECK(cudaFree(scratch_[i]));
    scratch_[i] = nullptr;
    CUDA_CHECK(cudaMalloc(&scratch_[i], floats * sizeof(float)));
    scratch_floats_[i] = floats;
  }
  return scratch_[i];
}

void MlpEngine::gemm(int r, const bf16* a, const bf16* b, float* c, std::size_t m, std::size_t n, std::size_t k) const {
  if (m == 0 || n == 0) return;
  DeviceScope scope(group_.device(r));
  const float one = 1.0f, zero = 0.0f;
  // Row-major C = A B is column-major C^T = B^T A^T: B (k x n row-major) is B^T column-major with ld n.
  CUBLAS_CHECK_P6(cublasGemmEx(handles_[static_cast<std::size_t>(r)], CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n),
                               static_cast<int>(m), static_cast<int>(k), &one, b, CUDA_R_16BF, static_cast<int>(n), a,
                               CUDA_R_16BF, static_cast<int>(k), &zero, c, CUDA_R_32F, static_cast<int>(n),
                               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

namespace {

__global__ void gelu_to_bf16_kernel(const float* in, bf16* out, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride)
    out[i] = __float2bfloat16_rn(gelu_tanh_device(in[i]));
}

__global__ void fill_uniform_bf16_kernel(bf16* data, std::size_t count, std::uint64_t seed, float scale) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    // splitmix64 of (seed, i): a uniform in [-1, 1).
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + i + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    const float u = static_cast<float>(z >> 40) * (1.0f / 16777216.0f) * 2.0f - 1.0f;
    data[i] = __float2bfloat16_rn(u * scale);
  }
}

int grid_for(std::size_t count) {
  return static_cast<int>(std::min<std::size_t>(std::max<std::size_t>(1, wb::ceil_div(count, std::size_t(256))), 4096));
}

}  // namespace

void MlpEngine::gelu_to_bf16(int r, const float* in, bf16* out, std::size_t count) const {
  if (count == 0) return;
  DeviceScope scope(group_.device(r));
  gelu_to_bf16_kernel<<<grid_for(count), 256, 0, group_.stream(r)>>>(in, out, count);
  CUDA_CHECK_KERNEL();
}

void fill_uniform_bf16(bf16* data, std::size_t count, std::uint64_t seed, float scale, cudaStream_t stream) {
  if (count == 0) return;
  fill_uniform_bf16_kernel<<<grid_for(count), 256, 0, stream>>>(data, count, seed, scale);
  CUDA_CHECK_KERNEL();
}

void mlp_one_gpu(MlpEngine& engine, int r, const bf16* x, const bf16* w1, const bf16* w2, bf16* hidden, float* y,
                 const MlpShape& shape) {
  float* z = engine.scratch(r, shape.tokens * shape.hidden);
  engine.gemm(r, x, w1, z, shape.tokens, shape.hidden, shape.model);
  engine.gelu_to_bf16(r, z, hidden, shape.tokens * shape.hidden);
  engine.gemm(r, hidden, w2, y, shape.tokens, shape.model, shape.hidden);
}

void mlp_reference_row(const std::vector<bf16>& x, const std::vector<bf16>& w1, const std::vector<bf16>& w2,
                       const MlpShape& shape, std::size_t t, std::vector<double>* y, std::vector<double>* tolerance) {
  const std::size_t D = shape.model, H = shape.hidden;
  std::vector<double> z(H, 0.0), a(H);
  for (std::size_t k = 0; k < D; ++k) {
    const double xv = static_cast<double>(__bfloat162float(x[t * D + k]));
    if (xv == 0.0) continue;
    const bf16* row = &w1[k * H];
    for (std::size_t j = 0; j < H; ++j) z[j] += xv * static_cast<double>(__bfloat162float(row[j]));
  }
  const double scale = 0.7978845608028654, cubic = 0.044715;
  for (std::size_t j = 0; j < H; ++j) {
    const double g = 0.5 * z[j] * (1.0 + std::tanh(scale * (z[j] + cubic * z[j] * z[j] * z[j])));
    a[j] = static_cast<double>(__bfloat162float(__float2bfloat16_rn(static_cast<float>(g))));
  }
  y->assign(D, 0.0);
  std::vector<double> magnitude(D, 0.0);
  for (std::size_t j = 0; j < H; ++j) {
    const bf16* row = &w2[j * D];
    for (std::size_t k = 0; k < D; ++k) {
      const double w = static_cast<double>(__bfloat162float(row[k]));
      (*y)[k] += a[j] * w;
      magnitude[k] += std::fabs(a[j] * w);
    }
  }
  const double factor =
      (std::ldexp(1.0, -7) + static_cast<double>(H + 2) * std::ldexp(1.0, -24)) * (1.0 + std::ldexp(1.0, -7));
  tolerance->resize(D);
  for (std::size_t k = 0; k < D; ++k) (*tolerance)[k] = factor * magnitude[k];
}

}  // namespace p6
