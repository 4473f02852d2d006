// SPDX-License-Identifier: MIT
// The graders that the row-wise exercises share: RMSNorm (2.05 block per row, 2.06 warp per row)
// and multi-pass softmax (2.07 three passes, 2.08 online). Each exercise's test file keeps its own
// TEST_CASEs and, for softmax, its own error bound, derived from the operations its kernel does.
#pragma once

#include <cstdint>
#include <vector>

#include "common/verify.h"
#include "phase2_elementwise/elementwise.cuh"

namespace p2 {

using ::RmsnormLauncher;
using ::SoftmaxLauncher;

struct RowShape {
  int rows;
  int cols;
};

// ---- RMSNorm ------------------------------------------------------------------------------------

// Random rows in [-1, 1], the middle row all zeros, every third row scaled down below eps.
std::vector<float> rmsnorm_input(int rows, int cols, std::uint64_t seed);
// Row lengths around a warp, the float4 path, several steps per thread; row counts of no multiple.
std::vector<RowShape> rmsnorm_shapes();
// Runs `launch` on guarded buffers and compares with the double reference; fails the test if not.
void check_rmsnorm(const char* name, RmsnormLauncher launch, const std::vector<float>& in, int rows, int cols,
                   float eps, std::uint64_t seed);

// ---- softmax --------------------------------------------------------------------------------------

enum class SoftmaxData { Uniform, Huge, NegInf };

// A kernel's error bound in units of u = 2^-24, each a + b * cols (+ |x - max| for an element):
// the test file that picks it explains where it comes from.
struct SoftmaxBound {
  double element_base, element_per_col;
  double row_sum_base, row_sum_per_col;
  const char* row_sum_advice;  // what to fix when elements pass but a row does not sum to 1
};

std::vector<float> softmax_input(SoftmaxData kind, int rows, int cols, std::uint64_t seed);
std::vector<RowShape> softmax_all_shapes();      // includes one large matrix (smaller under the sanitizer)
std::vector<RowShape> softmax_special_shapes();  // for the 1000/-1000 and -inf inputs
void check_softmax(const char* name, SoftmaxLauncher launch, RowShape shape, SoftmaxData kind,
                   const SoftmaxBound& bound);

}  // namespace p2
