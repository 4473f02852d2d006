// SPDX-License-Identifier: MIT
// 6.05's given machinery: the MLP's shapes, a BF16 GEMM with FP32 accumulation (cuBLAS) and the GELU
// (tanh form, phase 2's) on each rank's stream, the whole MLP on one GPU (the yardstick), random weights
// made on the GPU, and the host reference with its tolerance.
// Given code, no exercise's answer: read it, use it.
#pragma once

#include <cublas_v2.h>
#include <cuda_bf16.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "phase6_multi_gpu/harness/ranks.h"

namespace p6 {

using bf16 = __nv_bfloat16;

// Y (tokens x model) = GELU(X (tokens x model) W1 (model x hidden)) W2 (hidden x model); row-major.
struct MlpShape {
  std::size_t tokens = 0, model = 0, hidden = 0;
  std::string describe() const;  // "8192x8192x32768"
  double flops() const { return 4.0 * static_cast<double>(tokens) * model * hidden; }
};

// Per rank: a cuBLAS handle on its stream and an FP32 scratch for the first GEMM's result.
class MlpEngine {
 public:
  explicit MlpEngine(const RankGroup& group);
  ~MlpEngine();
  MlpEngine(const MlpEngine&) = delete;
  MlpEngine& operator=(const MlpEngine&) = delete;
  const RankGroup& group() const { return group_; }
  // c (m x n, FP32) = a (m x k, BF16) b (k x n, BF16), row-major, FP32 accumulation, on rank r's stream.
  void gemm(int r, const bf16* a, const bf16* b, float* c, std::size_t m, std::size_t n, std::size_t k) const;
  // out[i] = BF16(gelu_tanh(in[i])), round to nearest, on rank r's stream.
  void gelu_to_bf16(int r, const float* in, bf16* out, std::size_t count) const;
  // Rank r's FP32 scratch of at least `floats` (grown on demand: call it before enqueueing work that uses it).
  float* scratch(int r, std::size_t floats);

 private:
  const RankGroup& group_;
  std::vector<cublasHandle_t> handles_;
  std::vector<float*> scratch_;
  std::vector<std::size_t> scratch_floats_;
};

// The whole MLP on rank r of the engine (one GPU), full weights: y = GELU(x w1) w2, the hidden activation
// rounded to BF16 in `hidden` (tokens x hidden). Enqueues on rank r's stream.
void mlp_one_gpu(MlpEngine& engine, int r, const bf16* x, const bf16* w1, const bf16* w2, bf16* hidden, float* y,
                 const MlpShape& shape);

// count uniform values in [-scale, scale], rounded to BF16, from the seed (on the GPU of `stream`).
void fill_uniform_bf16(bf16* data, std::size_t count, std::uint64_t seed, float scale, cudaStream_t stream);

// The reference of row t of Y (FP64 GEMMs, GELU in FP64, the hidden activation rounded to BF16 as the GPU
// does) and each element's tolerance: (2^-7 + (hidden + 2) 2^-24) (1 + 2^-7) sum_j |a_j w2_jk| (the phase
// README derives it). x, w1, w2 row-major on the host.
void mlp_reference_row(const std::vector<bf16>& x, const std::vector<bf16>& w1, const std::vector<bf16>& w2,
                       const MlpShape& shape, std::size_t t, std::vector<double>* y, std::vector<double>* tolerance);

}  // namespace p6
