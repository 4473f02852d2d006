// SPDX-License-Identifier: MIT
#include "phase6_multi_gpu/tests/ring_grading.h"

#include <cmath>
#include <sstream>

#include "common/buffer.h"
#include "common/check.h"
#include "common/testing.h"
#include "common/verify.h"

namespace p6 {
namespace test {

std::string RingCase::describe() const {
  std::ostringstream text;
  text << group.describe() << ", " << shape.heads << " heads x seq " << shape.seq << " x d " << shape.d
       << (shape.causal ? ", causal" : "") << (data == p5::AttentionData::HugeLogits ? ", logits near 1e4" : "");
  return text.str();
}

std::vector<RingCase> ring_attention_cases() {
  std::vector<RingCase> cases;
  for (const GroupSpec& spec : group_specs(true, wb::test::sanitize_mode() ? 4 : 8)) {
    const int n = spec.ranks;
    for (int seq : {1, n - 1, 33 * n + 5, 64 * n, 257})
      for (int heads : {1, 3})
        for (int d : {64, 128})
          for (bool causal : {false, true}) {
            if (seq < 1 || (heads == 3 && d == 128 && seq != 33 * n + 5)) continue;
            cases.push_back(RingCase{spec, RingAttentionShape{heads, seq, d, causal}, p5::AttentionData::Uniform});
          }
    for (bool causal : {false, true})
      cases.push_back(RingCase{spec, RingAttentionShape{2, 65 * n + 3, 64, causal}, p5::AttentionData::HugeLogits});
    if (!wb::test::sanitize_mode())
      for (bool causal : {false, true})
        cases.push_back(RingCase{spec, RingAttentionShape{1, 1000, 64, causal}, p5::AttentionData::Uniform});
  }
  return cases;
}

std::string grade_ring_attention(const char* name, RingAttentionLauncher launch, RankGroup& group,
                                 const RingAttentionShape& shape, p5::AttentionData data, std::uint64_t seed) {
  validate_ring_shape(shape);
  const int n = group.size();
  const int heads = shape.heads, seq = shape.seq, d = shape.d;
  AttentionShape full;
  full.heads = heads;
  full.seq_q = full.seq_k = seq;
  full.d = d;
  full.causal = shape.causal;
  const p5::AttentionInputs in = p5::make_attention_inputs(full, data, seed);
  const std::size_t chunk_rows = static_cast<std::size_t>(ring_chunk(seq, n)) * heads;
  const std::size_t du = static_cast<std::size_t>(d);
  RankBuffers<float> q(group, chunk_rows * du), k(group, chunk_rows * du), v(group, chunk_rows * du);
  RankBuffers<float> staged_q(group, chunk_rows * du), staged_k(group, chunk_rows * du),
      staged_v(group, chunk_rows * du);
  RankBuffers<float> o(group, chunk_rows * du), l(group, chunk_rows);
  RingKV kv(group, shape);
  kv.poison();
  const float poison = wb::poison_value<float>();
  for (int r = 0; r < n; ++r) {
    const std::size_t begin = static_cast<std::size_t>(ring_begin(r, n, seq));
    const std::size_t rows = static_cast<std::size_t>(ring_rows(r, n, seq));
    std::vector<float> qs(chunk_rows * du, poison), ks(chunk_rows * du, poison), vs(chunk_rows * du, poison);
    for (int h = 0; h < heads; ++h)
      for (std::size_t i = 0; i < rows * du; ++i) {
        const std::size_t from = (static_cast<std::size_t>(h) * seq + begin) * du + i;
        const std::size_t to = static_cast<std::size_t>(h) * rows * du + i;
        qs[to] = in.q[from];
        ks[to] = in.k[from];
        vs[to] = in.v[from];
      }
    staged_q.upload(r, qs);
    staged_k.upload(r, ks);
    staged_v.upload(r, vs);
    const std::vector<float> nan(chunk_rows * du, std::nanf(""));
    q.upload(r, nan);
    k.upload(r, nan);
    v.upload(r, nan);
    o.upload(r, std::vector<float>(chunk_rows * du, poison));
    l.upload(r, std::vector<float>(chunk_rows, poison));
  }
  // Rank `late`'s inputs arrive 5 ms late on its stream; rank `held` is held after the barrier.
  const int late = static_cast<int>(seed % static_cast<std::uint64_t>(n));
  const int held = (late + 1) % n;
  for (int r = 0; r < n; ++r) {
    if (r == late && n > 1) hold_rank(group, r, 5.0);
    DeviceScope scope(group.device(r));
    const std::size_t bytes = chunk_rows * du * sizeof(float);
    CUDA_CHECK(cudaMemcpyAsync(q[r], staged_q[r], bytes, cudaMemcpyDeviceToDevice, group.stream(r)));
    CUDA_CHECK(cudaMemcpyAsync(k[r], staged_k[r], bytes, cudaMemcpyDeviceToDevice, group.stream(r)));
    CUDA_CHECK(cudaMemcpyAsync(v[r], staged_v[r], bytes, cudaMemcpyDeviceToDevice, group.stream(r)));
  }
  group.hold_after_barrier(n > 1 ? held : -1, 5.0);
  kv.hold_each_send(2.0);
  std::string failure = wb::test::launch_and_explain(name, [&] {
    launch(q.const_pointers(), k.const_pointers(), v.const_pointers(), o.pointers(), l.pointers(), shape, group, kv);
    group.synchronize();
  });
  group.hold_after_barrier(-1, 0.0);
  for (int r = 0; r < n; ++r) {
    DeviceScope scope(group.device(r));
    CUDA_CHECK(cudaStreamSynchronize(kv.copy_stream(r)));
  }
  std::ostringstream context;
  context << name << " on " << group.describe() << ", " << heads << " heads x seq " << seq << " x d " << d
          << (shape.causal ? ", causal" : "") << (data == p5::AttentionData::HugeLogits ? ", logits near 1e4" : "")
          << ", seed " << seed << " (WB_SEED), rank " << late << "'s input late, rank " << held
          << " held after the barrier, every copy held 2 ms:\n";
  if (!failure.empty()) return context.str() + failure;
  const bool exact_dots = data == p5::AttentionData::HugeLogits;
  for (int r = 0; r < n; ++r) {
    const std::vector<float> got_o = o.download(r), got_l = l.download(r);
    const int rows = ring_rows(r, n, seq), begin = ring_begin(r, n, seq);
    for (std::size_t i = static_cast<std::size_t>(heads) * rows; i < chunk_rows; ++i)
      if (!wb::same_bits(got_l[i], poison) || !wb::same_bits(got_o[i * du], poison))
        return context.str() + "rank " + std::to_string(r) + " wrote past its " + std::to_string(rows) +
               " rows of O or L (element " + std::to_string(i) + " of its buffer): rank r's O holds heads x " +
               "ring_rows(r) x d floats.";
    for (const std::string& guards : {o.check_guards(r, std::string(name) + " O of rank " + std::to_string(r)),
                                      l.check_guards(r, std::string(name) + " L of rank " + std::to_string(r))})
      if (!guards.empty()) return context.str() + guards;
    for (int h = 0; h < heads; ++h)
      for (int i = 0; i < rows; ++i) {
        const std::size_t at = static_cast<std::size_t>(h) * rows + i;
        const int token = begin + i;
        const float got_lse = got_l[at];
        bool untouched = wb::same_bits(got_lse, poison), finite = std::isfinite(got_lse);
        for (int c = 0; c < d; ++c) {
          untouched = untouched || wb::same_bits(got_o[at * du + c], poison);
          finite = finite && std::isfinite(got_o[at * du + c]);
        }
        std::ostringstream where;
        where << "rank " << r << ", head " << h << ", token " << token << " (its row " << i << "): ";
        if (untouched)
          return context.str() + where.str() +
                 "Output untouched: O or L was never written (is the ring written and launched? does the last "
                 "step write O and L?).";
        if (!finite) {
          if (data == p5::AttentionData::HugeLogits)
            return context.str() + where.str() +
                   "inf or NaN at logits near 1e4: an overflow. A merge that exponentiates a logit (or a block's "
                   "max) without subtracting the running max gives exp(1e4) = inf, or 0 / 0.";
          return context.str() + where.str() +
                 "NaN where the logits are small: a block used before it arrived (the receive buffers start as "
                 "NaN and every copy is held 2 ms): a compute step must wait for the upstream rank's copy of its "
                 "block, and a copy for the block it passes on.";
        }
        const p5::RowReference ref = p5::attention_reference_row(full, in, h, token);
        const p5::RowTolerance tol = p5::attention_row_tolerance(ref, d, exact_dots);
        const double l_err = got_lse - ref.lse;
        int bad = -1;
        for (int c = 0; c < d && bad < 0; ++c)
          if (!(std::fabs(got_o[at * du + c] - ref.o[static_cast<std::size_t>(c)]) <=
                tol.o_rel * ref.magnitude[static_cast<std::size_t>(c)] + tol.o_abs))
            bad = c;
        if (std::fabs(l_err) <= tol.l_abs && bad < 0) continue;
        where << "L " << got_lse << " (expected " << ref.lse << ", bound " << tol.l_abs << ")";
        if (bad >= 0)
          where << ", O[" << bad << "] " << got_o[at * du + static_cast<std::size_t>(bad)] << " (expected "
                << ref.o[static_cast<std::size_t>(bad)] << ")";
        where << ". ";
        if (l_err < -tol.l_abs)
          return context.str() + where.str() +
                 "L too small: fewer keys than the sequence's reached this row: a K/V block skipped (n steps, "
                 "one block each, every rank's block once), or a causal mask placed at a wrong key offset (each "
                 "block's keys start at its origin rank's first token).";
        if (l_err > tol.l_abs)
          return context.str() + where.str() +
                 "L too large: more keys than the sequence's reached this row: a K/V block used twice (the same "
                 "block computed with in two steps), or a causal mask placed at a wrong key offset (each block's "
                 "keys start at its origin rank's first token).";
        return context.str() + where.str() +
               "L is right but O is not: a block's V paired with another block's K, or the running output "
               "rescaled differently from the running sum in the merge.";
      }
  }
  return "";
}

void check_ring_attention(const char* name, RingAttentionLauncher launch, const RingCase& c) {
  const std::uint64_t seed = wb::test::seed();
  INFO(c.describe() << ", seed " << seed);
  RankGroup group = make_group(c.group);
  const std::string verdict = grade_ring_attention(name, launch, group, c.shape, c.data, seed);
  if (!verdict.empty()) FAIL(verdict);
}

}  // namespace test
}  // namespace p6
