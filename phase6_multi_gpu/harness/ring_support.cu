// SPDX-License-Identifier: MIT
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "common/buffer.h"
#include "common/check.h"
#include "phase6_multi_gpu/harness/ring_support.h"

namespace p6 {

void validate_ring_shape(const RingAttentionShape& s) {
  if (s.d != 64 && s.d != 128)
    throw std::invalid_argument("ring attention: head dimension d must be 64 or 128, got " + std::to_string(s.d));
  if (s.heads < 1 || s.heads > 65535 || s.seq < 1 || s.seq > (1 << 20))
    throw std::invalid_argument("ring attention: 1 <= heads <= 65535 and 1 <= seq <= 1M, got heads " +
                                std::to_string(s.heads) + ", seq " + std::to_string(s.seq));
  if (static_cast<double>(s.heads) * s.seq * s.d > 2147483647.0)
    throw std::invalid_argument("ring attention: heads x seq x d must stay below 2^31 floats");
}

int ring_chunk(int seq, int n) {
  return (seq + n - 1) / n;
}

int ring_begin(int r, int n, int seq) {
  const long long begin = static_cast<long long>(r) * ring_chunk(seq, n);
  return static_cast<int>(begin < seq ? begin : seq);
}

int ring_rows(int r, int n, int seq) {
  const int begin = ring_begin(r, n, seq);
  const int end = ring_begin(r + 1, n, seq);
  return r + 1 >= n ? seq - begin : end - begin;
}

struct RingKV::State {
  std::vector<std::unique_ptr<wb::DeviceBuffer<float>>> buffers;  // [rank]: k0 v0 k1 v1 acc m l, one allocation
  std::vector<cudaStream_t> streams;
  std::vector<std::vector<cudaEvent_t>> events;
  std::size_t block = 0, rows = 0;  // floats of one K block; of m (heads x chunk)
};

RingKV::RingKV(const RankGroup& group, const RingAttentionShape& shape)
    : group_(group), shape_(shape), state_(std::make_unique<State>()) {
  validate_ring_shape(shape);
  const int n = group.size();
  const std::size_t chunk = static_cast<std::size_t>(ring_chunk(shape.seq, n));
  state_->rows = static_cast<std::size_t>(shape.heads) * chunk;
  state_->block = state_->rows * static_cast<std::size_t>(shape.d);
  for (int r = 0; r < n; ++r) {
    DeviceScope scope(group.device(r));
    state_->buffers.push_back(std::make_unique<wb::DeviceBuffer<float>>(5 * state_->block + 2 * state_->rows));
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    state_->streams.push_back(stream);
    std::vector<cudaEvent_t> events(kEventsPerRank);
    for (cudaEvent_t& e : events) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    state_->events.push_back(events);
  }
}

RingKV::~RingKV() {
  for (std::size_t r = 0; r < state_->streams.size(); ++r) {
    cudaSetDevice(group_.device(static_cast<int>(r)));
    cudaStreamSynchronize(state_->streams[r]);
    for (cudaEvent_t e : state_->events[r]) cudaEventDestroy(e);
    cudaStreamDestroy(state_->streams[r]);
    state_->buffers[r].reset();
  }
}

float* RingKV::k(int r, int slot) const {
  return state_->buffers.at(static_cast<std::size_t>(r))->data() + (slot == 0 ? 0 : 2) * state_->block;
}
float* RingKV::v(int r, int slot) const {
  return state_->buffers.at(static_cast<std::size_t>(r))->data() + (slot == 0 ? 1 : 3) * state_->block;
}
float* RingKV::acc(int r) const {
  return state_->buffers.at(static_cast<std::size_t>(r))->data() + 4 * state_->block;
}
float* RingKV::m(int r) const {
  return acc(r) + state_->block;
}
float* RingKV::l(int r) const {
  return m(r) + state_->rows;
}

cudaStream_t RingKV::copy_stream(int r) const {
  return state_->streams.at(static_cast<std::size_t>(r));
}

cudaEvent_t RingKV::event(int r, int slot) const {
  if (slot < 0 || slot >= kEventsPerRank)
    throw std::invalid_argument("RingKV::event: slot " + std::to_string(slot) + " out of range");
  return state_->events.at(static_cast<std::size_t>(r))[static_cast<std::size_t>(slot)];
}

void RingKV::send(int from, const float* k_src, const float* v_src, std::size_t floats, int to, int slot) {
  if (floats > state_->block)
    throw std::invalid_argument("RingKV::send: " + std::to_string(floats) + " floats do not fit a block of " +
                                std::to_string(state_->block));
  DeviceScope scope(group_.device(from));
  cudaStream_t stream = copy_stream(from);
  if (hold_ms_ > 0) hold_stream(stream, hold_ms_);
  if (floats == 0) return;
  const std::size_t bytes = floats * sizeof(float);
  CUDA_CHECK(cudaMemcpyPeerAsync(k(to, slot), group_.device(to), k_src, group_.device(from), bytes, stream));
  CUDA_CHECK(cudaMemcpyPeerAsync(v(to, slot), group_.device(to), v_src, group_.device(from), bytes, stream));
}

void RingKV::poison() {
  const std::vector<float> nan(5 * state_->block + 2 * state_->rows, std::numeric_limits<float>::quiet_NaN());
  for (std::size_t r = 0; r < state_->buffers.size(); ++r) {
    DeviceScope scope(group_.device(static_cast<int>(r)));
    CUDA_CHECK(cudaStreamSynchronize(state_->streams[r]));
    state_->buffers[r]->upload(nan);
  }
}

}  // namespace p6
