// SPDX-License-Identifier: MIT
// Small arithmetic shared by host and device code. ceil_div lives here and nowhere else.
#pragma once

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define WB_HOST_DEVICE __host__ __device__
#else
#define WB_HOST_DEVICE
#endif

namespace wb {

// Number of blocks of `divisor` needed to cover `n` items (the grid-size formula).
template <typename T>
WB_HOST_DEVICE constexpr T ceil_div(T n, T divisor) {
  return (n + divisor - 1) / divisor;
}

// The most threads one SM holds at once, for the architecture being compiled (CUDA C++ Programming
// Guide, "Technical Specifications per Compute Capability"): 1024 on Turing, 1536 on sm_86, sm_89 and
// sm_120, 2048 on sm_80, sm_87, Hopper and sm_100. __launch_bounds__'s minimum blocks per SM must fit
// it, or ptxas ignores it with a warning. The host pass (no __CUDA_ARCH__) sees 2048.
#if defined(__CUDA_ARCH__) && \
    (__CUDA_ARCH__ < 800 || __CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
constexpr int kMaxThreadsPerSm = __CUDA_ARCH__ < 800 ? 1024 : 1536;
#else
constexpr int kMaxThreadsPerSm = 2048;
#endif

constexpr std::size_t KiB = std::size_t(1) << 10;
constexpr std::size_t MiB = std::size_t(1) << 20;
constexpr std::size_t GiB = std::size_t(1) << 30;

}  // namespace wb
