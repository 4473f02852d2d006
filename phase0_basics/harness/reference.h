// SPDX-License-Identifier: MIT
// CPU references for phase 0 that lessons and graded tests share. They live here, not in the files
// learners edit, so the grader never trusts code under test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace p0 {

// out[i] = sum over k = -R..R of w[k + R] * x[i + k], x[j] = 0 outside [0, n): the kernel's order, each
// step one fused multiply-add rounded once. Returns the largest sum over k of |w * x| of any output,
// which the tolerance scales with.
double stencil_reference(const std::vector<float>& w, const std::vector<float>& x, std::vector<float>& out);

// process() on the CPU for one element: bit-exact, since both sides use a float fma per step.
float process_reference(float x, int work);

// The 0.11 histogram on the CPU: bins[b] = how many of data[0..n) fall into bin b, where byte v falls
// into bin v * num_bins / 256 (num_bins 1..256). Returns num_bins counts.
std::vector<unsigned int> histogram_reference(const unsigned char* data, std::size_t n, int num_bins);
// n uniformly random bytes from `seed`, eight from each step of the workbook's generator (wb::Rng), so
// that the lesson's gigabyte takes well under a second.
std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed);

// One 0.11 run as the judge sees it: the input on the host, where it sat, and how it was run.
struct HistogramCase {
  const unsigned char* data = nullptr;
  std::size_t n = 0;
  std::size_t offset = 0;  // the device address of data[0] modulo 16
  int num_bins = 256;
  int calls = 1;        // launches on the same bins in a row, without resetting them in between
  int guard_byte = -1;  // the value of the bytes right before and after the input (-1: none)
};
// "" when got is the histogram (`expected`, from histogram_reference); otherwise the verdict: a
// headline before the first colon ("Output untouched", "Lost or double-counted bytes", ...), the
// likely cause in a sentence, then the first wrong bins.
std::string judge_histogram(const HistogramCase& c, const std::vector<unsigned int>& expected,
                            const std::vector<unsigned int>& got);

}  // namespace p0
