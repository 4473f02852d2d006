// SPDX-License-Identifier: MIT
// The graders that the row-wise exercises share: RMSNorm (2.05 block per row, 2.06 warp per row),
// multi-pass softmax (2.07 three passes, 2.08 online) and LayerNorm (2.10, and the phase's grader
// self-test). Each exercise's test file keeps its own TEST_CASEs and, for softmax, its own error
// bound, derived from the operations its kernel does; LayerNorm's bound is in harness/reference.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/verify.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/reference.h"

namespace p2 {

using ::LayernormLauncher;
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

// ---- LayerNorm -------------------------------------------------------------------------------------

struct LayernormCase {
  int rows;
  int cols;
  float eps = 1e-5f;
  std::size_t misalign = 0;  // x, gamma, beta and y this many floats past a 256-byte boundary
};

// Row r's kind is r % 5 (layernorm_row_kind): noise in [-1, 1]; 3 + that noise; 1e4 + noise in
// [-2, 2] (the large mean); noise of 1e-3 (var below eps); a constant row (0.75, -3, 1024, 0 in turn).
std::vector<float> layernorm_input(int rows, int cols, std::uint64_t seed);
const char* layernorm_row_kind(int row);
// Rows 0, 1, 3 and 1000 against every row length of the graded list (under the sanitizer, the shapes
// up to 256K elements).
std::vector<LayernormCase> layernorm_shapes();
// "" when `launch` computes this case within the bounds of harness/reference.cpp, otherwise the teaching
// message: launch or run error, writes outside y, mean or rstd, then the first wrong values, and what
// the wrong rows have in common (the large mean, constant rows, cols - 1, gamma and beta swapped).
std::string grade_layernorm(const char* name, LayernormLauncher launch, const LayernormCase& shape, std::uint64_t seed);
// The verdict on outputs already downloaded (grade_layernorm's second half, also usable without a GPU):
// `ref` from layernorm_reference(x, gamma, beta, rows, cols, eps).
std::string judge_layernorm(const char* name, const std::vector<float>& x, const std::vector<float>& gamma,
                            const std::vector<float>& beta, const p2::LayernormReference& ref,
                            const std::vector<float>& got_y, const std::vector<float>& got_mean,
                            const std::vector<float>& got_rstd, int cols, float eps);
// Fails the test with grade_layernorm's message and the seed.
void check_layernorm(const char* name, LayernormLauncher launch, const LayernormCase& shape);

}  // namespace p2
