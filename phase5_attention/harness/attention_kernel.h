// SPDX-License-Identifier: MIT
// What the lessons' interface (lesson_support.h, backward_lesson.h) needs from the harness, apart from the
// references: how a kernel computes, and one type for every kind of forward launcher. The exercises
// include it through those headers; the CPU reference and its bounds (reference.h) stay out of them.
#pragma once

#include <cstddef>

#include "phase5_attention/attention.cuh"

namespace p5 {

// How the kernel under test computes. FP32: FP32 inputs and arithmetic (5.01-5.04, 5.06). BF16 (5.05):
// BF16 Q, K and V; S = Q K^T on tensor cores with FP32 accumulation; P rounded to BF16 before P V (its
// row sum l kept in FP32 from the unrounded p, as FlashAttention-2 does); O rounded to BF16 once at the
// end; L in FP32.
enum class AttentionPrecision { FP32, BF16 };

// Any kind of launcher, for code that runs them all (graders, lessons): {on_chip, with_scores} with
// one of the two null, or {decoding, splits}.
struct AttentionKernel {
  AttentionKernel() = default;
  AttentionKernel(AttentionLauncher on_chip_launcher, ScoresAttentionLauncher scores_launcher)
      : on_chip(on_chip_launcher), with_scores(scores_launcher) {}
  AttentionKernel(DecodingAttentionLauncher decoding_launcher, int split_count)
      : decoding(decoding_launcher), splits(split_count) {}

  AttentionLauncher on_chip = nullptr;            // 5.03, 5.04
  ScoresAttentionLauncher with_scores = nullptr;  // 5.01, 5.02: needs the scores workspace
  DecodingAttentionLauncher decoding = nullptr;   // 5.06: needs the partials' workspace
  int splits = 1;                                 // 5.06: the split count it is called with
  // The workspace the call below needs, in floats (0 for the on-chip kernels).
  std::size_t workspace_elements(const AttentionShape& shape) const {
    if (with_scores != nullptr) return attention_scores_elements(shape);
    if (decoding != nullptr) return attention_decoding_workspace_elements(shape, splits);
    return 0;
  }
  void operator()(const float* Q, const float* K, const float* V, float* O, float* L, const AttentionShape& shape,
                  float* workspace, cudaStream_t stream) const {
    if (with_scores != nullptr) {
      with_scores(Q, K, V, O, L, shape, workspace, stream);
    } else if (decoding != nullptr) {
      decoding(Q, K, V, O, L, shape, splits, workspace, stream);
    } else {
      on_chip(Q, K, V, O, L, shape, stream);
    }
  }
};

}  // namespace p5
