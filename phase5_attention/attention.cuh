// SPDX-License-Identifier: MIT
// Phase 5 launchers: forward scaled dot-product attention, O = softmax(Q K^T / sqrt(d) + mask) V, for
// `heads` independent heads (batch x heads flattened). Row-major FP32 arrays:
//   Q, O  [heads][seq_q][d]      K, V  [heads][seq_k][d]      L  [heads][seq_q]
// L is each row's log-sum-exp of the scaled logits, L = m + log(sum_j exp(s_j - m)) with m = max_j s_j
// (natural log): the one number per row that a backward pass (or a split-K merge) needs to rebuild P.
// Causal: the seq_q queries are the newest seq_q of the seq_k tokens, and each sees every key up to its
// own position: the last seq_q rows of a causal seq_k x seq_k matrix. With seq_q == seq_k (5.01-5.04,
// which take no other causal shape) query i sees keys j <= i; with seq_q < seq_k it is decoding with a
// KV cache (5.06): the newest query sees every cached key. Every launcher takes device pointers, the
// shape and a stream, checks its launches (CUDA_CHECK_KERNEL) and launches nothing when heads or seq_q
// is 0. seq_k >= 1; d is 64 or 128 (std::invalid_argument otherwise). Host code only here: tests
// include it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>

struct AttentionShape {
  int heads = 1;  // batch x heads: independent problems
  int seq_q = 1;  // query rows per head
  int seq_k = 1;  // key (and value) rows per head
  int d = 64;     // head dimension: 64 or 128
  bool causal = false;

  std::size_t q_elements() const { return static_cast<std::size_t>(heads) * seq_q * d; }  // Q and O
  std::size_t k_elements() const { return static_cast<std::size_t>(heads) * seq_k * d; }  // K and V
  std::size_t l_elements() const { return static_cast<std::size_t>(heads) * seq_q; }      // L
  // Multiply-adds of Q K^T and P V counted as 2 FLOP each: 4 seq_q seq_k d per head; causal halves it
  // (the course's convention: the masked half is work a good kernel skips).
  double flop() const;
};

// The softmax scale 1 / sqrt(d), rounded to float once: every kernel and the references use this value.
float attention_scale(int d);

// Throws std::invalid_argument unless d is 64 or 128, counts are >= 0, seq_k >= 1 and causal shapes
// have seq_q == seq_k. Every launcher calls it first.
void validate_attention_shape(const AttentionShape& shape);
// The same, except that a causal shape may have seq_q <= seq_k (decoding): 5.06 and the references.
void validate_decoding_shape(const AttentionShape& shape);
// Keys query row i may see: those up to its own position when causal (above), else seq_k.
int attention_visible_keys(const AttentionShape& shape, int row);

// The workspace of 5.01 and 5.02: the scores (then probabilities) of every head, heads x seq_q x seq_k
// floats. At seq 16384 that is 1 GiB per head: the number the flash kernels exist to avoid.
std::size_t attention_scores_elements(const AttentionShape& shape);

// Launchers that need the scores in global memory (5.01, 5.02): `workspace` holds at least
// attention_scores_elements(shape) floats; its contents on entry do not matter.
using ScoresAttentionLauncher = void (*)(const float* Q, const float* K, const float* V, float* O, float* L,
                                         const AttentionShape& shape, float* workspace, cudaStream_t stream);
// Launchers that keep everything on chip (5.03, 5.04).
using AttentionLauncher = void (*)(const float* Q, const float* K, const float* V, float* O, float* L,
                                   const AttentionShape& shape, cudaStream_t stream);
// Launchers that split the keys and merge partial results (5.06): `workspace` holds at least
// attention_decoding_workspace_elements(shape, splits) floats, starts 16-byte aligned (the tests and the
// lesson pass cudaMalloc's 256-byte alignment), and its contents on entry do not matter.
using DecodingAttentionLauncher = void (*)(const float* Q, const float* K, const float* V, float* O, float* L,
                                           const AttentionShape& shape, int splits, float* workspace,
                                           cudaStream_t stream);

// ---- 5.01 naive ---------------------------------------------------------------------------------
// Three kernels: S = Q K^T * scale (masked entries -inf), a row softmax in place (S becomes P, and L is
// written), O = P V.
void attention_naive(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape,
                     float* workspace, cudaStream_t stream);

// ---- 5.02 cublas --------------------------------------------------------------------------------
// S = scale Q K^T and O = P V with cublasGemmStridedBatchedEx (FP32, default math: no TF32), a masked
// row softmax kernel (writing L) between them. The phase's yardstick: lessons report "x of 5.02".
void attention_cublas(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape,
                      float* workspace, cudaStream_t stream);

// ---- 5.03 flash_fp32 ----------------------------------------------------------------------------
// One block per (query tile, head); K and V tiles streamed through shared memory; a running max and
// sum per row; nothing of size seq_q x seq_k stored. Not causal: a causal shape throws
// std::invalid_argument (5.04 adds the mask).
void attention_flash_fp32(const float* Q, const float* K, const float* V, float* O, float* L,
                          const AttentionShape& shape, cudaStream_t stream);

// ---- 5.04 flash_causal --------------------------------------------------------------------------
// 5.03 with the causal mask: tiles above the diagonal skipped, the diagonal tile masked, the longest
// query tiles scheduled first. Non-causal shapes work too (no tile is skipped).
void attention_flash_causal(const float* Q, const float* K, const float* V, float* O, float* L,
                            const AttentionShape& shape, cudaStream_t stream);

// ---- 5.05 flash_tensor_cores --------------------------------------------------------------------
// BF16 Q, K, V (the same [heads][seq][d] layout), FP32 accumulation on mma.sync m16n8k16, O written in
// BF16 (rounded once from the FP32 result), L in FP32. The FlashAttention-2 work split: each warp owns
// 16-row slices of the query tile, so a row's max and sum never leave its warp; S = Q K^T and O += P V
// both on tensor cores, P re-used from the S accumulators as the A operand of the second product. K
// and V tiles double-buffered with cp.async. Causal and non-causal; d 64 or 128; Q, K, V 16-byte
// aligned, as cudaMalloc returns them.
using Bf16AttentionLauncher = void (*)(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                       __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream);
void attention_flash_tensor_cores(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                  __nv_bfloat16* O, float* L, const AttentionShape& shape, cudaStream_t stream);

// ---- 5.06 flash_decoding ------------------------------------------------------------------------
// A few query rows (decoding: usually 1) against a long KV cache. The keys of each head are cut into
// `splits` ranges; one warp per (head, group of up to 8 query rows, split) reads its range once with
// 16-byte loads and writes the range's partial softmax (max m, sum l, unnormalized output); a second
// kernel merges each row's partials with 2.08's online-softmax merge into O and L. Causal shapes may
// have seq_q <= seq_k (validate_decoding_shape). splits >= 1 (std::invalid_argument otherwise); with
// more splits than keys some ranges are empty. Q, K, V 16-byte aligned, as cudaMalloc returns them.
void attention_flash_decoding(const float* Q, const float* K, const float* V, float* O, float* L,
                              const AttentionShape& shape, int splits, float* workspace, cudaStream_t stream);

// The partials of 5.06: (d + 2) floats for every (head, query row, split), heads x seq_q x splits x
// (d + 2) floats: 16.6 KB per split at 32 heads, 1 query and d 128, against 1 GiB of K and V.
std::size_t attention_decoding_workspace_elements(const AttentionShape& shape, int splits);

// 5.06's split count for `shape` on a GPU with `sm_count` multiprocessors: enough warps to keep every
// SM's loads in flight, without splits so short that the partials cost more than they save. The lesson
// and the benchmark pass the device's SM count; the launcher takes whatever count it is given.
int attention_decoding_splits(const AttentionShape& shape, int sm_count);

// ---- 5.07 flash_backward ------------------------------------------------------------------------
// The gradients of 5.05's attention: given BF16 Q, K, V, O (5.05's output) and dO = dLoss/dO (the
// [heads][seq][d] layout), and 5.05's L (FP32), writes BF16 dQ, dK and dV. P = exp(scale Q K^T - L) is
// recomputed tile by tile (nothing of size seq_q x seq_k is stored); D = rowsum(dO o O) per query row;
// dV = P^T dO, dS = P o (dO V^T - D), dQ = scale dS K, dK = scale dS^T Q (Dao 2023, Algorithm 2).
// `workspace`: attention_backward_workspace_elements(shape) floats of FP32 scratch for the launcher's
// own use; its contents on entry do not matter. Causal (seq_q == seq_k) and non-causal (any seq_q, seq_k >= 1);
// d 64 or 128; seq_q = 0 writes zero dK and dV. Q, K, V, O, dO 16-byte aligned, as cudaMalloc returns them.
using Bf16AttentionBackwardLauncher = void (*)(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                                               const __nv_bfloat16* O, const __nv_bfloat16* dO, const float* L,
                                               __nv_bfloat16* dQ, __nv_bfloat16* dK, __nv_bfloat16* dV,
                                               const AttentionShape& shape, float* workspace, cudaStream_t stream);
void attention_flash_backward(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V,
                              const __nv_bfloat16* O, const __nv_bfloat16* dO, const float* L, __nv_bfloat16* dQ,
                              __nv_bfloat16* dK, __nv_bfloat16* dV, const AttentionShape& shape, float* workspace,
                              cudaStream_t stream);
// The size of attention_flash_backward's FP32 workspace, in floats: heads x seq_q x (d + 1).
// The lesson and the tests allocate it and never read it back: whether and how the launcher uses it
// is 5.07's decision.
std::size_t attention_backward_workspace_elements(const AttentionShape& shape);
// The backward's FLOP as the course counts them: the five products S = Q K^T, dP = dO V^T, dV = P^T dO,
// dQ = dS K and dK = dS^T Q, 2.5 times the forward's 4 seq_q seq_k d per head (halved when causal). The
// recomputation of S is counted, as FlashAttention-2's paper and PyTorch's benchmarks count it.
double attention_backward_flop(const AttentionShape& shape);

// ---- 5.08 flash_hopper --------------------------------------------------------------------------
// 5.05's contract (BF16 Q, K, V and O, FP32 L, causal or not, d 64 or 128, any seq_q and seq_k) on
// Hopper's machinery (sm_90a only): a producer warpgroup loads Q once and K and V tile by tile with
// TMA into a ring of stages guarded by mbarriers; two consumer warpgroups run S = Q K^T and O += P V on
// wgmma (P from registers), one warpgroup's softmax overlapping the other's products (ping-pong);
// O leaves through shared memory and a TMA store. Q, K, V and O 16-byte aligned, as cudaMalloc
// returns them (std::invalid_argument otherwise).
void attention_flash_hopper(const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O,
                            float* L, const AttentionShape& shape, cudaStream_t stream);
