// SPDX-License-Identifier: MIT
// The 0.11 histogram grader, shared by its graded test and the phase 0 grader self-test. It places the
// bytes a chosen number of bytes past a 16-byte boundary, between guard bytes of value kGuardByte,
// runs a launcher into poisoned bins ringed with canaries, and returns "" or the teaching verdict
// (judge_histogram in phase0_basics/harness/reference.h).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

// The shape of histogram_bins (phase0_basics/basics.cuh).
using HistogramLauncher = void (*)(const unsigned char* data, std::size_t n, unsigned int* bins, int num_bins,
                                   cudaStream_t stream);

enum class ByteInput {
  Uniform,    // random bytes: every value about equally often
  AllSame,    // n copies of kHotByte: every byte falls into one bin
  TwoValues,  // 127 and 128 at random: the two sides of the bin edge in the middle
};
const char* describe(ByteInput kind);
std::vector<unsigned char> make_bytes(ByteInput kind, std::size_t n, std::uint64_t seed);

constexpr unsigned char kHotByte = 0x5A;    // the value of every byte of ByteInput::AllSame
constexpr unsigned char kGuardByte = 0xA5;  // the bytes right before and after the input

struct HistogramRun {
  std::size_t offset = 0;  // data starts this many bytes past a 16-byte (and a 256-byte) boundary: 0..15
  int num_bins = 256;
  int calls = 1;  // launches on the same bins in a row, without resetting them in between
};

// "" when bins hold exactly the histogram of data after run.calls launches, nothing was written
// outside bins and the input is unchanged; otherwise what went wrong and its likely cause.
std::string grade_histogram(const char* launcher, HistogramLauncher launch, const std::vector<unsigned char>& data,
                            const HistogramRun& run);

// For graded TEST_CASEs: `kind` bytes of length n from `seed`, graded with data at every offset in
// `offsets`; FAILs on the first wrong case with the verdict, the case and the seed (WB_SEED replays it).
void check_histogram(const char* launcher, HistogramLauncher launch, ByteInput kind, std::size_t n, std::uint64_t seed,
                     const std::vector<std::size_t>& offsets, int num_bins, int calls = 1);
