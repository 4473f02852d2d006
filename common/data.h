// SPDX-License-Identifier: MIT
// Deterministic test data: a small portable generator (splitmix64) so the same seed gives the
// same numbers with every compiler and standard library. Lessons and tests print their seed;
// WB_SEED in the environment overrides it to replay a failure.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace wb {

constexpr std::uint64_t kDefaultSeed = 20261122;

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next_u64() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi), on a grid of 2^-24 so every value is exactly representable.
  float uniform(float lo, float hi) {
    const double unit = static_cast<double>(next_u64() >> 40) / static_cast<double>(1u << 24);
    return static_cast<float>(lo + (static_cast<double>(hi) - lo) * unit);
  }
  // Uniform integer in [lo, hi].
  std::int64_t integer(std::int64_t lo, std::int64_t hi) {
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(next_u64() % span);
  }

 private:
  std::uint64_t state_;
};

inline std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) x = rng.uniform(lo, hi);
  return v;
}

// Non-zero multiples of 1/256 in [-1, 1]. Every partial sum below 2^16 in magnitude is a multiple of
// 1/256 that float holds exactly (24 bits), so any summation order gives the exact answer while the
// partial sums stay under 2^16: always for n < 2^16, and for random signs (|sum| ~ 0.6 sqrt(n), about
// 5000 at n = 64M) with overwhelming probability far beyond. A sum test can then demand the exact
// answer and catch one missing or doubled element.
inline std::vector<float> random_dyadic_floats(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (float& x : v) {
    std::int64_t k = rng.integer(1, 256);
    x = static_cast<float>((rng.next_u64() & 1) ? k : -k) / 256.0f;
  }
  return v;
}

inline std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi) {
  Rng rng(seed);
  std::vector<int> v(n);
  for (int& x : v) x = static_cast<int>(rng.integer(lo, hi));
  return v;
}

// WB_SEED=<number> replaces the default seed (to replay a reported failure).
inline std::uint64_t seed_from_env(std::uint64_t fallback) {
  const char* text = std::getenv("WB_SEED");
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 0);
  return (end != nullptr && *end == '\0') ? value : fallback;
}

}  // namespace wb
