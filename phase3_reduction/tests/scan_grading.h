// SPDX-License-Identifier: MIT
// The 3.11 scan grader, shared by its graded test and the phase 3 grader self-test. It runs a scan
// launcher on n elements that sit between guard elements, into an output poisoned and ringed with
// canaries, with a workspace of exactly scan_workspace_bytes(n) bytes, poisoned and guarded too; on
// request it calls the launcher a second time on the same workspace, not cleared in between, with a
// new input. It returns "" or the teaching verdict (judge_scan in phase3_reduction/harness/reference.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "phase3_reduction/reduction.cuh"

enum class ScanInput {
  Ones,          // ints, all 1: out[i] = i + 1
  RandomInts,    // ints in [-1000, 1000]
  WrappingInts,  // ints in [2^30, 2^31 - 1]: the prefix passes 2^31 and wraps every two or three elements
  SmallFloats,   // integers -8..8 as floats: every association is exact while 8 n <= 2^24 (graded exactly)
  RandomFloats,  // floats in [-1, 1): graded within i u sum|in[0..i]|
};
const char* describe(ScanInput kind);

std::vector<int> make_scan_ints(ScanInput kind, std::size_t n, std::uint64_t seed);
std::vector<float> make_scan_floats(ScanInput kind, std::size_t n, std::uint64_t seed);
// Whether a float input of this kind and size must come out exact (SmallFloats while 8 n <= 2^24).
bool scan_floats_exact(ScanInput kind, std::size_t n);

// "" when scan left the inclusive scan of `input` in out, wrote nothing outside out and the workspace,
// and left the input unchanged; with `second`, the same again for a second call on the same workspace
// with that input. Otherwise the verdict, prefixed on the second call by what that call tests.
std::string grade_scan(const char* launcher, ScanLauncher<int> scan, const std::vector<int>& input,
                       const std::vector<int>* second = nullptr);
std::string grade_scan(const char* launcher, ScanLauncher<float> scan, const std::vector<float>& input, bool exact,
                       const std::vector<float>* second = nullptr);

// The sizes every scan is graded on: 0, 1, around a warp (31, 32, 33), around every plausible tile
// size from 1024 to 8192 elements (1023 ... 8193, then 16385), and a prime near a million (999983; sizes
// past 2^16 are dropped under WB_SANITIZE).
std::vector<std::size_t> scan_test_sizes();
// Far more tiles than a GPU holds blocks at once, for any tile size up to 64K: 64M + 3.
constexpr std::size_t kScanLargeSize = (std::size_t(64) << 20) + 3;

// For graded TEST_CASEs: a `kind` input of n elements from the test's seed, `calls` calls (2: the
// second on the same workspace, with a second input of the same kind from seed + 1, all ones becoming
// random ints); FAILs with the verdict, the case and the seed (WB_SEED replays it).
void check_scan(const char* launcher, ScanLauncher<int> scan, ScanInput kind, std::size_t n, int calls = 1);
void check_scan(const char* launcher, ScanLauncher<float> scan, ScanInput kind, std::size_t n, int calls = 1);
