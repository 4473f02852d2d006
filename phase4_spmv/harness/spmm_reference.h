// SPDX-License-Identifier: MIT
// What 4.09's lesson, its graded tests and p4_bench check Y = A X against: X from a seed, the product in
// double rounded to float, and a bound per element of Y. Host code, no kernels: host tests include it.
//
// Element (r, j) of Y sums len_r products a_ri X[c_i, j], exactly like row r of an SpMV with x = column j
// of X, so it gets the SpMV bound of tolerance.h: (len_r + 1) u sum_i |a_ri X[c_i, j]| (any summation
// order: a warp's sequence, a tree, atomics adding the pieces of a split row).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "phase4_spmv/harness/sparse.h"

namespace p4 {

class DeviceMatrix;

// A launcher as the lesson, the grader and the benchmark call it: the device matrix, X (cols x k) and
// Y (rows x k) on the device, k, a stream.
using SpmmRun = std::function<void(DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream)>;

struct SpmmExpected {
  int k = 0;
  std::vector<float> x;          // cols x k, row-major, uniform in [-1, 1) from the seed
  std::vector<float> y;          // rows x k, row-major: the double product rounded to float
  std::vector<float> tolerance;  // rows x k: |got - y| may be this much (rounded up to float)
};

// X random in [-1, 1) from `seed` (the same numbers as wb::random_floats(cols * k, seed)), the product
// and the bounds; spread over the machine's cores (the lesson's matrices have 80M entries).
SpmmExpected spmm_expected(const p4::sparse::Csr& a, int k, std::uint64_t seed);

// The product of A with a given X (cols x k, row-major), in double, rounded to float, with its bounds:
// what spmm_expected computes after drawing X.
void spmm_reference(const p4::sparse::Csr& a, const std::vector<float>& x, int k, std::vector<float>* y,
                    std::vector<float>* tolerance);

// Runs body(begin, end) over [0, n) cut into one piece per core (at most `max_pieces`), and waits.
void parallel_for_ranges(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body,
                         unsigned max_pieces = 64);

// The least traffic of Y = A X: A's values and column indices once, its row pointers once, X read once,
// Y written once. Gathers of X rows that miss the caches come on top (the uniform matrix reads X
// about nnz / cols times), so this is a floor, the same for every kernel and for cuSPARSE.
inline double spmm_min_bytes(const p4::sparse::Csr& a, int k) {
  return 8.0 * static_cast<double>(a.nnz()) + 4.0 * (static_cast<double>(a.rows) + 1) +
         4.0 * static_cast<double>(k) * (static_cast<double>(a.cols) + static_cast<double>(a.rows));
}
// A multiply and an add per stored entry and column of X.
inline double spmm_flop(const p4::sparse::Csr& a, int k) {
  return 2.0 * static_cast<double>(a.nnz()) * k;
}

}  // namespace p4
