// SPDX-License-Identifier: MIT
#include "phase0_basics/harness/reference.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <sstream>

#include "common/data.h"
#include "common/verify.h"
#include "phase0_basics/basics.cuh"

namespace p0 {

double stencil_reference(const std::vector<float>& w, const std::vector<float>& x, std::vector<float>& out) {
  const std::size_t n = x.size();
  out.assign(n, 0.0f);
  double largest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    float sum = 0.0f;
    double magnitude = 0;
    for (int k = -kStencilRadius; k <= kStencilRadius; ++k) {
      const long long j = static_cast<long long>(i) + k;
      const float xj = (j >= 0 && j < static_cast<long long>(n)) ? x[static_cast<std::size_t>(j)] : 0.0f;
      sum = std::fma(w[k + kStencilRadius], xj, sum);
      magnitude += std::fabs(static_cast<double>(w[k + kStencilRadius]) * xj);
    }
    out[i] = sum;
    largest = std::max(largest, magnitude);
  }
  return largest;
}

float process_reference(float x, int work) {
  for (int k = 0; k < work; ++k) x = std::fma(x, kProcessDecay, kProcessStep);
  return x;
}

std::vector<unsigned int> histogram_reference(const unsigned char* data, std::size_t n, int num_bins) {
  // Four sets of counters, one per byte of a group of four: neighbouring equal bytes (skewed input)
  // then update different counters instead of waiting on each other.
  std::vector<std::uint64_t> counts(4 * 256, 0);
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    ++counts[data[i]];
    ++counts[256 + data[i + 1]];
    ++counts[512 + data[i + 2]];
    ++counts[768 + data[i + 3]];
  }
  for (; i < n; ++i) ++counts[data[i]];
  std::vector<unsigned int> bins(static_cast<std::size_t>(num_bins), 0u);
  for (int v = 0; v < 256; ++v) {
    const std::uint64_t c = counts[v] + counts[256 + v] + counts[512 + v] + counts[768 + v];
    bins[static_cast<std::size_t>(v * num_bins / 256)] += static_cast<unsigned int>(c);
  }
  return bins;
}

std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  wb::Rng rng(seed);
  std::vector<unsigned char> bytes(n);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t word = rng.next_u64();
    for (int k = 0; k < 8; ++k, word >>= 8) bytes[i + static_cast<std::size_t>(k)] = static_cast<unsigned char>(word);
  }
  std::uint64_t word = rng.next_u64();
  for (; i < n; ++i, word >>= 8) bytes[i] = static_cast<unsigned char>(word);
  return bytes;
}

namespace {

// The histogram of data[first, first + count) as signed counts, to compare with a difference of two
// histograms.
std::vector<long long> histogram_of_range(const HistogramCase& c, std::size_t first, std::size_t count) {
  const std::vector<unsigned int> h = histogram_reference(c.data + first, count, c.num_bins);
  return std::vector<long long>(h.begin(), h.end());
}

// "  bins[3]: expected 17, got 16" for the first few wrong bins, and how many are wrong.
std::string wrong_bins(const std::vector<unsigned int>& expected, const std::vector<unsigned int>& got) {
  std::ostringstream out;
  std::size_t wrong = 0;
  for (std::size_t b = 0; b < expected.size(); ++b) {
    if (got[b] == expected[b]) continue;
    if (++wrong > 5) continue;
    out << "  bins[" << b << "]: expected " << expected[b] << ", got ";
    if (got[b] == wb::poison_value<unsigned int>()) {
      out << "untouched (poison)\n";
    } else {
      out << got[b] << "\n";
    }
  }
  out << "  (" << wrong << " of " << expected.size() << " bins wrong)\n";
  return out.str();
}

// The bytes before the first 16-byte boundary (at most n) and after the last whole 16-byte vector:
// the two places a kernel with 16-byte loads needs another path for.
std::size_t head_bytes(const HistogramCase& c) {
  return std::min<std::size_t>((16 - c.offset % 16) % 16, c.n);
}
std::size_t tail_bytes(const HistogramCase& c) {
  return (c.n - head_bytes(c)) % 16;
}

// Why k bytes are missing (diff = expected - got, all >= 0) or extra (diff = got - expected).
std::string which_bytes(const HistogramCase& c, const std::vector<long long>& diff, std::size_t k, bool missing) {
  const char* fate = missing ? "never counted" : "counted twice";
  std::ostringstream out;
  const std::size_t head = head_bytes(c);
  const std::size_t tail = tail_bytes(c);
  if (k <= c.n && histogram_of_range(c, c.n - k, k) == diff) {
    out << "The last " << k << " bytes were " << fate << ". ";
    if (k == tail) {
      out << "They are the tail after the last whole 16-byte vector (n - " << head << " head bytes = " << (c.n - head)
          << " is not a multiple of 16): they need a path of their own, counted exactly once.";
    } else {
      out << "The loop over the data stops at the wrong place: check its bound against n.";
    }
  } else if (k <= c.n && histogram_of_range(c, 0, k) == diff) {
    out << "The first " << k << " bytes were " << fate << ". ";
    if (k == head) {
      out << "data starts " << c.offset % 16 << " bytes past a 16-byte boundary, so its first " << head
          << " bytes come before the first whole 16-byte vector: they need a path of their own, counted exactly "
             "once.";
    } else {
      out << "Check where the first thread starts.";
    }
  } else if (head + tail > 0 && k == head + tail) {
    std::vector<long long> both = histogram_of_range(c, 0, head);
    const std::vector<long long> end = histogram_of_range(c, c.n - tail, tail);
    for (std::size_t b = 0; b < both.size(); ++b) both[b] += end[b];
    if (both == diff) {
      out << "The " << head << " bytes before the first 16-byte boundary and the " << tail
          << " after the last whole 16-byte vector were " << fate << ": both need a path of their own.";
    }
  }
  if (out.str().empty()) {
    out << k << " bytes were " << fate
        << ". Every byte of data[0..n) must reach exactly one count: check the loop bounds, the head before "
           "the first 16-byte boundary, the tail after the last whole vector, and that every block adds its "
           "counts to bins once, after all its threads have counted (a barrier).";
  }
  return out.str();
}

}  // namespace

std::string judge_histogram(const HistogramCase& c, const std::vector<unsigned int>& expected,
                            const std::vector<unsigned int>& got) {
  const std::size_t bins = expected.size();
  if (got.size() != bins) {
    return "Wrong size: " + std::to_string(got.size()) + " bins compared, " + std::to_string(bins) + " expected.\n";
  }
  if (got == expected) return "";
  const unsigned int poison = wb::poison_value<unsigned int>();
  const unsigned int calls = static_cast<unsigned int>(c.calls);
  std::size_t untouched = 0;
  bool untouched_are_empty = true;  // every poisoned bin is one that no byte falls into
  bool poison_plus_counts = true;   // every bin = poison + calls * its count (mod 2^32, as atomics wrap)
  bool calls_times_counts = c.calls > 1;
  bool all_zero = true;
  std::uint64_t sum = 0;
  for (std::size_t b = 0; b < bins; ++b) {
    if (got[b] == poison) {
      ++untouched;
      untouched_are_empty = untouched_are_empty && expected[b] == 0;
    }
    poison_plus_counts = poison_plus_counts && got[b] == poison + calls * expected[b];
    calls_times_counts = calls_times_counts && got[b] == calls * expected[b];
    all_zero = all_zero && got[b] == 0;
    sum += got[b];
  }
  const std::string list = wrong_bins(expected, got);
  std::ostringstream out;

  if (untouched == bins) {
    if (c.n == 0) {
      out << "Output untouched: n = 0 and all " << bins
          << " bins still hold the test's poison. The histogram of no bytes is all zeros: the launcher must set "
             "bins even when it launches no kernel.\n";
    } else {
      out << "Output untouched: all " << bins
          << " bins still hold the test's poison. Is the kernel implemented and launched, and does the launcher "
             "set bins to zero before blocks add their counts?\n";
    }
    return out.str();
  }
  if (poison_plus_counts) {
    out << "Bins never zeroed: every bin holds the test's poison (" << poison << ") plus "
        << (c.calls > 1 ? std::to_string(c.calls) + " times " : std::string())
        << "its right count. Atomics add to whatever bins holds, so the launcher must set all " << bins
        << " counts to 0, on the stream, before the kernel, on every call.\n"
        << list;
    return out.str();
  }
  if (calls_times_counts) {
    out << "Each call added onto the last: after " << c.calls << " calls on the same bins every count is " << c.calls
        << " times the right one. Zero bins at the start of every call, not once.\n"
        << list;
    return out.str();
  }
  if (untouched > 0) {
    out << "Bins never written: " << untouched << " of " << bins << " bins still hold the test's poison";
    if (untouched_are_empty) {
      out << ", all of them bins that no byte falls into. A bin without bytes must read 0: set all " << bins
          << " counts to zero, not only those a block adds to.\n";
    } else {
      out << ". Every bin must be set, the empty ones to 0: zero all " << bins << " counts before adding.\n";
    }
    return out.str() + list;
  }
  if (all_zero) {
    out << "No counts: bins were set to zero, but no block added its counts to them (n = " << c.n << ").\n" << list;
    return out.str();
  }
  if (bins >= 2) {
    bool up = got[0] == 0;
    bool down = got[bins - 1] == 0;
    for (std::size_t b = 0; b + 1 < bins; ++b) {
      up = up && got[b + 1] == expected[b];
      down = down && got[b] == expected[b + 1];
    }
    if (up) {
      out << "Counts one bin off: every count sits one bin too high, bins[b + 1] holding the count of bin b";
      if (expected[bins - 1] != 0)
        out << ", and the last bin's count of " << expected[bins - 1] << " went past the end";
      out << ". An index is off by one where counts are added to bins.\n" << list;
      return out.str();
    }
    if (down) {
      out << "Counts one bin off: every count sits one bin too low, bins[b] holding the count of bin b + 1";
      if (expected[0] != 0) out << ", and bin 0's count of " << expected[0] << " went before the start";
      out << ". An index is off by one where counts are added to bins.\n" << list;
      return out.str();
    }
  }
  if (sum != c.n) {
    out << "Lost or double-counted bytes: the counts sum to " << sum << ", not n = " << c.n << ". ";
    const bool missing = sum < c.n;
    const std::size_t k = static_cast<std::size_t>(missing ? c.n - sum : sum - c.n);
    std::vector<long long> diff(bins);
    bool one_sign = true;
    for (std::size_t b = 0; b < bins; ++b) {
      diff[b] = missing ? static_cast<long long>(expected[b]) - static_cast<long long>(got[b])
                        : static_cast<long long>(got[b]) - static_cast<long long>(expected[b]);
      one_sign = one_sign && diff[b] >= 0;
    }
    if (!missing && c.n > 0 && sum % c.n == 0) {
      const std::uint64_t m = sum / c.n;
      bool multiple = true;
      for (std::size_t b = 0; b < bins; ++b) multiple = multiple && got[b] == m * expected[b];
      if (multiple) {
        out << "Every count is exactly " << m << " times the right one: each block's counts reached bins " << m
            << " times. Let exactly one thread add each bin of a block's private histogram to bins, once.\n"
            << list;
        return out.str();
      }
    }
    if (!missing && one_sign && c.guard_byte >= 0) {
      const std::size_t guard_bin = static_cast<std::size_t>(c.guard_byte * c.num_bins / 256);
      bool only_guard = true;
      for (std::size_t b = 0; b < bins; ++b) only_guard = only_guard && (b == guard_bin || diff[b] == 0);
      if (only_guard) {
        out << k << " bytes from outside data[0..n) were counted: the test surrounds the input with bytes of value "
            << c.guard_byte << ", and bin " << guard_bin << " has " << k
            << " too many. A load reached past data[n - 1] (or before data[0]) and its bytes were counted: count "
               "only bytes at indices 0 to n - 1.\n"
            << list;
        return out.str();
      }
    }
    if (one_sign) {
      out << which_bytes(c, diff, k, missing) << "\n" << list;
    } else {
      out << "Some bins have too many bytes and others too few: check the loop bounds, the head before the first "
             "16-byte boundary, the tail after the last whole vector, and the barrier between counting and "
             "adding a block's counts to bins.\n"
          << list;
    }
    return out.str();
  }
  out << "Wrong bins: the counts sum to n = " << c.n << ", but bytes landed in the wrong bins. Byte v belongs in bin "
      << (c.num_bins == 256 ? std::string("v") : "v * " + std::to_string(c.num_bins) + " / 256, rounded down") << ".\n"
      << list;
  return out.str();
}

}  // namespace p0
