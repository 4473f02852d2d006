// SPDX-License-Identifier: MIT
// The FP32 flash kernels' tile loader, shared by 5.03 and 5.04 (given code in both).
#pragma once

#include <cstddef>
#include <cstdint>

namespace p5 {

// Copies rows [first, first + kRowsInTile) of a [rows][D] array into tile[kRowsInTile][D + kPad], with
// kThreads threads; rows past the end are zero (a zero K row gives logit 0, not -inf: the scores must
// still mask it; a zero V row times a probability of 0 adds 0, where leftover data could be NaN). All
// of a thread's loads are issued before any store, so each thread keeps several 16-byte loads in flight
// (2.01). Q, K and V carry no 16-byte alignment promise, so a source that is not aligned takes the
// 4-byte path, and a padding that leaves rows unaligned takes 4-byte stores.
template <int D, int kRowsInTile, int kThreads, int kPad>
__device__ void load_padded_rows(float* tile, const float* src, int first, int rows) {
  constexpr int kVecs = D / 4, kPerThread = kRowsInTile * kVecs / kThreads;
  static_assert(D % 4 == 0 && kRowsInTile * kVecs % kThreads == 0, "whole rounds of float4 loads");
  if (reinterpret_cast<std::uintptr_t>(src) % 16 == 0) {
    float4 buf[kPerThread];
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const int idx = threadIdx.x + i * kThreads, r = idx / kVecs, c = idx % kVecs * 4;
      const float4* from = reinterpret_cast<const float4*>(src + static_cast<std::size_t>(first + r) * D + c);
      buf[i] = first + r < rows ? __ldg(from) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const int idx = threadIdx.x + i * kThreads, r = idx / kVecs, c = idx % kVecs * 4;
      float* to = tile + r * (D + kPad) + c;
      if constexpr ((D + kPad) % 4 == 0) {
        *reinterpret_cast<float4*>(to) = buf[i];
      } else {
        to[0] = buf[i].x, to[1] = buf[i].y, to[2] = buf[i].z, to[3] = buf[i].w;
      }
    }
  } else {
    for (int idx = threadIdx.x; idx < kRowsInTile * D; idx += kThreads) {
      const int r = idx / D, c = idx % D;
      tile[r * (D + kPad) + c] = first + r < rows ? __ldg(src + static_cast<std::size_t>(first + r) * D + c) : 0.0f;
    }
  }
}

}  // namespace p5
