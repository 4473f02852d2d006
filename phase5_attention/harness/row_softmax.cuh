// SPDX-License-Identifier: MIT
// Holds 5.01's answer (the row softmax and L): solve 5.01 first.
// The masked row softmax of the unfused paths (given in 5.02, used by the cuBLAS reference): one block
// per row of the scores, in place (S becomes P), L written, keys j > i of a causal row left out. It is
// 5.01's softmax kernel with the mask applied as it reads, since cuBLAS computes every logit. The kernel
// takes the mask as a type (`visible(i)`: how many keys row i sees), so this file states 5.02's mask
// only; the cuBLAS reference (reference_gpu.cu) passes its own for the other causal shapes.
// Device code: include it only from .cu files. Everything is in an anonymous namespace, so each file
// that includes it gets its own kernel.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>

#include "common/check.h"
#include "phase5_attention/attention.cuh"

namespace {

constexpr int kRowSoftmaxThreads = 256;

// The block's reduction of one value per thread, returned to every thread. `Op` combines two values;
// `scratch` holds one value per warp. The trailing barrier lets the caller reuse scratch at once.
template <typename Op>
__device__ float row_block_reduce(float v, float* scratch, Op op) {
  for (int offset = 16; offset > 0; offset /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) scratch[warp] = v;
  __syncthreads();  // every warp's value is in scratch
  v = scratch[0];
  for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w) v = op(v, scratch[w]);
  __syncthreads();  // everyone has read scratch before it is written again
  return v;
}

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// The mask of the shapes validate_attention_shape accepts (5.02's): a causal row i sees keys j <= i
// (seq_q == seq_k), any other row all seq_k keys.
struct SquareCausalMask {
  int seq_k;
  bool causal;
  __device__ int operator()(int i) const { return causal ? i + 1 : seq_k; }
};

// blockIdx.x is the row of all heads' scores (head * seq_q + i). Three passes over the row (max, sum,
// write); the row (seq_k floats) stays in L1/L2 between them. `visible(i)` (at least 1, at most seq_k)
// is the number of keys row i sees: keys 0 .. visible(i) - 1.
template <typename Mask>
__global__ void masked_row_softmax_kernel(float* __restrict__ S, float* __restrict__ L, int seq_q, int seq_k,
                                          Mask visible_keys) {
  __shared__ float scratch[kRowSoftmaxThreads / 32];
  const std::size_t row = blockIdx.x;
  const int i = static_cast<int>(row % static_cast<std::size_t>(seq_q));
  const int visible = visible_keys(i);
  float* s = S + row * static_cast<std::size_t>(seq_k);
  float m = -INFINITY;
  for (int j = threadIdx.x; j < visible; j += blockDim.x) m = fmaxf(m, s[j]);
  m = row_block_reduce(m, scratch, MaxOp{});
  float sum = 0.0f;
  for (int j = threadIdx.x; j < visible; j += blockDim.x) sum += expf(s[j] - m);
  sum = row_block_reduce(sum, scratch, SumOp{});
  const float inv = 1.0f / sum;
  // Masked keys get probability 0, so P V may run over the whole row.
  for (int j = threadIdx.x; j < seq_k; j += blockDim.x) s[j] = j < visible ? expf(s[j] - m) * inv : 0.0f;
  if (threadIdx.x == 0) L[row] = m + logf(sum);
}

// Launches the softmax over every row of `scores` (heads x seq_q rows of seq_k floats) under `mask`.
template <typename Mask>
void masked_row_softmax_with(float* scores, float* L, const AttentionShape& shape, Mask mask, cudaStream_t stream) {
  const std::size_t rows = static_cast<std::size_t>(shape.heads) * shape.seq_q;
  if (rows == 0) return;
  masked_row_softmax_kernel<<<static_cast<unsigned>(rows), kRowSoftmaxThreads, 0, stream>>>(scores, L, shape.seq_q,
                                                                                            shape.seq_k, mask);
  CUDA_CHECK_KERNEL();
}

// 5.02's softmax: the shapes validate_attention_shape accepts (it checks them first).
inline void masked_row_softmax(float* scores, float* L, const AttentionShape& shape, cudaStream_t stream) {
  validate_attention_shape(shape);
  masked_row_softmax_with(scores, L, shape, SquareCausalMask{shape.seq_k, shape.causal}, stream);
}

}  // namespace
