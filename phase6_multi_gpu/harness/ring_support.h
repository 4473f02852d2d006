// SPDX-License-Identifier: MIT
// 6.06's given pieces: the shape of attention over a sequence sharded across the ranks, which rows each
// rank holds, and RingKV: per rank a double buffer for the K/V blocks travelling around the ring, the
// running softmax state of its queries, a copy stream, and the copy itself. Given code, no exercise's
// answer: read it, use it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "phase6_multi_gpu/harness/ranks.h"

namespace p6 {

// Attention softmax(Q K^T / sqrt(d)) V over one sequence of `seq` tokens per head, FP32. Non-causal, or
// causal (token i sees tokens 0 .. i).
struct RingAttentionShape {
  int heads = 1;
  int seq = 1;
  int d = 64;  // 64 or 128
  bool causal = false;
};
// Throws std::invalid_argument unless 1 <= heads <= 65535, 1 <= seq <= 2^20, d is 64 or 128, and heads x seq x d
// fits in 2^31 floats.
void validate_ring_shape(const RingAttentionShape& shape);

// The sequence cut into n shards of ring_chunk(seq, n) = ceil(seq / n) tokens: rank r holds tokens
// [ring_begin(r), ring_begin(r) + ring_rows(r)): its queries, keys and values. The last ranks may hold
// fewer tokens, or none (seq < n). Rank r's Q, K, V and O are heads x ring_rows(r) x d floats (head-major,
// then token, then dimension), its L heads x ring_rows(r).
int ring_chunk(int seq, int n);
int ring_begin(int r, int n, int seq);
int ring_rows(int r, int n, int seq);

// What a ring attention call needs besides its inputs and outputs, made once for a group and a shape.
class RingKV {
 public:
  static constexpr int kEventsPerRank = 64;
  RingKV(const RankGroup& group, const RingAttentionShape& shape);
  ~RingKV();  // waits for its streams first
  RingKV(const RingKV&) = delete;
  RingKV& operator=(const RingKV&) = delete;

  const RingAttentionShape& shape() const { return shape_; }
  // Rank r's receive buffers, slot 0 or 1: room for one rank's K (and V) block, heads x chunk x d floats.
  float* k(int r, int slot) const;
  float* v(int r, int slot) const;
  // Rank r's running softmax state for each of its query rows: the row max m and the row sum l
  // (heads x chunk floats each) and the unnormalized output (heads x chunk x d floats).
  float* m(int r) const;
  float* l(int r) const;
  float* acc(int r) const;
  // Rank r's copy stream (on its device) and its events (no timing): record them on copy_stream(r) only.
  cudaStream_t copy_stream(int r) const;
  cudaEvent_t event(int r, int slot) const;

  // Enqueues on copy_stream(from) the copy of one block (`floats` floats of K from k_src and of V from
  // v_src, both on rank from's device) into rank `to`'s slot: a peer copy between real GPUs. Returns
  // without waiting; what the copy stream must wait for first is the caller's to enqueue.
  void send(int from, const float* k_src, const float* v_src, std::size_t floats, int to, int slot);

  // For graders: every send() first holds the copy stream `ms` milliseconds, so that a block used
  // without waiting for its copy is used before it arrived, every time. 0: no hold.
  void hold_each_send(double ms) { hold_ms_ = ms; }
  // For graders: fills every receive buffer and state with NaN (a block used before it arrived shows).
  void poison();

 private:
  struct State;
  const RankGroup& group_;
  RingAttentionShape shape_;
  std::unique_ptr<State> state_;
  double hold_ms_ = 0;
};

}  // namespace p6
