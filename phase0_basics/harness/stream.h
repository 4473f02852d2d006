// SPDX-License-Identifier: MIT
// Owning CUDA streams and ordering events, and the fork/join idiom that makes one stream's event
// pair time work spread over several streams.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "common/check.h"

namespace p0 {

// `count` streams, created non-blocking (they do not wait for the legacy default stream), destroyed
// with the set.
class StreamSet {
 public:
  explicit StreamSet(int count) : handles_(static_cast<std::size_t>(count), nullptr) {
    for (cudaStream_t& s : handles_) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  ~StreamSet() {
    for (cudaStream_t s : handles_)
      if (s != nullptr) cudaStreamDestroy(s);
  }
  StreamSet(const StreamSet&) = delete;
  StreamSet& operator=(const StreamSet&) = delete;
  const std::vector<cudaStream_t>& handles() const { return handles_; }
  const cudaStream_t* data() const { return handles_.data(); }
  int size() const { return static_cast<int>(handles_.size()); }
  cudaStream_t operator[](std::size_t i) const { return handles_[i]; }
  void synchronize() const {
    for (cudaStream_t s : handles_) CUDA_CHECK(cudaStreamSynchronize(s));
  }

 private:
  std::vector<cudaStream_t> handles_;
};

// An event used only to order streams (no timestamp, so recording it is cheap).
class OrderEvent {
 public:
  OrderEvent() { CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~OrderEvent() { cudaEventDestroy(event_); }
  OrderEvent(const OrderEvent&) = delete;
  OrderEvent& operator=(const OrderEvent&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

// Fork: every stream in `to` starts only after what `from` holds so far (e.g. a timer's start event).
inline void fork_streams(cudaStream_t from, const std::vector<cudaStream_t>& to, const OrderEvent& event) {
  CUDA_CHECK(cudaEventRecord(event.get(), from));
  for (cudaStream_t s : to) CUDA_CHECK(cudaStreamWaitEvent(s, event.get(), 0));
}

// Join: `into` continues only after everything issued so far on every stream in `from`.
inline void join_streams(const std::vector<cudaStream_t>& from, cudaStream_t into, const OrderEvent& event) {
  for (cudaStream_t s : from) {
    CUDA_CHECK(cudaEventRecord(event.get(), s));
    CUDA_CHECK(cudaStreamWaitEvent(into, event.get(), 0));
  }
}

}  // namespace p0
