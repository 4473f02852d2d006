// SPDX-License-Identifier: MIT
// Ranks: the n participants of a collective, each with a device, a stream and buffers of its own.
// A group of n ranks runs either on n real GPUs (rank r on device r, peer access enabled between every
// pair) or as n VIRTUAL ranks on one GPU: every rank on the same device, told apart by its stream and
// its buffers. An algorithm that only ever touches a rank's buffers from work enqueued on ranks' streams,
// and orders that work with events, cannot tell the two apart: that is how a ring all-reduce is graded
// for correctness on a single GPU, and then measured on real ones.
// Given code, no exercise's answer: read it, use it.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

namespace p6 {

// Sets NCCL_NVLS_ENABLE=0 in this process's environment: NVLink multicast (NVLink SHARP) stays off
// (every phase 6 program calls it before anything can start NCCL; see the phase README).
void disable_nvls();

// The CUDA devices this process sees (0 without a driver or a GPU).
int visible_gpu_count();

// True when kernels on `device` may already access `peer`'s memory (peer access was enabled that way).
// Leaves the state as it found it.
bool peer_access_enabled(int device, int peer);

// Makes `device` current for its lifetime and restores the previous one after.
class DeviceScope {
 public:
  explicit DeviceScope(int device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

struct Rank {
  int index = 0;                  // 0 .. size() - 1
  int device = 0;                 // the CUDA device its buffers live on and its kernels run on
  cudaStream_t stream = nullptr;  // all of this rank's work goes here
};

class RankGroup {
 public:
  // Events each rank owns, for ordering the work of one call (event(rank, slot), slot < kEventsPerRank).
  static constexpr int kEventsPerRank = 64;

  // n ranks on the real GPUs 0 .. n-1, with peer access enabled between every pair of them (throws when
  // fewer than n GPUs are visible or two of them cannot reach each other).
  static RankGroup real(int n);
  // n ranks on one GPU (`device`), each with its own stream and events.
  static RankGroup virtual_ranks(int n, int device = 0);

  RankGroup(RankGroup&&) noexcept;
  RankGroup& operator=(RankGroup&&) noexcept;
  ~RankGroup();

  int size() const;
  bool is_virtual() const;
  const Rank& rank(int r) const;
  int device(int r) const { return rank(r).device; }
  cudaStream_t stream(int r) const { return rank(r).stream; }
  // An event of rank r (created on its device, no timing): record it on rank r's stream only; any rank's
  // stream may wait on it (cudaStreamWaitEvent waits for the most recent record enqueued before the wait).
  cudaEvent_t event(int r, int slot) const;

  // Every rank's stream waits until every rank's stream has run all that was enqueued on it before this
  // call: a barrier between the ranks, enqueued, not waited for on the host.
  void barrier();
  // The host waits for every rank's stream.
  void synchronize() const;
  // "2 GPUs (NVIDIA H100 80GB HBM3), NV18" or "4 virtual ranks on GPU 0 (NVIDIA H100 80GB HBM3)".
  std::string describe() const;

  // For graders: the next barrier() then holds rank r back for `ms` milliseconds (a kernel that waits on
  // the GPU's clock, enqueued on its stream after the barrier), so that a step that reads rank r's
  // buffers without waiting for rank r's work reads stale data every time, not once in a while. Once
  // only; -1: nobody.
  void hold_after_barrier(int r, double ms);

 private:
  struct State;
  RankGroup(int n, bool is_virtual, int virtual_device);
  std::unique_ptr<State> state_;
};

// For graders: rank r's stream waits `ms` milliseconds on the GPU (the kernel hold_after_barrier uses),
// so that what is enqueued on it next (a late input) runs after the other ranks have started.
void hold_rank(const RankGroup& group, int r, double ms);
// The same hold on any stream of the current device (a copy or communication stream of the graders);
// nothing for ms <= 0.
void hold_stream(cudaStream_t stream, double ms);

// One buffer of `count` T per rank, each on its rank's device, ringed with canaries (wb's
// GuardedDeviceBuffer: poisoned at first, guards checked by the graders). pointers()[r] is rank r's.
// `offset` elements more of leading guard move every buffer off cudaMalloc's alignment (1: 4-byte
// aligned floats), for graders that check a kernel's handling of such pointers.
template <typename T>
class RankBuffers {
 public:
  RankBuffers(const RankGroup& group, std::size_t count, std::size_t offset = 0);
  ~RankBuffers();
  RankBuffers(const RankBuffers&) = delete;
  RankBuffers& operator=(const RankBuffers&) = delete;
  std::size_t count() const { return count_; }
  T* const* pointers() { return pointers_.data(); }
  const T* const* const_pointers() const { return const_pointers_.data(); }
  T* operator[](int r) { return pointers_[static_cast<std::size_t>(r)]; }
  void upload(int r, const std::vector<T>& host);
  std::vector<T> download(int r) const;
  void fill(T value);
  // "" when rank r's canaries are intact, else the report.
  std::string check_guards(int r, const std::string& what) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::size_t count_ = 0;
  std::vector<T*> pointers_;
  std::vector<const T*> const_pointers_;
};

extern template class RankBuffers<float>;

}  // namespace p6
