// SPDX-License-Identifier: MIT
// Owning buffers: DeviceBuffer<T> (cudaMalloc), PinnedBuffer<T> (cudaMallocHost) and
// GuardedDeviceBuffer<T> (a device array with canary-filled guard regions on both sides).
// No raw cudaMalloc/cudaFree in lessons or tests: these free themselves and report
// out-of-memory with the sizes involved.
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/check.h"
#include "common/util.h"
#include "common/verify.h"

namespace wb {

// "out of GPU memory allocating 2048.0 MiB (1024.0 MiB free of 81559.0 MiB): try a smaller --size"
std::string describe_out_of_memory(std::size_t bytes, std::size_t free_bytes, std::size_t total_bytes);

void* device_alloc(std::size_t bytes);  // throws CudaError with describe_out_of_memory's text
void device_free(void* ptr) noexcept;
void* pinned_alloc(std::size_t bytes);
void pinned_free(void* ptr) noexcept;

// A cudaMemcpy from pageable host memory may return before its DMA has reached the device (the CUDA
// Runtime API's "API synchronization behavior"). Work on the legacy default stream or on blocking
// streams is ordered after it anyway, but a stream made with cudaStreamNonBlocking (phase 6's ranks) is
// not: a kernel there could read the buffer before the data lands. So every upload waits for its copy.
inline void wait_for_upload() {
  CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
}

template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) data_ = static_cast<T*>(device_alloc(count_ * sizeof(T)));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() { device_free(data_); }
  DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    swap(other);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  void upload(const std::vector<T>& host) {
    if (host.size() != count_) throw std::invalid_argument("DeviceBuffer::upload: size mismatch");
    if (count_ > 0) CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
    wait_for_upload();
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0) CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  // Fills every element with `value` (e.g. poison_value<T>()) so untouched outputs show.
  void fill(T value) { upload(std::vector<T>(count_, value)); }

 private:
  void swap(DeviceBuffer& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
  }
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) data_ = static_cast<T*>(pinned_alloc(count_ * sizeof(T)));
  }
  ~PinnedBuffer() { pinned_free(data_); }
  PinnedBuffer(PinnedBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
  }
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  T* begin() { return data_; }
  T* end() { return data_ + count_; }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

// WB_EXACT_INPUTS=1 (set by the memcheck runs of the grade): guarded buffers drop the guard after
// their data, so the allocation ends exactly where the data ends. memcheck knows each allocation's
// requested size, so a read one element past the end is then an error it reports; with the guard
// there, the read lands in valid (canary) memory and only shows if its value reaches an output.
bool exact_inputs_mode();

// Where a guarded allocation puts its data: `front` elements before it, `back` after it.
struct GuardLayout {
  std::size_t front = 0;
  std::size_t back = 0;
};
// The guarded layout is `guard` canaries on both sides (at least 256 bytes' worth, so data() keeps
// cudaMalloc's 256-byte alignment). The exact layout has nothing after the data and, in front, only
// the part of `guard` that sets data()'s offset from a 256-byte boundary: a test that shifts its
// data to prove misaligned addresses are handled (2.03) is shifted the same in both modes.
GuardLayout guard_layout(std::size_t guard, std::size_t element_bytes, bool exact);

// A device array of `count` elements with `guard` canary elements before and after it (see
// GuardLayout; under WB_EXACT_INPUTS none after it). Fill the data with poison, run the kernel, then
// check_guards(): any canary changed means the kernel wrote outside [0, count).
template <typename T>
class GuardedDeviceBuffer {
 public:
  static constexpr std::size_t kDefaultGuard = 1024;

  explicit GuardedDeviceBuffer(std::size_t count, std::size_t guard = kDefaultGuard)
      : count_(count),
        layout_(guard_layout(guard, sizeof(T), exact_inputs_mode())),
        storage_(layout_.front + count + layout_.back) {
    std::vector<T> init(storage_.size(), canary_value<T>());
    std::fill(init.begin() + layout_.front, init.begin() + layout_.front + count_, poison_value<T>());
    storage_.upload(init);
  }

  T* data() { return storage_.data() + layout_.front; }
  const T* data() const { return storage_.data() + layout_.front; }
  std::size_t size() const { return count_; }
  std::size_t guard() const { return layout_.front; }
  // False under WB_EXACT_INPUTS: nothing follows the data, memcheck checks that bound instead.
  bool guarded_after() const { return layout_.back > 0; }

  void upload(const std::vector<T>& host) {
    if (host.size() != count_) throw std::invalid_argument("GuardedDeviceBuffer::upload: size mismatch");
    if (count_ > 0) CUDA_CHECK(cudaMemcpy(data(), host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice));
    wait_for_upload();
  }
  void fill(T value) { upload(std::vector<T>(count_, value)); }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0) CUDA_CHECK(cudaMemcpy(host.data(), data(), count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  // Compares the guard regions with the canary; see GuardReport for the message. In exact mode the
  // missing back guard reads as undamaged: memcheck, which runs in that mode, reports those accesses.
  GuardReport check_guards() const {
    const std::vector<T> all = storage_.download();
    return inspect_guards(all.data(), layout_.front, count_, layout_.back, canary_value<T>());
  }

 private:
  std::size_t count_;
  GuardLayout layout_;
  DeviceBuffer<T> storage_;
};

}  // namespace wb
