// SPDX-License-Identifier: MIT
#include "phase4_spmv/harness/spmm_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>

#include "common/data.h"
#include "phase4_spmv/harness/tolerance.h"

namespace p4 {

void parallel_for_ranges(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body,
                         unsigned max_pieces) {
  if (n == 0) return;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t pieces = std::min<std::size_t>({static_cast<std::size_t>(std::min(cores, max_pieces)), n});
  if (pieces <= 1) {
    body(0, n);
    return;
  }
  std::vector<std::thread> workers;
  workers.reserve(pieces - 1);
  const std::size_t step = (n + pieces - 1) / pieces;
  for (std::size_t begin = step; begin < n; begin += step) workers.emplace_back(body, begin, std::min(n, begin + step));
  body(0, std::min(n, step));
  for (std::thread& t : workers) t.join();
}

void spmm_reference(const p4::sparse::Csr& a, const std::vector<float>& x, int k, std::vector<float>* y,
                    std::vector<float>* tolerance) {
  p4::sparse::validate(a);
  if (k < 1) throw std::invalid_argument("spmm_reference: k = " + std::to_string(k) + " must be at least 1");
  const std::size_t kk = static_cast<std::size_t>(k);
  if (x.size() != static_cast<std::size_t>(a.cols) * kk)
    throw std::invalid_argument("spmm_reference: X has " + std::to_string(x.size()) +
                                " elements, not cols x k = " + std::to_string(static_cast<std::size_t>(a.cols) * kk));
  y->assign(static_cast<std::size_t>(a.rows) * kk, 0.0f);
  tolerance->assign(y->size(), 0.0f);
  // Rows are independent: each piece of rows sums in double (a row's k sums and k sums of |a x| at once).
  parallel_for_ranges(static_cast<std::size_t>(a.rows), [&](std::size_t begin, std::size_t end) {
    std::vector<double> sum(kk), abs_sum(kk);
    for (std::size_t r = begin; r < end; ++r) {
      std::fill(sum.begin(), sum.end(), 0.0);
      std::fill(abs_sum.begin(), abs_sum.end(), 0.0);
      const int first = a.row_ptr[r], last = a.row_ptr[r + 1];
      for (int e = first; e < last; ++e) {
        const double v = a.val[static_cast<std::size_t>(e)];
        const float* xr = x.data() + static_cast<std::size_t>(a.col[static_cast<std::size_t>(e)]) * kk;
        for (std::size_t j = 0; j < kk; ++j) {
          const double term = v * static_cast<double>(xr[j]);
          sum[j] += term;
          abs_sum[j] += std::fabs(term);
        }
      }
      float* yr = y->data() + r * kk;
      float* tr = tolerance->data() + r * kk;
      for (std::size_t j = 0; j < kk; ++j) {
        yr[j] = static_cast<float>(sum[j]);
        // The SpMV bound of the same row with x = column j of X, rounded up so float storage never
        // tightens it.
        const double bound = spmv_row_tolerance(last - first, abs_sum[j]).abs;
        tr[j] = std::nextafter(static_cast<float>(bound), std::numeric_limits<float>::infinity());
      }
    }
  });
}

SpmmExpected spmm_expected(const p4::sparse::Csr& a, int k, std::uint64_t seed) {
  SpmmExpected e;
  e.k = k;
  const std::size_t n = static_cast<std::size_t>(a.cols) * static_cast<std::size_t>(std::max(k, 0));
  e.x.resize(n);
  // wb::Rng is splitmix64, whose state after i draws is seed + i * its increment: each piece starts its
  // own generator there and draws the same numbers as one generator from the start (random_floats).
  parallel_for_ranges(n, [&](std::size_t begin, std::size_t end) {
    wb::Rng rng(seed + static_cast<std::uint64_t>(begin) * 0x9E3779B97F4A7C15ull);
    for (std::size_t i = begin; i < end; ++i) e.x[i] = rng.uniform(-1.0f, 1.0f);
  });
  spmm_reference(a, e.x, k, &e.y, &e.tolerance);
  return e;
}

}  // namespace p4
