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

constexpr std::size_t KiB = std::size_t(1) << 10;
constexpr std::size_t MiB = std::size_t(1) << 20;
constexpr std::size_t GiB = std::size_t(1) << 30;

}  // namespace wb
