// SPDX-License-Identifier: MIT
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <utility>

#include "common/buffer.h"
#include "common/check.h"
#include "common/gpus_used.h"
#include "phase6_multi_gpu/harness/ranks.h"
#include "phase6_multi_gpu/harness/topology.h"

namespace p6 {

DeviceScope::DeviceScope(int device) {
  CUDA_CHECK(cudaGetDevice(&previous_));
  CUDA_CHECK(cudaSetDevice(device));
}

DeviceScope::~DeviceScope() {
  cudaSetDevice(previous_);
}

bool peer_access_enabled(int device, int peer) {
  DeviceScope scope(device);
  const cudaError_t result = cudaDeviceEnablePeerAccess(peer, 0);
  if (result == cudaErrorPeerAccessAlreadyEnabled) {
    cudaGetLastError();
    return true;
  }
  if (result == cudaSuccess) {
    CUDA_CHECK(cudaDeviceDisablePeerAccess(peer));  // it was off: leave it off
    return false;
  }
  cudaGetLastError();
  return false;
}

namespace {

// Waits on the GPU's nanosecond clock: one thread, so the other ranks' work runs beside it.
__global__ void hold_kernel(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

}  // namespace

struct RankGroup::State {
  std::vector<Rank> ranks;
  std::vector<std::vector<cudaEvent_t>> events;  // [rank][slot]
  std::vector<cudaEvent_t> barrier_events;       // one per rank
  bool virtual_ranks = false;
  int held_rank = -1;
  double held_ms = 0;

  ~State() {
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      cudaSetDevice(ranks[r].device);
      cudaStreamSynchronize(ranks[r].stream);
      for (cudaEvent_t e : events[r]) cudaEventDestroy(e);
      cudaEventDestroy(barrier_events[r]);
      cudaStreamDestroy(ranks[r].stream);
    }
  }
};

RankGroup::RankGroup(RankGroup&&) noexcept = default;
RankGroup& RankGroup::operator=(RankGroup&&) noexcept = default;
RankGroup::~RankGroup() = default;

RankGroup::RankGroup(int n, bool is_virtual, int virtual_device) : state_(std::make_unique<State>()) {
  if (n < 1) throw std::invalid_argument("a rank group needs at least one rank");
  State* state = state_.get();
  state->virtual_ranks = is_virtual;
  for (int r = 0; r < n; ++r) {
    Rank rank;
    rank.index = r;
    rank.device = is_virtual ? virtual_device : r;
    DeviceScope scope(rank.device);
    CUDA_CHECK(cudaStreamCreateWithFlags(&rank.stream, cudaStreamNonBlocking));
    std::vector<cudaEvent_t> events(RankGroup::kEventsPerRank);
    for (cudaEvent_t& e : events) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    cudaEvent_t barrier_event;
    CUDA_CHECK(cudaEventCreateWithFlags(&barrier_event, cudaEventDisableTiming));
    state->ranks.push_back(rank);
    state->events.push_back(std::move(events));
    state->barrier_events.push_back(barrier_event);
  }
}

RankGroup RankGroup::real(int n) {
  const int visible = visible_gpu_count();
  if (n > visible)
    throw std::runtime_error(std::to_string(n) + " ranks on real GPUs need " + std::to_string(n) + " GPUs; " +
                             std::to_string(visible) + " visible");
  for (int a = 0; a < n; ++a) {
    for (int b = 0; b < n; ++b) {
      if (a == b) continue;
      int can = 0;
      CUDA_CHECK(cudaDeviceCanAccessPeer(&can, a, b));
      if (!can)
        throw std::runtime_error("GPU " + std::to_string(a) + " cannot access GPU " + std::to_string(b) +
                                 "'s memory (no peer access between them: " + link_label(a, b) + ")");
      DeviceScope scope(a);
      const cudaError_t enabled = cudaDeviceEnablePeerAccess(b, 0);
      if (enabled == cudaErrorPeerAccessAlreadyEnabled)
        cudaGetLastError();  // already on: fine (not sticky)
      else
        CUDA_CHECK(enabled);
    }
  }
  wb::note_gpus_used(n);  // the gpus column of the lesson's --csv row
  return RankGroup(n, false, 0);
}

RankGroup RankGroup::virtual_ranks(int n, int device) {
  return RankGroup(n, true, device);
}

int RankGroup::size() const {
  return static_cast<int>(state_->ranks.size());
}
bool RankGroup::is_virtual() const {
  return state_->virtual_ranks;
}
const Rank& RankGroup::rank(int r) const {
  return state_->ranks.at(static_cast<std::size_t>(r));
}
cudaEvent_t RankGroup::event(int r, int slot) const {
  if (slot < 0 || slot >= kEventsPerRank)
    throw std::out_of_range("RankGroup::event: slot " + std::to_string(slot) + " (a rank has " +
                            std::to_string(kEventsPerRank) + " events)");
  return state_->events.at(static_cast<std::size_t>(r))[static_cast<std::size_t>(slot)];
}

void RankGroup::barrier() {
  const int n = size();
  for (int r = 0; r < n; ++r) {
    DeviceScope scope(device(r));
    CUDA_CHECK(cudaEventRecord(state_->barrier_events[static_cast<std::size_t>(r)], stream(r)));
  }
  for (int r = 0; r < n; ++r) {
    DeviceScope scope(device(r));
    for (int other = 0; other < n; ++other)
      if (other != r)
        CUDA_CHECK(cudaStreamWaitEvent(stream(r), state_->barrier_events[static_cast<std::size_t>(other)], 0));
  }
  if (state_->held_rank >= 0 && state_->held_rank < n) hold_rank(*this, state_->held_rank, state_->held_ms);
  state_->held_rank = -1;  // once: the barrier that opens the next call
}

void hold_rank(const RankGroup& group, int r, double ms) {
  DeviceScope scope(group.device(r));
  hold_stream(group.stream(r), ms);
}

void hold_stream(cudaStream_t stream, double ms) {
  if (ms <= 0) return;
  hold_kernel<<<1, 1, 0, stream>>>(static_cast<unsigned long long>(ms * 1e6));
  CUDA_CHECK_KERNEL();
}

void RankGroup::synchronize() const {
  for (int r = 0; r < size(); ++r) {
    DeviceScope scope(device(r));
    CUDA_CHECK(cudaStreamSynchronize(stream(r)));
  }
}

std::string RankGroup::describe() const {
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, device(0)));
  const int n = size();
  if (is_virtual())
    return std::to_string(n) + " virtual ranks on GPU " + std::to_string(device(0)) + " (" + prop.name + ")";
  std::string text = std::to_string(n) + " GPUs (" + prop.name + ")";
  if (n >= 2) text += ", GPU0-GPU1 " + link_label(0, 1);
  return text;
}

void RankGroup::hold_after_barrier(int r, double ms) {
  state_->held_rank = r;
  state_->held_ms = ms;
}

// ---- RankBuffers ------------------------------------------------------------------------------------

template <typename T>
struct RankBuffers<T>::Impl {
  std::vector<int> devices;
  std::vector<std::unique_ptr<wb::GuardedDeviceBuffer<T>>> buffers;
  ~Impl() {
    for (std::size_t r = 0; r < buffers.size(); ++r) {
      cudaSetDevice(devices[r]);
      buffers[r].reset();
    }
  }
};

template <typename T>
RankBuffers<T>::RankBuffers(const RankGroup& group, std::size_t count, std::size_t offset)
    : impl_(std::make_unique<Impl>()), count_(count) {
  for (int r = 0; r < group.size(); ++r) {
    DeviceScope scope(group.device(r));
    impl_->devices.push_back(group.device(r));
    impl_->buffers.push_back(
        std::make_unique<wb::GuardedDeviceBuffer<T>>(count, wb::GuardedDeviceBuffer<T>::kDefaultGuard + offset));
    pointers_.push_back(impl_->buffers.back()->data());
    const_pointers_.push_back(impl_->buffers.back()->data());
  }
}

template <typename T>
RankBuffers<T>::~RankBuffers() = default;

template <typename T>
void RankBuffers<T>::upload(int r, const std::vector<T>& host) {
  DeviceScope scope(impl_->devices.at(static_cast<std::size_t>(r)));
  impl_->buffers[static_cast<std::size_t>(r)]->upload(host);
}

template <typename T>
std::vector<T> RankBuffers<T>::download(int r) const {
  DeviceScope scope(impl_->devices.at(static_cast<std::size_t>(r)));
  return impl_->buffers[static_cast<std::size_t>(r)]->download();
}

template <typename T>
void RankBuffers<T>::fill(T value) {
  for (std::size_t r = 0; r < impl_->buffers.size(); ++r) {
    DeviceScope scope(impl_->devices[r]);
    impl_->buffers[r]->fill(value);
  }
}

template <typename T>
std::string RankBuffers<T>::check_guards(int r, const std::string& what) const {
  DeviceScope scope(impl_->devices.at(static_cast<std::size_t>(r)));
  const wb::GuardReport report = impl_->buffers[static_cast<std::size_t>(r)]->check_guards();
  return report.ok() ? std::string() : report.describe(what);
}

template class RankBuffers<float>;

}  // namespace p6
