// SPDX-License-Identifier: MIT
// 5.01 naive: attention as three kernels, with the seq x seq matrix of scores in global memory.
//
// You learn: what attention computes (each query row takes a softmax-weighted average of the value
// rows, weighted by how well it matches each key), where the causal mask goes (a logit of -inf is a
// probability of 0), why every row also returns its log-sum-exp L, and what it costs to write the
// scores out: heads x seq x seq floats, 1 GiB per head at seq 16384.
// Task: write the three kernels: the scaled, masked scores; the row softmax that also writes L (2.07's
// idea, one block per row); and O = P V.
// Source: Vaswani et al., "Attention Is All You Need" (2017), scaled dot-product attention; its softmax is
// max, sum of exp and normalize (2.07).
// Run:   ./workbook run 5.01 [-- --size 16x4096x64]
// Check: ./workbook check 5.01
// Aim:   correct first; it runs at ~2% of the FP32 peak, 0.04-0.08x of 5.02 on an H100.
// Previous: 4.09 spmm. Next: 5.02 cublas.

#include <cmath>
#include <cstdio>

#include "common/workbook.h"
#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/lesson_support.h"

namespace {

constexpr int kTile = 16;             // scores: a 16 x 16 block of (query, key) pairs
constexpr int kSoftmaxThreads = 256;  // softmax: 8 warps per row

// ---- kernels ----------------------------------------------------------------------------------------

// One thread per score: thread (x, y) of block (bx, by, head) computes S[head][i][j] for key
// j = bx * 16 + x and query i = by * 16 + y. Each thread reads a whole row of Q and of K (d floats) from
// global memory: 2d loads for d multiply-adds. That ratio is why this is slow; 5.03 shares the rows.
// The scale 1 / sqrt(d) keeps the logits' spread independent of d (a dot product of d random terms
// grows like sqrt(d)), so the softmax neither saturates nor flattens as d changes.
__global__ void attention_scores_kernel(const float* __restrict__ Q, const float* __restrict__ K, float* __restrict__ S,
                                        int seq_q, int seq_k, int d, float scale, bool causal) {
  const int j = blockIdx.x * kTile + threadIdx.x;
  const int i = blockIdx.y * kTile + threadIdx.y;
  if (i >= seq_q || j >= seq_k) return;
  // Head blockIdx.z's rows start head * rows * d floats in: compute offsets in std::size_t (heads x
  // seq x seq reaches 2^31 at seq 16384 with 8 heads; one head more and an int index overflows).
  // A masked key (causal, j > i) must end with probability exactly 0: store a logit the softmax turns
  // into 0 whatever the other logits are, and do not bother with its dot product.
  // TODO(5.01): store in S[head][i][j] the scaled dot product of query row i and key row j of head
  //             blockIdx.z, or the masked value when the key is hidden from this query (about 9 lines).
  (void)Q, (void)K, (void)S, (void)d, (void)scale, (void)causal;  // TODO(5.01): delete once used
}

// One block per row of S (blockIdx.x = head * seq_q + i), in place: the logits become probabilities.
// Three passes over the row, as in 2.07: its max m, the sum l of exp(s - m), then exp(s - m) / l. The
// max keeps every exp at most 1: logits of 1e4 would overflow expf (above 88.7) without it. A logit of
// -inf gives exp(-inf - m) = 0, so masked keys need no special case here (every row has key 0 visible,
// so m is finite). The row also leaves L = m + log(l) behind: log(sum_j exp(s_j)) computed without
// overflow, the one number per row a backward pass needs to rebuild P without storing it.
// block_max and block_sum give every thread of the block the max (or sum) of one value per thread;
// `scratch` is one float per warp in shared memory. (Templates, so any float type can use them.)
template <typename T>
__device__ T block_max(T v, T* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();  // every warp's max is in scratch
  v = scratch[0];
  for (int w = 1; w < kSoftmaxThreads / 32; ++w) v = fmaxf(v, scratch[w]);
  __syncthreads();  // read before scratch is reused
  return v;
}

template <typename T>
__device__ T block_sum(T v, T* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();  // every warp's sum is in scratch
  v = scratch[0];
  for (int w = 1; w < kSoftmaxThreads / 32; ++w) v += scratch[w];
  __syncthreads();  // read before scratch is reused
  return v;
}

__global__ void attention_softmax_kernel(float* __restrict__ S, float* __restrict__ L, int seq_k) {
  // TODO(5.01): turn row blockIdx.x of S (seq_k floats) into its softmax in place and write
  //             L[row] = m + log(l), natural log; threads stride over the row, and block_max and
  //             block_sum combine their values (about 12 lines).
  (void)S, (void)L, (void)seq_k;  // TODO(5.01): delete once used
}

// One thread per output: thread (x, y) of block (bx, by, head) computes O[head][i][c] for column
// c = bx * 16 + x and query i = by * 16 + y. Neighbouring threads take neighbouring columns, so a warp
// reads neighbouring floats of each V row (coalesced) while they all read the same P entry (broadcast).
__global__ void attention_pv_kernel(const float* __restrict__ P, const float* __restrict__ V, float* __restrict__ O,
                                    int seq_q, int seq_k, int d) {
  const int c = blockIdx.x * kTile + threadIdx.x;
  const int i = blockIdx.y * kTile + threadIdx.y;
  if (i >= seq_q || c >= d) return;
  // TODO(5.01): O[head][i][c] = the sum over keys j of P[head][i][j] times V[head][j][c], head being
  //             blockIdx.z (about 6 lines).
  (void)P, (void)V, (void)O, (void)seq_k;  // TODO(5.01): delete once used
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void attention_naive(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape,
                     float* workspace, cudaStream_t stream) {
  validate_attention_shape(shape);
  if (shape.heads == 0 || shape.seq_q == 0) return;
  const unsigned heads = static_cast<unsigned>(shape.heads);  // gridDim.z: up to 65535 heads
  const unsigned query_blocks = wb::ceil_div(static_cast<unsigned>(shape.seq_q), unsigned(kTile));
  const dim3 block(kTile, kTile);
  const dim3 scores_grid(wb::ceil_div(static_cast<unsigned>(shape.seq_k), unsigned(kTile)), query_blocks, heads);
  attention_scores_kernel<<<scores_grid, block, 0, stream>>>(Q, K, workspace, shape.seq_q, shape.seq_k, shape.d,
                                                             attention_scale(shape.d), shape.causal);
  CUDA_CHECK_KERNEL();
  const unsigned rows = static_cast<unsigned>(shape.heads) * static_cast<unsigned>(shape.seq_q);
  attention_softmax_kernel<<<rows, kSoftmaxThreads, 0, stream>>>(workspace, L, shape.seq_k);
  CUDA_CHECK_KERNEL();
  const dim3 pv_grid(wb::ceil_div(static_cast<unsigned>(shape.d), unsigned(kTile)), query_blocks, heads);
  attention_pv_kernel<<<pv_grid, block, 0, stream>>>(workspace, V, O, shape.seq_q, shape.seq_k, shape.d);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: per head, Q K^T and P V are 2 seq^2 d multiply-adds each: 4 seq^2 d FLOP, 4.3 GFLOP at
// seq 4096, d 64. The scores are seq^2 floats, 64 MiB per head at 4096, written by the first kernel,
// read and rewritten by the softmax and read by P V: 256 MiB of traffic per head against 4 MiB for
// Q, K, V and O. At seq 16384 the scores alone take 1 GiB per head: 16 heads need 16 GiB before a
// single output is written, and a batch of long sequences does not fit at all.
int naive_lesson(wb::Lesson& lesson) {
  const int status = p5::run_attention_lesson(lesson, "attention_naive", {nullptr, attention_naive}, false);
  if (!lesson.options().csv) {
    AttentionShape big;
    big.heads = 16;
    big.seq_q = big.seq_k = 16384;
    std::printf(
        "      the scores at seq 16384: %.1f GiB per head, %.0f GiB for 16 heads, in global memory, and\n"
        "      moved 4 times (written, read and rewritten by the softmax, read by P V): 5.03 stores none\n",
        4.0 * attention_scores_elements(big) / big.heads / wb::GiB, 4.0 * attention_scores_elements(big) / wb::GiB);
  }
  return status;
}

}  // namespace

WB_LESSON(naive_lesson, "attention as three kernels, the seq x seq scores in global memory");
