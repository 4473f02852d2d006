// SPDX-License-Identifier: MIT
#include <cuda_bf16.h>

#include <cmath>

#include "common/check.h"
#include "common/util.h"
#include "phase5_attention/tests/backward_wrong_kernels.h"

namespace {

enum class Bug { None, DFromO, NoPFactor, DqPlainStore, NoMask, DkWithoutScale, DropsQueryTail, NoSyncwarp };

constexpr int kKeys = 32;  // keys per block: one warp, one lane per key
constexpr int kMaxD = 128;

__device__ float at(const __nv_bfloat16* x, std::size_t i) {
  return __bfloat162float(x[i]);
}

template <Bug B>
__global__ void planted_prologue(const __nv_bfloat16* O, const __nv_bfloat16* dO, float* dq_acc, float* Dsum,
                                 std::size_t rows, int d) {
  const std::size_t row = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int c = 0; c < d; ++c) {
    sum += B == Bug::DFromO ? at(O, row * d + c) : at(dO, row * d + c) * at(O, row * d + c);
    dq_acc[row * d + c] = 0.0f;
  }
  Dsum[row] = sum;
}

template <Bug B>
__global__ void planted_backward_kernel(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                        const __nv_bfloat16* dO, const float* L, const float* Dsum, float* dq_acc,
                                        __nv_bfloat16* dK, __nv_bfloat16* dV, int seq_q, int seq_k, int d, bool causal,
                                        float scale) {
  __shared__ float k_s[kKeys][kMaxD];
  __shared__ float ds_s[kKeys];
  const int lane = threadIdx.x, head = blockIdx.y, key = blockIdx.x * kKeys + lane;
  const std::size_t qb = static_cast<std::size_t>(head) * seq_q, kb = static_cast<std::size_t>(head) * seq_k;
  for (int c = 0; c < d; ++c) k_s[lane][c] = key < seq_k ? at(K, (kb + key) * d + c) : 0.0f;
  __syncwarp();
  float dk[kMaxD], dv[kMaxD];
  for (int c = 0; c < d; ++c) dk[c] = dv[c] = 0.0f;
  const int queries = B == Bug::DropsQueryTail ? seq_q / kKeys * kKeys : seq_q;
  for (int i = 0; i < queries; ++i) {
    const bool visible = key < seq_k && (!causal || B == Bug::NoMask || key <= i);
    float s = 0.0f, dp = 0.0f;
    for (int c = 0; c < d; ++c) {
      s += at(Q, (qb + i) * d + c) * k_s[lane][c];
      dp += at(dO, (qb + i) * d + c) * (key < seq_k ? at(V, (kb + key) * d + c) : 0.0f);
    }
    const float p = visible ? expf(s * scale - L[qb + i]) : 0.0f;
    const float ds = B == Bug::NoPFactor ? (visible ? dp - Dsum[qb + i] : 0.0f) : p * (dp - Dsum[qb + i]);
    for (int c = 0; c < d; ++c) {
      dv[c] += p * at(dO, (qb + i) * d + c);
      dk[c] += ds * at(Q, (qb + i) * d + c);
    }
    ds_s[lane] = ds;
    if (B != Bug::NoSyncwarp) __syncwarp();  // every lane's dS is in ds_s
    for (int c = lane; c < d; c += kKeys) {
      float acc = 0.0f;
      for (int j = 0; j < kKeys; ++j) acc += ds_s[j] * k_s[j][c];
      if (B == Bug::DqPlainStore) {
        dq_acc[(qb + i) * d + c] = acc;
      } else {
        atomicAdd(&dq_acc[(qb + i) * d + c], acc);
      }
    }
    if (B != Bug::NoSyncwarp) __syncwarp();  // ds_s read by everyone before the next query overwrites it
  }
  if (key >= seq_k) return;
  const float dk_scale = B == Bug::DkWithoutScale ? 1.0f : scale;
  for (int c = 0; c < d; ++c) {
    dK[(kb + key) * d + c] = __float2bfloat16_rn(dk[c] * dk_scale);
    dV[(kb + key) * d + c] = __float2bfloat16_rn(dv[c]);
  }
}

__global__ void planted_epilogue(const float* dq_acc, __nv_bfloat16* dQ, std::size_t n, float scale) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) dQ[i] = __float2bfloat16_rn(dq_acc[i] * scale);
}

template <Bug B>
void planted_backward(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const __nv_bfloat16* O,
                      const __nv_bfloat16* dO, const float* L, __nv_bfloat16* dQ, __nv_bfloat16* dK, __nv_bfloat16* dV,
                      const AttentionShape& shape, float* workspace, cudaStream_t stream) {
  validate_attention_shape(shape);
  if (shape.heads == 0 || shape.seq_q == 0) return;
  const std::size_t rows = shape.l_elements(), n = shape.q_elements();
  float* dq_acc = workspace;
  float* Dsum = workspace + n;
  planted_prologue<B><<<static_cast<unsigned>(wb::ceil_div(rows, std::size_t(128))), 128, 0, stream>>>(
      O, dO, dq_acc, Dsum, rows, shape.d);
  CUDA_CHECK_KERNEL();
  const dim3 grid(static_cast<unsigned>(wb::ceil_div(shape.seq_k, kKeys)), static_cast<unsigned>(shape.heads));
  planted_backward_kernel<B><<<grid, kKeys, 0, stream>>>(Q, K, V, dO, L, Dsum, dq_acc, dK, dV, shape.seq_q, shape.seq_k,
                                                         shape.d, shape.causal, attention_scale(shape.d));
  CUDA_CHECK_KERNEL();
  planted_epilogue<<<static_cast<unsigned>(wb::ceil_div(n, std::size_t(256))), 256, 0, stream>>>(
      dq_acc, dQ, n, attention_scale(shape.d));
  CUDA_CHECK_KERNEL();
}

}  // namespace

#define P5_DEFINE_PLANTED(name, bug)                                                                          \
  void name(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, const __nv_bfloat16* O,   \
            const __nv_bfloat16* dO, const float* L, __nv_bfloat16* dQ, __nv_bfloat16* dK, __nv_bfloat16* dV, \
            const AttentionShape& shape, float* workspace, cudaStream_t stream) {                             \
    planted_backward<bug>(Q, K, V, O, dO, L, dQ, dK, dV, shape, workspace, stream);                           \
  }

P5_DEFINE_PLANTED(planted_backward_correct, Bug::None)
P5_DEFINE_PLANTED(planted_backward_d_from_o, Bug::DFromO)
P5_DEFINE_PLANTED(planted_backward_no_p_factor, Bug::NoPFactor)
P5_DEFINE_PLANTED(planted_backward_dq_plain_store, Bug::DqPlainStore)
P5_DEFINE_PLANTED(planted_backward_no_mask, Bug::NoMask)
P5_DEFINE_PLANTED(planted_backward_dk_without_scale, Bug::DkWithoutScale)
P5_DEFINE_PLANTED(planted_backward_drops_query_tail, Bug::DropsQueryTail)
P5_DEFINE_PLANTED(planted_backward_no_syncwarp, Bug::NoSyncwarp)
