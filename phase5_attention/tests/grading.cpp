// SPDX-License-Identifier: MIT
#include "phase5_attention/tests/grading.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "common/bf16.h"
#include "common/buffer.h"
#include "common/device.h"
#include "common/testing.h"
#include "phase5_attention/harness/reference_gpu.h"

namespace {

using p5::AttentionData;
using p5::AttentionPrecision;
using p5::ReferenceVariant;
using p5::RowReference;
using p5::RowTolerance;

// Above this many multiply-adds the CPU reference is too slow for a test; the cuBLAS path grades instead.
constexpr double kCpuReferenceLimit = double(1 << 28);

std::string shape_text(const AttentionCase& c) {
  const AttentionShape& s = c.shape;
  std::ostringstream text;
  text << "heads = " << s.heads;
  if (s.seq_q == s.seq_k && c.splits == 0) {
    text << ", seq = " << s.seq_q;
  } else {
    text << ", seq_q = " << s.seq_q << ", seq_k = " << s.seq_k;
  }
  text << ", d = " << s.d << (s.causal ? ", causal" : "");
  if (c.splits > 0) text << ", " << c.splits << (c.splits == 1 ? " split" : " splits");
  return text.str();
}

// What the kernel returned, and what it should have, row by row.
struct Outcome {
  AttentionShape shape;
  p5::AttentionInputs in;
  std::vector<float> o, l;
  bool exact_dots = false;
  AttentionPrecision precision = AttentionPrecision::FP32;
};

// How far a kernel's output may be from a hypothesis (a wrong attention modelled in double) and still be
// taken for it: a few times the bound, since the model's tiles need not be the kernel's. BF16's bound is
// 2^-8-sized already, so twice it; FP32's four times.
double hypothesis_slack(const Outcome& out) {
  return out.precision == AttentionPrecision::BF16 ? 2.0 : 4.0;
}

// Does row (head, row) of the kernel's output match `ref` within `slack` times the row's bound?
bool row_matches(const Outcome& out, int head, int row, const RowReference& ref, double slack) {
  const int d = out.shape.d;
  const RowTolerance t = p5::attention_row_tolerance(ref, d, out.exact_dots, slack, out.precision);
  const std::size_t r = static_cast<std::size_t>(head) * out.shape.seq_q + row;
  for (int c = 0; c < d; ++c) {
    const wb::Tolerance tol{t.o_abs + t.o_rel * ref.magnitude[c], slack * wb::kFloatEpsilon};
    if (!wb::within(ref.o[c], out.o[r * d + c], tol)) return false;
  }
  return wb::within(ref.lse, out.l[r], wb::Tolerance{t.l_abs, slack * wb::kFloatEpsilon});
}

bool l_matches(const Outcome& out, int head, int row, const RowReference& ref) {
  const RowTolerance t = p5::attention_row_tolerance(ref, out.shape.d, out.exact_dots, 1.0, out.precision);
  return wb::within(ref.lse, out.l[static_cast<std::size_t>(head) * out.shape.seq_q + row],
                    wb::Tolerance{t.l_abs, wb::kFloatEpsilon});
}

bool o_matches(const Outcome& out, int head, int row, const RowReference& ref) {
  RowReference any_l = ref;  // compare O only: take the kernel's own L
  any_l.lse = out.l[static_cast<std::size_t>(head) * out.shape.seq_q + row];
  return std::isfinite(any_l.lse) ? row_matches(out, head, row, any_l, 1.0) : false;
}

// O matches `alt` whatever L the kernel wrote (for bugs whose L is anyone's guess).
bool o_matches_variant(const Outcome& out, int head, int row, const RowReference& alt) {
  RowReference any_l = alt;
  any_l.lse = out.l[static_cast<std::size_t>(head) * out.shape.seq_q + row];
  return std::isfinite(any_l.lse) ? row_matches(out, head, row, any_l, hypothesis_slack(out)) : false;
}

// A bug the grader can recognise: a wrong attention that the kernel's output matches.
struct Hypothesis {
  ReferenceVariant variant;
  std::string diagnosis;
  bool o_only = false;  // compare O only (the bug leaves L anyone's guess)
};

// 5.06's bugs, for a decoding case run with `splits` splits: the tail of the last split dropped, the
// partials merged without rescaling.
void decoding_hypotheses(const AttentionShape& s, int splits, std::vector<Hypothesis>& h) {
  const long long n = s.seq_k, S = splits;
  const long long floor_limit = S * (n / S);
  if (floor_limit > 0 && floor_limit < n) {
    ReferenceVariant dropped;
    dropped.key_limit = static_cast<int>(floor_limit);
    h.push_back({dropped, "O matches attention over the first " + std::to_string(floor_limit) + " keys only: keys " +
                              std::to_string(floor_limit) + ".." + std::to_string(n - 1) + " belong to no split. " +
                              std::to_string(splits) + " splits of seq_k / splits = " + std::to_string(n / S) +
                              " keys (rounded down) stop short of seq_k = " + std::to_string(n) +
                              ": the last split's tail keys were dropped; the last split must "
                              "end at seq_k."});
  }
  const long long chunk = (n + S - 1) / S, last_begin = (S - 1) * chunk;
  if (S > 1 && last_begin > 0 && last_begin < n) {
    ReferenceVariant no_last;
    no_last.key_limit = static_cast<int>(last_begin);
    h.push_back({no_last, "O matches attention without the last split's keys (" + std::to_string(last_begin) + ".." +
                              std::to_string(n - 1) +
                              "): with chunks of ceil(seq_k / splits) = " + std::to_string(chunk) +
                              " keys the last split is the short one, and its range must "
                              "still run to seq_k (its partial must be written and merged too)."});
  }
  if (S > 1) {
    for (bool balanced : {false, true}) {
      ReferenceVariant stale;
      stale.merge_splits = splits;
      stale.balanced_splits = balanced;
      h.push_back({stale,
                   "O matches the splits' partials merged without rescaling: each split's l_s and output are sums "
                   "of exp(s - m_s) against its own max m_s, so before they are added both must be scaled to the "
                   "common max m, by exp(m_s - m) (2.08's merge; the split with the largest max keeps a factor of 1).",
                   true});
    }
  }
}

// Cross shapes: seq_q used where seq_k belongs (Q, O and L hold seq_q rows per head; K and V seq_k).
void cross_hypotheses(const AttentionShape& s, std::vector<Hypothesis>& h) {
  if (s.seq_q == s.seq_k) return;
  const std::string sq = std::to_string(s.seq_q), sk = std::to_string(s.seq_k);
  if (s.heads > 1) {
    ReferenceVariant offset;
    offset.kv_head_rows = s.seq_q;
    h.push_back({offset, "O matches attention in which head h reads the K and V rows from h * seq_q = h * " + sq +
                             " on: the head offset into K and V uses seq_q where seq_k belongs. Q, O and L hold "
                             "seq_q rows per head, K and V seq_k = " +
                             sk + " rows per head (head 0 is right, the others read a neighbour's keys)."});
  }
  ReferenceVariant bound;
  bound.key_count = s.seq_q;
  h.push_back({bound, "O matches attention over the first seq_q = " + sq +
                          " keys of each head instead of its seq_k = " + sk +
                          ": the key loop (or a key tile's bound) uses seq_q where seq_k belongs; every query "
                          "row sees all seq_k keys."});
}

// A sentence for wrong results on a cross shape that no hypothesis pins down.
std::string cross_hint(const AttentionShape& s) {
  if (s.seq_q == s.seq_k) return "";
  return "With seq_q = " + std::to_string(s.seq_q) + " != seq_k = " + std::to_string(s.seq_k) +
         ": Q, O and L hold seq_q rows per head, K and V seq_k; is a K or V offset (the head's start, a tile's "
         "rows) or a key bound taken with seq_q?";
}

std::vector<Hypothesis> hypotheses(const AttentionShape& s, int splits) {
  std::vector<Hypothesis> h;
  if (splits > 0) decoding_hypotheses(s, splits, h);
  if (splits == 0) cross_hypotheses(s, h);
  if (s.causal) {
    const int offset = s.seq_k - s.seq_q;  // decoding: query i is token offset + i
    ReferenceVariant no_mask;
    no_mask.mask = false;
    h.push_back({no_mask, offset == 0 ? "O matches attention without the causal mask: query i must see keys j <= i "
                                        "only (a logit of -inf for every later key), and the tiles above the "
                                        "diagonal have nothing to add."
                                      : "O matches attention without the causal mask: query i of a decoding step "
                                        "sees keys j <= seq_k - seq_q + i only; only the last query sees them all."});
    if (offset > 1) {
      ReferenceVariant square;
      square.causal_shift = -offset;
      h.push_back({square,
                   "O matches the causal mask of a square matrix (query i sees keys j <= i): in decoding the "
                   "seq_q queries are the newest seq_q tokens, so query i is token seq_k - seq_q + i and sees "
                   "keys j <= seq_k - seq_q + i; the last query sees every key."});
    }
    for (int shift : {1, -1}) {
      ReferenceVariant off;
      off.causal_shift = shift;
      const std::string sees = offset == 0 ? "i" : "seq_k - seq_q + i";
      h.push_back({off, "O matches a causal mask that is off by one (query i sees keys up to " + sees +
                            (shift > 0 ? " + 1" : " - 1") + "): key j is visible to query i exactly when j <= " + sees +
                            (offset == 0 ? ", so row 0 sees key 0 alone." : ", so the last query sees every key.")});
    }
    // After the off-by-one masks, which these would shadow: a mask one key short gives row 64 t the keys
    // below 64 t, as a skipped diagonal tile of 64 does.
    if (offset == 0) {
      for (int tile : {64, 128}) {
        ReferenceVariant skip;
        skip.causal_skip_tile = tile;
        h.push_back({skip, "O matches a causal kernel whose blocks of " + std::to_string(tile) +
                               " query rows skip their diagonal tile: the rows of tile t see keys below " +
                               std::to_string(tile) +
                               " t only (the rows of tile 0 none). A block must visit every key tile up to and "
                               "including the one that holds its last row, the diagonal one with the mask."});
      }
    }
  }
  ReferenceVariant twice;
  twice.scale_power = 2.0;
  h.push_back({twice, "O matches logits scaled by 1/d instead of 1/sqrt(d): the scale is applied twice."});
  ReferenceVariant none;
  none.scale_power = 0.0;
  h.push_back({none, "O matches logits without the 1/sqrt(d) scale: apply it once, to every logit."});
  for (int tile : {16, 32, 64, 128}) {
    const int padded = (s.seq_k + tile - 1) / tile * tile;
    if (padded > s.seq_k) {
      ReferenceVariant tail;
      tail.zero_keys = padded - s.seq_k;
      h.push_back({tail, "O matches attention whose last key tile is padded with keys of logit 0: the " +
                             std::to_string(padded - s.seq_k) + " keys past seq_k = " + std::to_string(s.seq_k) +
                             " in the last tile of " + std::to_string(tile) +
                             " were counted. A zero-filled key still gives exp(0 - m) > 0: give the tile's tail "
                             "keys a logit of -inf."});
    }
    const int whole = s.seq_k / tile * tile;
    if (whole > 0 && whole < s.seq_k) {
      ReferenceVariant dropped;
      dropped.key_limit = whole;
      h.push_back({dropped, "O matches attention over the first " + std::to_string(whole) +
                                " keys only: the last, partial tile of keys (" + std::to_string(whole) + ".." +
                                std::to_string(s.seq_k - 1) +
                                ") is never processed. Loop while the tile's first key is below seq_k."});
    }
  }
  for (int tile : {1, 16, 32, 64, 128}) {
    ReferenceVariant stale;
    stale.no_rescale_tile = tile;
    h.push_back({stale,
                 "O and L match an online softmax that never rescales: when a tile raises a row's running "
                 "max, the sum l and the output accumulator hold terms computed against the old max and "
                 "must both be multiplied by exp(m_old - m_new) (the missing rescale when the max grows)."});
  }
  return h;
}

// Up to 24 wrong rows (head, row), spread over the output.
std::vector<std::pair<int, int>> sample_bad_rows(const std::vector<std::pair<int, int>>& bad) {
  std::vector<std::pair<int, int>> sample;
  const std::size_t step = std::max<std::size_t>(1, bad.size() / 24);
  for (std::size_t i = 0; i < bad.size() && sample.size() < 24; i += step) sample.push_back(bad[i]);
  return sample;
}

// One sentence on what the pattern of wrong rows says about the bug.
std::string explain(const Outcome& out, const std::vector<std::pair<int, int>>& bad_rows,
                    const std::vector<RowReference>* cpu, bool huge, int splits) {
  const AttentionShape& s = out.shape;
  const bool decoding = splits > 0;
  std::size_t nan_o = 0, untouched_l = 0;
  for (float x : out.o) nan_o += std::isnan(x) && !wb::same_bits(x, wb::poison_value<float>());
  for (float x : out.l) untouched_l += wb::same_bits(x, wb::poison_value<float>());
  if (untouched_l == out.l.size())
    return "L was never written: every kernel also writes each row's log-sum-exp L = m + log(l).";
  if (nan_o > 0 && huge)
    return decoding ? "NaN in O with logits near +-1e4: expf overflows above 88.7 (and exp of -1e4 is 0, giving "
                      "0 / 0); a merge must scale each split by exp(m_s - m), never by exp(m_s) or exp(L_s)."
                    : "NaN in O with logits near +-1e4: expf overflows above 88.7 (and exp of -1e4 is 0, giving "
                      "0 / 0); subtract the row's running max before every exp.";
  if (nan_o > 0 && decoding)
    return "NaN in O: a merge of two empty partials (exp(-inf - -inf)), a merged l of 0 (no split saw a key: do "
           "the ranges cover 0..seq_k - 1?), or a read past the end of K or V (a split's range past seq_k: their "
           "guards hold NaN).";
  if (nan_o > 0)
    return "NaN in O: exp(-inf - -inf) for a row that has seen only masked keys, or a read past the end of Q, K or "
           "V (their guards hold NaN)." +
           (s.seq_q != s.seq_k ? " " + cross_hint(s) : "");
  if (cpu == nullptr || bad_rows.empty()) return cross_hint(s);
  const std::vector<std::pair<int, int>> sample = sample_bad_rows(bad_rows);
  auto ref_of = [&](int head, int row) -> const RowReference& {
    return (*cpu)[static_cast<std::size_t>(head) * s.seq_q + row];
  };
  // Rows that only L gets wrong, or only O.
  std::size_t o_ok = 0, l_ok = 0;
  for (const auto& [head, row] : sample) {
    o_ok += o_matches(out, head, row, ref_of(head, row));
    l_ok += l_matches(out, head, row, ref_of(head, row));
  }
  // Does every sampled wrong row (that the hypothesis leaves a key) match it?
  auto all_match = [&](const Hypothesis& h) {
    std::size_t matched = 0, tried = 0;
    for (const auto& [head, row] : sample) {
      const RowReference alt = p5::attention_reference_row(s, out.in, head, row, h.variant);
      if (alt.visible == 0) continue;
      ++tried;
      matched +=
          h.o_only ? o_matches_variant(out, head, row, alt) : row_matches(out, head, row, alt, hypothesis_slack(out));
    }
    return tried > 0 && matched == tried;
  };
  const std::vector<Hypothesis> candidates = hypotheses(s, splits);
  if (o_ok == sample.size() && !decoding) {
    // A sum l that is never rescaled shows in L first: O's bound (BF16's above all) can hide the weights
    // it shifts, but L lands exactly on the stale sum's m + log(l).
    for (const Hypothesis& h : candidates)
      if (h.variant.no_rescale_tile > 0 && all_match(h)) return h.diagnosis;
    if (out.precision == AttentionPrecision::BF16)
      return "O is right but L is not: L = m + log(l) per row, the natural log of the sum of exp(s - m) plus the "
             "max m of the scaled logits, in FP32; l is the row sum of the FP32 probabilities, taken before P is "
             "rounded to BF16 for the second product (the rounded P would move L by up to 2^-8).";
    return "O is right but L is not: L = m + log(l) per row, the natural log of the sum of exp(s - m) "
           "plus the max m of the scaled logits.";
  }
  if (o_ok == sample.size())
    return "O is right but L is not: the merged L is m + log(l), with m the largest m_s of the row's "
           "splits and l = sum of l_s exp(m_s - m), the same rescale as the outputs get (not the last "
           "split's L, nor a sum of the splits' L).";
  for (const Hypothesis& h : candidates)
    if (all_match(h)) return h.diagnosis;
  if (decoding && l_ok == sample.size())
    return "L is right but O is not: the splits' (m, l) merge well, so look at the outputs: each split's partial "
           "output must be scaled by exp(m_s - m) as its l_s is, and the merged sum divided by the merged l once.";
  if (decoding)
    return "O and L are wrong: check each split's range (every key in exactly one split, the last ending at "
           "seq_k), the causal end of each query (seq_k - seq_q + i), the partials' slots, and the merge (l_s and "
           "the partial output both scaled by exp(m_s - m)).";
  if (l_ok == sample.size())
    return "L is right but O is not: the softmax statistics are right, so look at the output accumulator: it must "
           "be rescaled by exp(m_old - m_new) together with l when the max grows, and divided by l at the end." +
           (s.seq_q != s.seq_k ? " " + cross_hint(s) : "");
  return "O and L are wrong: check the running max and sum per row (rescale both l and the output when the max "
         "grows), the scale (once), and which keys each tile lets in." +
         (s.seq_q != s.seq_k ? " " + cross_hint(s) : "");
}

std::vector<AttentionCase> make_cases(const std::vector<int>& seqs, bool causal, AttentionData data) {
  std::vector<AttentionCase> cases;
  for (int seq : seqs) {
    // Under compute-sanitizer (the grade's racecheck tracks every shared-memory access) the tails up
    // to 65 with two heads keep `workbook check` under 30 s: seq 257 alone was 5/6 of the work.
    if (wb::test::sanitize_mode() && seq > 65) continue;
    for (int d : {64, 128}) {
      AttentionCase c;
      c.shape.heads = wb::test::sanitize_mode() ? 2 : seq <= 257 ? 3 : 1;
      c.shape.seq_q = c.shape.seq_k = seq;
      c.shape.d = d;
      c.shape.causal = causal;
      c.data = data;
      cases.push_back(c);
    }
  }
  return cases;
}

}  // namespace

std::vector<AttentionCase> attention_cases(bool causal) {
  std::vector<AttentionCase> cases = make_cases({1, 17, 63, 64, 65, 257, 1000}, causal, AttentionData::Uniform);
  if (!wb::test::sanitize_mode()) cases[0].shape.heads = 1;  // seq 1, one head: the smallest problem there is
  if (!causal) {
    const std::vector<AttentionCase> cross = cross_cases();
    cases.insert(cases.end(), cross.begin(), cross.end());
  }
  return cases;
}

std::vector<AttentionCase> cross_cases() {
  // (seq_q, seq_k): fewer queries than keys first (a kernel that mixes the two up still reads inside K
  // there, and the grader can name the mix-up), then more; tails on both sides of the 64-row tiles.
  const std::pair<int, int> shapes[] = {{17, 65}, {63, 129}, {64, 257}, {1, 257}, {63, 1000},
                                        {65, 17}, {129, 63}, {257, 64}, {257, 1}, {1000, 63}};
  std::vector<AttentionCase> cases;
  for (const auto& [seq_q, seq_k] : shapes) {
    // Under compute-sanitizer: 17 x 65 and 65 x 17, as the square cases stop at 65.
    if (wb::test::sanitize_mode() && (seq_q > 65 || seq_k > 65)) continue;
    for (int d : {64, 128}) {
      AttentionCase c;
      // More than one head everywhere: a head offset taken with the wrong length shows from head 1 on.
      c.shape.heads = wb::test::sanitize_mode() || seq_q >= 1000 || seq_k >= 1000 ? 2 : 3;
      c.shape.seq_q = seq_q;
      c.shape.seq_k = seq_k;
      c.shape.d = d;
      cases.push_back(c);
    }
  }
  return cases;
}

std::vector<AttentionCase> tile_edge_cases(bool causal, int tile) {
  std::vector<AttentionCase> cases;
  if (wb::test::sanitize_mode()) return cases;
  std::vector<std::pair<int, int>> shapes;
  for (int seq : {tile - 1, tile, tile + 1, 2 * tile - 1, 2 * tile, 3 * tile - 1}) shapes.emplace_back(seq, seq);
  if (!causal) {
    shapes.insert(shapes.end(), {{tile + 1, tile - 1}, {tile - 1, 3 * tile + 1}, {1, 2 * tile}, {2 * tile + 1, 1}});
  }
  for (const auto& [seq_q, seq_k] : shapes) {
    for (int d : {64, 128}) {
      AttentionCase c;
      c.shape = AttentionShape{2, seq_q, seq_k, d, causal};
      cases.push_back(c);
    }
  }
  return cases;
}

std::vector<AttentionCase> huge_logit_cases(bool causal) {
  return make_cases({65, 257}, causal, AttentionData::HugeLogits);
}

namespace {

// Decoding shapes: every seq_k against every seq_q (causal only where seq_q <= seq_k), d 64 and 128,
// with the chosen split count and with 7. Under compute-sanitizer only the seq_k and seq_q of the
// sanitize_ lists, at 2 heads, so `workbook check` stays near half a minute.
std::vector<AttentionCase> make_decoding_cases(const std::vector<int>& seq_ks, const std::vector<int>& seq_qs,
                                               bool causal, AttentionData data, DecodingSplitChooser choose,
                                               const std::vector<int>& sanitize_seq_ks,
                                               const std::vector<int>& sanitize_seq_qs) {
  const auto listed = [](const std::vector<int>& list, int x) {
    return std::find(list.begin(), list.end(), x) != list.end();
  };
  std::vector<AttentionCase> cases;
  const int sms = wb::current_sm_count();
  for (int seq_k : seq_ks) {
    if (wb::test::sanitize_mode() && !listed(sanitize_seq_ks, seq_k)) continue;
    for (int seq_q : seq_qs) {
      if (causal && seq_q > seq_k) continue;  // a causal decoding step has at most seq_k queries
      if (wb::test::sanitize_mode() && !listed(sanitize_seq_qs, seq_q)) continue;
      for (int d : {64, 128}) {
        AttentionCase c;
        c.shape.heads = wb::test::sanitize_mode() ? 2 : seq_k <= 257 ? 3 : 1;
        c.shape.seq_q = seq_q;
        c.shape.seq_k = seq_k;
        c.shape.d = d;
        c.shape.causal = causal;
        c.data = data;
        c.splits = choose(c.shape, sms);
        cases.push_back(c);
        if (c.splits != 7) {
          c.splits = 7;
          cases.push_back(c);
        }
      }
    }
  }
  return cases;
}

}  // namespace

// Under compute-sanitizer: the tails up to 65 keys (seq_k 1 gives 7 splits 6 empty ones), 1 and 5 queries.
std::vector<AttentionCase> decoding_cases(bool causal, DecodingSplitChooser choose) {
  return make_decoding_cases({1, 17, 63, 64, 65, 257, 1000, 4096, 32768}, {1, 2, 5, 8}, causal, AttentionData::Uniform,
                             choose, {1, 17, 65}, {1, 5});
}

// Under compute-sanitizer: 65 keys, 3 and 17 queries (a padded 4-row group; three 8-row groups, the
// last with one row).
std::vector<AttentionCase> decoding_group_cases(bool causal, DecodingSplitChooser choose) {
  return make_decoding_cases({17, 65, 257, 1000}, {3, 9, 17}, causal, AttentionData::Uniform, choose, {65}, {3, 17});
}

std::vector<AttentionCase> decoding_huge_logit_cases(bool causal, DecodingSplitChooser choose) {
  return make_decoding_cases({65, 257, 1000}, {1, 5}, causal, AttentionData::HugeLogits, choose, {65}, {1, 5});
}

std::vector<AttentionCase> decoding_large_cases(DecodingSplitChooser choose) {
  std::vector<AttentionCase> cases;
  if (wb::test::sanitize_mode()) return cases;
  for (const AttentionShape shape : {AttentionShape{32, 1, 32768, 128, true}, AttentionShape{8, 4, 32768, 64, true}}) {
    AttentionCase c;
    c.shape = shape;
    c.splits = choose(shape, wb::current_sm_count());
    cases.push_back(c);
  }
  return cases;
}

std::vector<AttentionCase> large_cases(bool causal) {
  std::vector<AttentionCase> cases = make_cases({4096}, causal, AttentionData::Uniform);
  for (AttentionCase& c : cases) c.shape.heads = 2;
  if (causal || wb::test::sanitize_mode()) return cases;
  for (const auto& [seq_q, seq_k] : {std::pair<int, int>{4096, 1024}, std::pair<int, int>{1024, 4096}}) {
    for (int d : {64, 128}) {
      AttentionCase c;
      c.shape = AttentionShape{2, seq_q, seq_k, d, false};
      cases.push_back(c);
    }
  }
  return cases;
}

std::vector<AttentionCase> bf16_large_cases(bool causal) {
  std::vector<AttentionCase> cases = large_cases(causal);
  if (wb::test::sanitize_mode()) return cases;
  AttentionCase lesson;  // the lesson's shape, the one its aim is set at
  lesson.shape = AttentionShape{16, 4096, 4096, 128, causal};
  cases.push_back(lesson);
  return cases;
}

std::string judge_attention(const char* name, const AttentionCase& c, const p5::AttentionInputs& in,
                            const std::vector<float>& o, const std::vector<float>& l, AttentionPrecision precision) {
  const AttentionShape& s = c.shape;
  Outcome out;
  out.shape = s;
  out.in = in;
  out.o = o;
  out.l = l;
  out.exact_dots = c.data == AttentionData::HugeLogits;
  out.precision = precision;

  // Expected values and per-element bounds, from the CPU (every row) or from the cuBLAS path.
  const int d = s.d;
  std::vector<float> want_o(s.q_elements()), want_l(s.l_elements());
  std::vector<wb::Tolerance> tol_o(s.q_elements()), tol_l(s.l_elements());
  std::vector<RowReference> cpu;
  const bool on_cpu = 2.0 * s.heads * double(s.seq_q) * s.seq_k * d <= kCpuReferenceLimit;
  if (on_cpu) {
    cpu.reserve(s.l_elements());
    for (int h = 0; h < s.heads; ++h) {
      for (int i = 0; i < s.seq_q; ++i) {
        cpu.push_back(p5::attention_reference_row(s, out.in, h, i));
        const RowReference& ref = cpu.back();
        const RowTolerance t = p5::attention_row_tolerance(ref, d, out.exact_dots, 1.0, precision);
        const std::size_t row = cpu.size() - 1;
        for (int col = 0; col < d; ++col) {
          want_o[row * d + col] = static_cast<float>(ref.o[col]);
          // + u |O|: the double reference rounded to float for the comparison
          tol_o[row * d + col] = {t.o_abs + t.o_rel * ref.magnitude[col], wb::kFloatEpsilon};
        }
        want_l[row] = static_cast<float>(ref.lse);
        tol_l[row] = {t.l_abs, wb::kFloatEpsilon};
      }
    }
  } else {
    // The kernel's bound plus the reference's own (an FP32 result, on the same inputs: the BF16 ones
    // widened). |q|, |k|, |v| <= 1 bound the row sums the CPU would have measured.
    const wb::DeviceBuffer<float> q(out.in.q), k(out.in.k), v(out.in.v);
    wb::DeviceBuffer<float> ro(s.q_elements()), rl(s.l_elements()), rs(attention_scores_elements(s));
    p5::attention_reference(q.data(), k.data(), v.data(), ro.data(), rl.data(), s, rs.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    want_o = ro.download();
    want_l = rl.download();
    const double scale = attention_scale(d);
    for (std::size_t row = 0; row < want_l.size(); ++row) {
      const int i = static_cast<int>(row % s.seq_q);
      const int visible = attention_visible_keys(s, i);
      const RowTolerance t =
          p5::attention_bound(visible, d, scale * d, scale * d, want_l[row], out.exact_dots, 1.0, precision) +
          p5::attention_bound(visible, d, scale * d, scale * d, want_l[row], out.exact_dots, 1.0);
      for (int col = 0; col < d; ++col) tol_o[row * d + col] = {t.o_abs + t.o_rel, 2.0 * wb::kFloatEpsilon};
      tol_l[row] = {t.l_abs, 2.0 * wb::kFloatEpsilon};
    }
  }
  const wb::CompareReport o_report = wb::compare_each(
      want_o.data(), out.o.data(), want_o.size(), [&](std::size_t i) { return tol_o[i]; }, static_cast<std::size_t>(d));
  const wb::CompareReport l_report =
      wb::compare_each(want_l.data(), out.l.data(), want_l.size(), [&](std::size_t i) { return tol_l[i]; });
  if (o_report.ok() && l_report.ok()) return "";

  std::vector<std::pair<int, int>> bad_rows;
  for (std::size_t row = 0; row < want_l.size(); ++row) {
    bool bad = !wb::within(want_l[row], out.l[row], tol_l[row]) || wb::same_bits(out.l[row], wb::poison_value<float>());
    for (int col = 0; col < d && !bad; ++col) {
      const float got = out.o[row * d + col];
      bad = wb::same_bits(got, wb::poison_value<float>()) ||
            !wb::within(want_o[row * d + col], got, tol_o[row * d + col]);
    }
    if (bad) bad_rows.emplace_back(static_cast<int>(row / s.seq_q), static_cast<int>(row % s.seq_q));
  }
  std::string report;
  if (!o_report.ok()) report += o_report.describe(std::string(name) + ": O");
  if (!l_report.ok()) report += l_report.describe(std::string(name) + ": L");
  if (o_report.untouched == o_report.count) return report;  // describe() already says: output untouched
  std::ostringstream rows;
  rows << bad_rows.size() << " of " << want_l.size() << " rows are wrong";
  if (!bad_rows.empty()) rows << ", the first at head " << bad_rows[0].first << ", row " << bad_rows[0].second;
  rows << ". ";
  return report + rows.str() +
         explain(out, bad_rows, on_cpu ? &cpu : nullptr, c.data == AttentionData::HugeLogits, c.splits);
}

namespace {

// What the host reads back of an output (wb::device_values is what the device holds of an input; for
// BF16 inputs the rounding is exact: the values are BF16 already).
std::vector<float> host_values(const std::vector<float>& values) {
  return values;
}
std::vector<float> host_values(const std::vector<__nv_bfloat16>& values) {
  return wb::widen_bf16_output(values);
}

// The core every grader shares: inputs of element type T (float, or BF16 for 5.05; L and any workspace
// are FP32) ringed with NaN canaries, O poisoned between canaries; `launch(Q, K, V, O, L, workspace)`
// runs the launcher under test once; then the guards, then judge_attention.
template <typename T, typename Launch>
std::string grade_generic(const char* name, const AttentionCase& c, std::uint64_t seed, AttentionPrecision precision,
                          std::size_t workspace_elements, const char* workspace_name, Launch launch) {
  const AttentionShape& s = c.shape;
  const p5::AttentionInputs in = p5::make_attention_inputs(s, c.data, seed, precision);
  // Inputs ringed with NaN canaries (a read past an input shows as NaN); outputs poisoned between canaries.
  wb::GuardedDeviceBuffer<T> q(s.q_elements()), k(s.k_elements()), v(s.k_elements()), o(s.q_elements());
  wb::GuardedDeviceBuffer<float> l(s.l_elements()), workspace(workspace_elements);
  q.upload(wb::device_values<T>(in.q));
  k.upload(wb::device_values<T>(in.k));
  v.upload(wb::device_values<T>(in.v));
  const auto started = std::chrono::steady_clock::now();
  try {
    launch(q.data(), k.data(), v.data(), o.data(), l.data(), workspace.data());
  } catch (const wb::CudaError& e) {
    return std::string("launching ") + name + " failed: " + e.what();
  } catch (const std::invalid_argument& e) {
    return std::string(name) + " refused the shape: " + e.what();
  }
  const cudaError_t ran = cudaDeviceSynchronize();
  if (ran != cudaSuccess) {
    std::string failed =
        std::string("the kernel of ") + name + " failed while running: " + wb::test::explain_execution_error(ran);
    // 5.08's mbarrier waits are bounded: a wait that has not completed within 2 s stops the kernel.
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (seconds > 1.5)
      failed += " It failed after " + std::to_string(static_cast<int>(seconds)) +
                " s: a kernel whose mbarrier waits are bounded stops itself when a wait has not completed within "
                "2 s, so some wait never completed: a wrong parity (a fresh barrier counts the phase before "
                "phase 0, parity 1, as complete; the parity flips at every pass over the ring), an arrival "
                "nobody makes, or an expect_tx byte count that never arrives.";
    return failed;
  }
  const std::pair<const char*, wb::GuardReport> guards[] = {
      {"O", o.check_guards()}, {"L", l.check_guards()}, {workspace_name, workspace.check_guards()},
      {"Q", q.check_guards()}, {"K", k.check_guards()}, {"V", v.check_guards()}};
  for (const auto& [what, report] : guards)
    if (!report.ok()) return report.describe(std::string(name) + ": " + what);
  return judge_attention(name, c, in, host_values(o.download()), l.download(), precision);
}

std::string describe_case(const AttentionCase& c, const char* inputs) {
  return shape_text(c) + (c.data == AttentionData::HugeLogits ? ", logits near +-1e4" : inputs);
}

}  // namespace

std::string grade_attention(const char* name, const p5::AttentionKernel& kernel_in, const AttentionCase& c,
                            std::uint64_t seed) {
  p5::AttentionKernel kernel = kernel_in;
  if (c.splits > 0) kernel.splits = c.splits;
  return grade_generic<float>(name, c, seed, AttentionPrecision::FP32, kernel.workspace_elements(c.shape),
                              kernel.decoding ? "the partials' workspace" : "the scores workspace",
                              [&](const float* Q, const float* K, const float* V, float* O, float* L,
                                  float* workspace) { kernel(Q, K, V, O, L, c.shape, workspace, nullptr); });
}

std::string grade_attention_bf16(const char* name, Bf16AttentionLauncher launch, const AttentionCase& c,
                                 std::uint64_t seed) {
  return grade_generic<__nv_bfloat16>(
      name, c, seed, AttentionPrecision::BF16, 0, "a workspace",
      [&](const __nv_bfloat16* Q, const __nv_bfloat16* K, const __nv_bfloat16* V, __nv_bfloat16* O, float* L, float*) {
        launch(Q, K, V, O, L, c.shape, nullptr);
      });
}

void check_attention(const char* name, const p5::AttentionKernel& kernel, const AttentionCase& c) {
  const std::uint64_t seed = wb::test::seed();
  INFO(name << " with " << describe_case(c, ", q, k, v uniform in [-1, 1)") << ", seed " << seed
            << " (replay with WB_SEED=" << seed << ")");
  const std::string failure = grade_attention(name, kernel, c, seed);
  if (!failure.empty()) FAIL(failure);
}

void check_attention_bf16(const char* name, Bf16AttentionLauncher launch, const AttentionCase& c) {
  const std::uint64_t seed = wb::test::seed();
  INFO(name << " with " << describe_case(c, ", q, k, v uniform in [-1, 1) rounded to BF16") << ", seed " << seed
            << " (replay with WB_SEED=" << seed << ")");
  INFO(
      "the BF16 bound: O within 2^-8 sum p|v| (P rounded to BF16) + 2^-8 |O| (O rounded) + the FP32 terms "
      "(with truncating tensor-core sums); L within FP32's bound, from the FP32 row sum");
  const std::string failure = grade_attention_bf16(name, launch, c, seed);
  if (!failure.empty()) FAIL(failure);
}
