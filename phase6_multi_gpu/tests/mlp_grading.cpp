// SPDX-License-Identifier: MIT
#include "phase6_multi_gpu/tests/mlp_grading.h"

#include <cmath>
#include <sstream>

#include "common/bf16.h"
#include "common/buffer.h"
#include "common/check.h"
#include "common/data.h"
#include "common/testing.h"

namespace p6 {
namespace test {

std::vector<MlpShape> mlp_test_shapes(int ranks) {
  const std::size_t n = static_cast<std::size_t>(ranks);
  return {MlpShape{1, 8, 2 * n}, MlpShape{37, 72, 41 * n}, MlpShape{128, 256, 256 * n}};
}

namespace {

std::vector<bf16> random_bf16(std::size_t count, std::uint64_t seed, float scale) {
  std::vector<float> v = wb::random_floats(count, seed);
  for (float& f : v) f *= scale;
  return wb::to_bf16(v);
}

// Row t of rank `part`'s partial Y (its block of hidden units only), FP64, hidden rounded to BF16.
std::vector<double> partial_row(const std::vector<bf16>& x, const std::vector<bf16>& w1, const std::vector<bf16>& w2,
                                const MlpShape& shape, std::size_t t, std::size_t j0, std::size_t j1) {
  const std::size_t D = shape.model, H = shape.hidden;
  std::vector<double> y(D, 0.0);
  for (std::size_t j = j0; j < j1; ++j) {
    double z = 0;
    for (std::size_t k = 0; k < D; ++k)
      z += static_cast<double>(__bfloat162float(x[t * D + k])) * static_cast<double>(__bfloat162float(w1[k * H + j]));
    const double g = 0.5 * z * (1.0 + std::tanh(0.7978845608028654 * (z + 0.044715 * z * z * z)));
    const double a = static_cast<double>(__bfloat162float(__float2bfloat16_rn(static_cast<float>(g))));
    for (std::size_t k = 0; k < D; ++k) y[k] += a * static_cast<double>(__bfloat162float(w2[j * D + k]));
  }
  return y;
}

}  // namespace

std::string grade_mlp(const char* name, ShardFn shard_w1, ShardFn shard_w2, MlpLauncher launch, int ranks,
                      const MlpShape& shape, std::uint64_t seed) {
  std::ostringstream context;
  context << name << " on " << ranks << " GPUs, tokens x model x hidden = " << shape.describe() << ", seed " << seed
          << " (WB_SEED): ";
  const std::size_t T = shape.tokens, D = shape.model, H = shape.hidden, part = H / static_cast<std::size_t>(ranks);
  const std::vector<bf16> x = random_bf16(T * D, seed, 1.0f);
  const std::vector<bf16> w1 = random_bf16(D * H, seed + 1, static_cast<float>(2.0 / std::sqrt(double(D))));
  const std::vector<bf16> w2 = random_bf16(H * D, seed + 2, static_cast<float>(2.0 / std::sqrt(double(H))));
  RankGroup group = RankGroup::real(ranks);
  NcclComms comms(group);
  MlpEngine engine(group);
  std::vector<wb::DeviceBuffer<bf16>> xs, w1s, w2s, hiddens;
  std::vector<const bf16*> xp, w1p, w2p;
  std::vector<bf16*> hp;
  for (int r = 0; r < ranks; ++r) {
    const std::vector<bf16> s1 = shard_w1(w1, shape, r, ranks), s2 = shard_w2(w2, shape, r, ranks);
    if (s1.size() != D * part || s2.size() != part * D)
      return context.str() + "rank " + std::to_string(r) + ": shard_w1 returned " + std::to_string(s1.size()) +
             " values and shard_w2 " + std::to_string(s2.size()) + ", expected " + std::to_string(D * part) +
             " each (model x hidden / ranks).";
    DeviceScope scope(group.device(r));
    xs.emplace_back(x);
    w1s.emplace_back(s1);
    w2s.emplace_back(s2);
    hiddens.emplace_back(T * part);
    xp.push_back(xs.back().data());
    w1p.push_back(w1s.back().data());
    w2p.push_back(w2s.back().data());
    hp.push_back(hiddens.back().data());
  }
  RankBuffers<float> y(group, T * D);
  const std::string failure = wb::test::launch_and_explain(name, [&] {
    launch(xp.data(), w1p.data(), w2p.data(), hp.data(), y.pointers(), shape, engine, comms);
    group.synchronize();
  });
  if (!failure.empty()) return context.str() + failure;
  for (int r = 0; r < ranks; ++r) {
    const std::string guards = y.check_guards(r, std::string(name) + " y of rank " + std::to_string(r));
    if (!guards.empty()) return context.str() + guards;
  }
  std::vector<std::vector<float>> got;
  for (int r = 0; r < ranks; ++r) got.push_back(y.download(r));
  for (std::size_t t = 0; t < T; ++t) {
    std::vector<double> ref, tol;
    mlp_reference_row(x, w1, w2, shape, t, &ref, &tol);
    for (int r = 0; r < ranks; ++r) {
      const std::vector<float>& g = got[static_cast<std::size_t>(r)];
      for (std::size_t k = 0; k < D; ++k) {
        const float v = g[t * D + k];
        if (std::fabs(v - ref[k]) <= tol[k]) continue;
        std::ostringstream report;
        report << context.str() << "rank " << r << "'s Y[" << t << "][" << k << "] = " << v << ", expected " << ref[k]
               << " within " << tol[k] << " (BF16 rounding of the hidden activation and FP32 sums).\n";
        if (wb::same_bits(v, wb::poison_value<float>())) return report.str() + "Output untouched: y was never written.";
        // Does this rank's row equal its own partial sum (its block of hidden units only)?
        const std::size_t j0 = part * static_cast<std::size_t>(r);
        const std::vector<double> mine = partial_row(x, w1, w2, shape, t, j0, j0 + part);
        bool partial = true;
        for (std::size_t c = 0; c < D && partial; ++c) partial = std::fabs(g[t * D + c] - mine[c]) <= tol[c];
        if (partial)
          return report.str() + "The row is rank " + std::to_string(r) + "'s own partial sum: its hidden units' " +
                 "share of Y, never summed with the other ranks' (a missing all-reduce after the second GEMM).";
        return report.str() + "Y differs from GELU(X W1) W2: each rank must hold the W1 columns and the W2 rows " +
               "of the same block of hidden units, apply GELU to its own hidden activation before the second GEMM, " +
               "and sum the partial outputs with one all-reduce over every rank.";
      }
    }
  }
  return "";
}

}  // namespace test
}  // namespace p6
