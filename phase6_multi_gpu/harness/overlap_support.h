// SPDX-License-Identifier: MIT
// 6.04's given pieces: a backward pass to overlap with (BackwardModel: L layers per rank, each layer's
// "backward" a kernel that writes that layer's gradient) and the all-reduce a data-parallel step calls
// on each bucket of gradients (GradientComm: NCCL on real GPUs, a plain summing kernel on virtual
// ranks), each rank with its own communication stream. Given code, no exercise's answer: read it, use it.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "phase6_multi_gpu/harness/ranks.h"

namespace p6 {

// The layers of a network, the same on every rank (data parallelism: every rank holds the whole model).
// Layer l's gradient lives at [offset(l), offset(l) + size(l)) of a rank's gradient buffer (layer 0
// first, no gaps); the backward pass computes them from the last layer down to layer 0. Layer l's
// backward on rank r writes exactly that range and reads nothing of the gradient buffer: gradient i of
// rank r is inputs[r][i], passed through `work` fused multiply-adds by 1 and 0 (exact: the work stands
// for the layer's arithmetic, the value stays checkable).
class BackwardModel {
 public:
  static constexpr int kMaxLayers = 1024;
  // Throws std::invalid_argument for no layers, more than kMaxLayers, work < 0, or inputs that are not
  // group.size() vectors of total() floats.
  BackwardModel(const RankGroup& group, std::vector<std::size_t> sizes, int work,
                const std::vector<std::vector<float>>& inputs);
  ~BackwardModel();
  BackwardModel(const BackwardModel&) = delete;
  BackwardModel& operator=(const BackwardModel&) = delete;

  int layers() const { return static_cast<int>(sizes_.size()); }
  std::size_t size(int layer) const { return sizes_[static_cast<std::size_t>(layer)]; }
  std::size_t offset(int layer) const { return offsets_[static_cast<std::size_t>(layer)]; }
  std::size_t total() const { return total_; }
  int work() const { return work_; }

  // Enqueues layer `layer`'s backward of rank r on `stream` (a stream of rank r's device): writes
  // grad_r[offset(layer) .. offset(layer) + size(layer)). Returns without waiting.
  void backward(int r, int layer, float* grad_r, cudaStream_t stream) const;

  // For graders: every backward() first holds its stream `ms` milliseconds on the GPU, so that whatever
  // reads a layer's gradient without waiting for that layer reads what was there before, every time.
  // 0: no hold.
  void hold_each_layer(double ms) { hold_ms_ = ms; }

 private:
  const RankGroup& group_;
  std::vector<std::size_t> sizes_, offsets_;
  std::size_t total_ = 0;
  int work_ = 0;
  double hold_ms_ = 0;
  std::unique_ptr<RankBuffers<float>> inputs_;
};

// The communication side of a data-parallel step: one stream per rank (made on its device, beside the
// rank's compute stream group.stream(r)), events recorded on them, and the in-place sum all-reduce that
// runs on them. On a real group it is ncclAllReduce (NVLink multicast off); on virtual ranks a kernel on
// rank 0's communication stream adds the n buffers and writes the sum into each.
class GradientComm {
 public:
  static constexpr int kEventsPerRank = 64;
  explicit GradientComm(const RankGroup& group);
  ~GradientComm();  // waits for its streams first
  GradientComm(const GradientComm&) = delete;
  GradientComm& operator=(const GradientComm&) = delete;

  // Rank r's communication stream.
  cudaStream_t stream(int r) const;
  // An event of rank r's communication stream (no timing): record it on stream(r) only; any stream of
  // rank r may wait on it.
  cudaEvent_t event(int r, int slot) const;

  // grad[r][offset .. offset + count) summed over every rank, the sum written back in place on every rank:
  // enqueued on every rank's communication stream, in one call for all ranks (count 0: nothing). Each
  // rank's part starts when its communication stream reaches it and has read and written that range
  // when the stream has run it. The ranks wait for each other inside; what each rank's communication
  // stream must wait for before it is the caller's to enqueue.
  void allreduce_sum(float* const* grad, std::size_t offset, std::size_t count);
  // "ncclAllReduce" or "summing kernel (virtual ranks)".
  const char* engine() const;
  // For graders: the [offset, offset + count) of every allreduce_sum() since the last clear_calls().
  struct Call {
    std::size_t offset, count;
  };
  const std::vector<Call>& calls() const { return calls_; }
  void clear_calls() { calls_.clear(); }

  // For graders: every allreduce_sum() first holds every communication stream `ms` milliseconds, so that
  // a step that ends without waiting for its last all-reduce ends before that all-reduce, every time.
  void hold_each_allreduce(double ms) { hold_ms_ = ms; }

 private:
  struct State;
  const RankGroup& group_;
  std::unique_ptr<State> state_;
  double hold_ms_ = 0;
  std::vector<Call> calls_;
};

}  // namespace p6
