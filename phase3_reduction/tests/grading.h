// SPDX-License-Identifier: MIT
// The phase 3 grader: runs a reduce launcher on one input and returns "" or the teaching verdict.
// The input sits between guard elements that hold huge values (kFloatGuardValue, kIntGuardValue),
// so a kernel that reads past n ruins the sum; the output slot is poisoned and guarded by canaries;
// the workspace is poisoned and guarded; afterwards the input (and its guards) must be unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "phase3_reduction/reduction.cuh"

enum class SumInput {
  Mixed,        // floats uniform in [-1, 1); ints in [-7, 7]
  Exact,        // floats: multiples of 1/256 of random sign, summed exactly in any order (tolerance 0)
  AllNegative,  // floats in [-1, 0); ints in [-7, -1]
  Constant,     // every element 0.75f; every int 3
};
const char* describe(SumInput kind);

std::vector<float> make_float_input(SumInput kind, std::size_t n, std::uint64_t seed);
std::vector<int> make_int_input(SumInput kind, std::size_t n, std::uint64_t seed);

// "" when the launcher summed the input right and touched nothing it must not; else the message.
std::string grade_reduce(const char* launcher, ReduceLauncher<float> reduce, const std::vector<float>& input,
                         bool exact);
std::string grade_reduce(const char* launcher, ReduceLauncher<int> reduce, const std::vector<int>& input);

// The sizes every rung is graded on: 0, 1, 2, around a warp (31, 32, 33), 200 (3.06 launches 128
// threads for 129 to 256 elements: without it that instantiation goes untested), around 4 blocks of
// 256 (1023, 1024, 1025), a prime (65537), 2^24 + 7 and 2^28 + 3 (1 GiB of floats; sizes past 2^16 are
// dropped under WB_SANITIZE).
std::vector<std::size_t> reduce_test_sizes();
// One rung at one size (call it from a TEST_CASE that GENERATEs the size): every input kind (sizes
// past 2^24 + 7 with exact inputs only, to keep the run short); FAILs with the verdict, the input
// kind and the seed (WB_SEED replays it) on the first wrong case.
void check_reduce_float(const char* launcher, ReduceLauncher<float> reduce, std::size_t n);
void check_reduce_int(const char* launcher, ReduceLauncher<int> reduce, std::size_t n);
