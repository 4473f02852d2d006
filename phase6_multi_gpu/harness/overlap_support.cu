// SPDX-License-Identifier: MIT
#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/check.h"
#include "phase6_multi_gpu/harness/nccl_support.h"
#include "phase6_multi_gpu/harness/overlap_support.h"

namespace p6 {

namespace {

constexpr int kThreads = 256;

// grad[i] = x[i] through `work` dependent fused multiply-adds by one and zero (passed at run time, so
// the compiler cannot drop them): the layer's arithmetic, with an exact result.
__global__ void layer_backward_kernel(float* grad, const float* x, std::size_t count, int work, float one, float zero) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    float y = x[i];
    for (int k = 0; k < work; ++k) y = fmaf(y, one, zero);
    grad[i] = y;
  }
}

constexpr int kMaxRanks = 8;
struct RankPointers {
  float* p[kMaxRanks];
};

// Virtual ranks: buffers[r][i] = the sum over r of buffers[r][i], for every r (one GPU holds them all).
__global__ void virtual_sum_kernel(RankPointers buffers, int n, std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    float sum = 0.0f;
    for (int r = 0; r < n; ++r) sum += buffers.p[r][i];
    for (int r = 0; r < n; ++r) buffers.p[r][i] = sum;
  }
}

int grid_for(std::size_t count) {
  return static_cast<int>(std::min<std::size_t>(std::max<std::size_t>(1, (count + kThreads - 1) / kThreads), 4096));
}

}  // namespace

BackwardModel::BackwardModel(const RankGroup& group, std::vector<std::size_t> sizes, int work,
                             const std::vector<std::vector<float>>& inputs)
    : group_(group), sizes_(std::move(sizes)), work_(work) {
  if (sizes_.empty() || static_cast<int>(sizes_.size()) > kMaxLayers)
    throw std::invalid_argument("BackwardModel: between 1 and " + std::to_string(kMaxLayers) + " layers, not " +
                                std::to_string(sizes_.size()));
  if (work < 0) throw std::invalid_argument("BackwardModel: work must be >= 0");
  for (std::size_t s : sizes_) {
    offsets_.push_back(total_);
    total_ += s;
  }
  if (static_cast<int>(inputs.size()) != group.size())
    throw std::invalid_argument("BackwardModel: one input vector per rank");
  inputs_ = std::make_unique<RankBuffers<float>>(group, total_);
  for (int r = 0; r < group.size(); ++r) {
    if (inputs[static_cast<std::size_t>(r)].size() != total_)
      throw std::invalid_argument("BackwardModel: rank " + std::to_string(r) + "'s input is not total() floats");
    inputs_->upload(r, inputs[static_cast<std::size_t>(r)]);
  }
}

BackwardModel::~BackwardModel() = default;

void BackwardModel::backward(int r, int layer, float* grad_r, cudaStream_t stream) const {
  if (r < 0 || r >= group_.size() || layer < 0 || layer >= layers())
    throw std::invalid_argument("BackwardModel::backward: rank " + std::to_string(r) + ", layer " +
                                std::to_string(layer) + " out of range");
  DeviceScope scope(group_.device(r));
  hold_stream(stream, hold_ms_);
  const std::size_t count = size(layer);
  if (count == 0) return;
  const std::size_t at = offset(layer);
  layer_backward_kernel<<<grid_for(count), kThreads, 0, stream>>>(grad_r + at, (*inputs_)[r] + at, count, work_, 1.0f,
                                                                  0.0f);
  CUDA_CHECK_KERNEL();
}

struct GradientComm::State {
  std::vector<cudaStream_t> streams;
  std::vector<std::vector<cudaEvent_t>> events;  // [rank][slot]
  std::vector<cudaEvent_t> arrived;              // virtual: rank r's stream reached the all-reduce
  cudaEvent_t summed = nullptr;                  // virtual: rank 0's stream wrote the sums
  std::unique_ptr<NcclComms> nccl;
};

GradientComm::GradientComm(const RankGroup& group) : group_(group), state_(std::make_unique<State>()) {
  const int n = group.size();
  if (n > kMaxRanks) throw std::invalid_argument("GradientComm: at most 8 ranks");
  for (int r = 0; r < n; ++r) {
    DeviceScope scope(group.device(r));
    cudaStream_t stream = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    state_->streams.push_back(stream);
    std::vector<cudaEvent_t> events(kEventsPerRank);
    for (cudaEvent_t& e : events) CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    state_->events.push_back(events);
    cudaEvent_t arrived = nullptr;
    CUDA_CHECK(cudaEventCreateWithFlags(&arrived, cudaEventDisableTiming));
    state_->arrived.push_back(arrived);
  }
  {
    DeviceScope scope(group.device(0));
    CUDA_CHECK(cudaEventCreateWithFlags(&state_->summed, cudaEventDisableTiming));
  }
  if (!group.is_virtual() && n > 1) state_->nccl = std::make_unique<NcclComms>(group);
}

GradientComm::~GradientComm() {
  for (std::size_t r = 0; r < state_->streams.size(); ++r) {
    cudaSetDevice(group_.device(static_cast<int>(r)));
    cudaStreamSynchronize(state_->streams[r]);
  }
  state_->nccl.reset();
  for (std::size_t r = 0; r < state_->streams.size(); ++r) {
    cudaSetDevice(group_.device(static_cast<int>(r)));
    for (cudaEvent_t e : state_->events[r]) cudaEventDestroy(e);
    cudaEventDestroy(state_->arrived[r]);
    cudaStreamDestroy(state_->streams[r]);
  }
  cudaSetDevice(group_.device(0));
  cudaEventDestroy(state_->summed);
}

cudaStream_t GradientComm::stream(int r) const {
  return state_->streams.at(static_cast<std::size_t>(r));
}

cudaEvent_t GradientComm::event(int r, int slot) const {
  if (slot < 0 || slot >= kEventsPerRank)
    throw std::invalid_argument("GradientComm::event: slot " + std::to_string(slot) + " out of range");
  return state_->events.at(static_cast<std::size_t>(r))[static_cast<std::size_t>(slot)];
}

const char* GradientComm::engine() const {
  return state_->nccl ? "ncclAllReduce" : "summing kernel (virtual ranks)";
}

void GradientComm::allreduce_sum(float* const* grad, std::size_t offset, std::size_t count) {
  const int n = group_.size();
  calls_.push_back(Call{offset, count});
  for (int r = 0; r < n; ++r) {
    DeviceScope scope(group_.device(r));
    hold_stream(stream(r), hold_ms_);
  }
  if (count == 0 || n == 1) return;
  if (state_->nccl) {
    NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < n; ++r) {
      float* at = grad[r] + offset;
      NCCL_CHECK(ncclAllReduce(at, at, count, ncclFloat, ncclSum, state_->nccl->comm(r), stream(r)));
    }
    NCCL_CHECK(ncclGroupEnd());
    return;
  }
  // Virtual ranks: rank 0's stream waits for every rank's stream to arrive, sums, and the others wait
  // for the sums.
  DeviceScope scope(group_.device(0));
  RankPointers pointers{};
  for (int r = 0; r < n; ++r) {
    pointers.p[r] = grad[r] + offset;
    CUDA_CHECK(cudaEventRecord(state_->arrived[static_cast<std::size_t>(r)], stream(r)));
    CUDA_CHECK(cudaStreamWaitEvent(stream(0), state_->arrived[static_cast<std::size_t>(r)], 0));
  }
  virtual_sum_kernel<<<grid_for(count), kThreads, 0, stream(0)>>>(pointers, n, count);
  CUDA_CHECK_KERNEL();
  CUDA_CHECK(cudaEventRecord(state_->summed, stream(0)));
  for (int r = 1; r < n; ++r) CUDA_CHECK(cudaStreamWaitEvent(stream(r), state_->summed, 0));
}

}  // namespace p6
