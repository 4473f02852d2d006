// SPDX-License-Identifier: MIT
// Phase 2 launchers: memory-bound kernels (activations, fusion, normalization, softmax). Device
// pointers, sizes and a stream; each launcher enqueues its kernel(s), checks the launch
// (CUDA_CHECK_KERNEL) and launches nothing for empty inputs. Matrices are row-major, rows x cols.
// Host code only here: tests include it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

// ---- 2.01 relu ----------------------------------------------------------------------------------
// out[i] = max(in[i], 0). NaN stays NaN; -0.0f may become +0.0f.
void relu(const float* in, float* out, std::size_t n, cudaStream_t stream);

// ---- 2.02 gelu ----------------------------------------------------------------------------------
// The tanh approximation: out = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), with its limits at
// the infinities: gelu(-inf) = 0 (either sign of zero; the formula as written gives -inf * 0 = NaN),
// gelu(+inf) = +inf. NaN stays NaN. The same for every GELU of this phase (2.03, 2.04).
void gelu_tanh(const float* in, float* out, std::size_t n, cudaStream_t stream);

// ---- 2.03 vectorized ----------------------------------------------------------------------------
// relu and gelu_tanh with 16-byte float4 loads and stores. Any n, and any float-aligned in and out
// (in + 1 is legal): scalar head and tail elements around the aligned float4 body, and a scalar path
// when in and out are misaligned differently.
void relu_float4(const float* in, float* out, std::size_t n, cudaStream_t stream);
void gelu_tanh_float4(const float* in, float* out, std::size_t n, cudaStream_t stream);

// ---- 2.04 fused_bias_gelu -----------------------------------------------------------------------
// The unfused pair: out = in + bias (bias[c] broadcast down each column), then gelu_tanh.
void add_bias(const float* in, const float* bias, float* out, int rows, int cols, cudaStream_t stream);
// out[r][c] = gelu_tanh(in[r][c] + bias[c]) in one pass (float4 where rows allow it).
void bias_gelu_fused(const float* in, const float* bias, float* out, int rows, int cols, cudaStream_t stream);

// ---- 2.05 / 2.06 rmsnorm ------------------------------------------------------------------------
using RmsnormLauncher = void (*)(const float* in, const float* weight, float* out, int rows, int cols, float eps,
                                 cudaStream_t stream);
// out[r][c] = in[r][c] / sqrt(mean over c of in[r][c]^2 + eps) * weight[c].
// 2.05: one block per row, a shared-memory reduction of the sum of squares.
void rmsnorm_block(const float* in, const float* weight, float* out, int rows, int cols, float eps,
                   cudaStream_t stream);
// 2.06: one warp per row, a shuffle reduction.
void rmsnorm_warp(const float* in, const float* weight, float* out, int rows, int cols, float eps, cudaStream_t stream);

// ---- 2.07 / 2.08 / 2.09 softmax -----------------------------------------------------------------
using SoftmaxLauncher = void (*)(const float* in, float* out, int rows, int cols, cudaStream_t stream);
// out[r][c] = exp(in[r][c] - max_r) / sum over c of exp(in[r][c] - max_r), stable for any finite
// values (1000 and -1000 mixed); -inf entries give 0. Every row holds at least one finite value.
// 2.07: three passes over the row (max, sum of exp, normalize).
void softmax_three_pass(const float* in, float* out, int rows, int cols, cudaStream_t stream);
// 2.08: two passes, the first keeping a running max and a rescaled running sum (online softmax).
void softmax_online(const float* in, float* out, int rows, int cols, cudaStream_t stream);
// 2.09: one read of the row, kept in registers when it fits; a fallback otherwise.
void softmax_single_read(const float* in, float* out, int rows, int cols, cudaStream_t stream);

// ---- 2.10 layernorm -----------------------------------------------------------------------------
using LayernormLauncher = void (*)(const float* x, const float* gamma, const float* beta, float* y, float* mean,
                                   float* rstd, int rows, int cols, float eps, cudaStream_t stream);
// LayerNorm forward over the last dimension, as torch.nn.functional.layer_norm(x, (cols,), gamma, beta, eps):
//   y[r][c] = (x[r][c] - mean[r]) * rstd[r] * gamma[c] + beta[c],  rstd[r] = 1 / sqrt(var[r] + eps),
// var the population variance (the mean of (x - mean)^2: divide by cols, not cols - 1). mean and rstd
// (rows floats each) are written too, as PyTorch's native layer norm does for the backward pass.
// Any rows >= 0 (0 launches nothing), any cols >= 1 (32768 and beyond), x, gamma, beta and y at any
// float-aligned address; x is read once. Inputs are finite (rows with inf or NaN are not required),
// eps > 0. The statistics must survive a mean far larger than the spread (1e4 + noise of std 1): no
// E[x^2] - E[x]^2 in float. A constant row (variance 0) gives mean = its value, rstd = 1 / sqrt(eps)
// and y = beta exactly (the tests' constant values, such as 0.75, keep every partial sum exact).
void layernorm_forward(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                       int rows, int cols, float eps, cudaStream_t stream);
