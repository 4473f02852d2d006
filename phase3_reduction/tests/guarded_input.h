// SPDX-License-Identifier: MIT
// The phase 3 graders' input buffer: n elements between guard elements that hold a recognisable value
// (huge for sums: a read past n ruins the answer), 256-byte aligned, and a check that a launcher left
// the input and its guards as it found them. Under WB_EXACT_INPUTS (the memcheck run of the grade)
// nothing follows the input, so memcheck reports a read past n even when the kernel masks the value it
// read (wb::guard_layout).
#pragma once

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "common/buffer.h"

// Guard elements on each side of the input: more than any block reads past its share (a block of
// 1024 threads loading float4s reads at most 4096 elements).
constexpr std::size_t kInputGuard = 4096;

template <typename T>
class GuardedInput {
 public:
  GuardedInput(const std::vector<T>& values, T guard)
      : n_(values.size()), layout_(wb::guard_layout(kInputGuard, sizeof(T), wb::exact_inputs_mode())) {
    all_.reserve(layout_.front + n_ + layout_.back);
    all_.assign(layout_.front, guard);
    all_.insert(all_.end(), values.begin(), values.end());
    all_.insert(all_.end(), layout_.back, guard);
    storage_ = wb::DeviceBuffer<T>(all_);
  }
  const T* data() const { return storage_.data() + layout_.front; }
  // "" when the input and its guards are bit for bit what was uploaded; otherwise where it changed,
  // then `advice`.
  std::string changes(const std::string& advice) const {
    if (all_.empty()) return "";
    const std::vector<T> now = storage_.download();
    if (std::memcmp(now.data(), all_.data(), all_.size() * sizeof(T)) == 0) return "";
    std::size_t first = 0;
    while (std::memcmp(&now[first], &all_[first], sizeof(T)) == 0) ++first;
    const long long index = static_cast<long long>(first) - static_cast<long long>(layout_.front);
    return "The input was modified (first at index " + std::to_string(index) + " of n = " + std::to_string(n_) +
           "): " + advice;
  }

 private:
  std::size_t n_;
  wb::GuardLayout layout_;
  std::vector<T> all_;
  wb::DeviceBuffer<T> storage_;
};
