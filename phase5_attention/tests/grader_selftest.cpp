// SPDX-License-Identifier: MIT
// A grader that passes a wrong kernel is the worst bug of a course: plant each bug the phase 5 grader
// claims to diagnose and check that it fails with the sentence that names it, while a correct kernel
// passes (FP32, decoding, 5.05's BF16, and 5.08's Hopper kernel on a Hopper GPU); and check the cuBLAS
// path, which grades the large shapes, against the CPU reference.
#include <string>
#include <utility>
#include <vector>

#include "common/check.h"
#include "common/testing.h"
#include "phase5_attention/harness/reference_gpu.h"
#include "phase5_attention/tests/grading.h"
#include "phase5_attention/tests/wrong_kernels.h"

namespace {

struct Plant {
  const char* what;
  p5::AttentionKernel kernel;
  AttentionCase c;
  const char* diagnosis;  // "" = the grader must accept it
};

AttentionCase make(int heads, int seq, int d, bool causal, p5::AttentionData data = p5::AttentionData::Uniform) {
  AttentionCase c;
  c.shape.heads = heads;
  c.shape.seq_q = c.shape.seq_k = seq;
  c.shape.d = d;
  c.shape.causal = causal;
  c.data = data;
  return c;
}

}  // namespace

TEST_CASE("the phase 5 grader accepts a correct kernel and names every planted bug", "[gpu][grader][p5]") {
  const p5::AttentionData huge = p5::AttentionData::HugeLogits;
  const std::vector<Plant> plants = {
      {"a correct kernel", {planted_correct, nullptr}, make(3, 65, 64, false), ""},
      {"a correct kernel, causal, d = 128", {planted_correct, nullptr}, make(3, 257, 128, true), ""},
      {"a correct kernel, logits near 1e4", {planted_correct, nullptr}, make(3, 257, 64, true, huge), ""},
      {"a correct kernel, seq 1", {planted_correct, nullptr}, make(1, 1, 128, true), ""},
      {"never rescaling when the max grows",
       {planted_missing_rescale, nullptr},
       make(3, 257, 64, false),
       "missing rescale"},
      {"the scale applied twice", {planted_scale_twice, nullptr}, make(3, 65, 128, false), "applied twice"},
      {"a causal mask off by one", {planted_causal_off_by_one, nullptr}, make(3, 65, 64, true), "off by one"},
      {"no causal mask", {planted_no_mask, nullptr}, make(3, 65, 64, true), "without the causal mask"},
      {"dropping the last, partial key tile",
       {planted_drops_last_tile, nullptr},
       make(3, 65, 64, false),
       "is never processed"},
      {"counting the zero padding of the last key tile",
       {planted_counts_tail_keys, nullptr},
       make(3, 65, 128, false),
       "were counted"},
      {"L without the max", {planted_lse_without_max, nullptr}, make(3, 63, 64, false), "O is right but L is not"},
  };
  for (const Plant& p : plants) {
    INFO("planted: " << p.what);
    const std::string verdict = grade_attention("planted", p.kernel, p.c, wb::test::seed());
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

// Cross shapes (seq_q != seq_k): seq_q where seq_k belongs passes every square case, so only a cross case
// can fail it. Each plant must pass every square case, causal or not, and fail every cross case with
// fewer queries than keys (where its reads stay inside K and V) with the sentence that names the mix-up;
// a correct kernel must pass every cross case, on both sides.
namespace {
template <typename Grade>
void check_cross_plant(const char* what, Grade grade, const char* diagnosis, bool every_square) {
  std::vector<AttentionCase> squares;
  if (every_square) {
    for (bool causal : {false, true})
      for (const AttentionCase& c : attention_cases(causal))
        if (c.shape.seq_q == c.shape.seq_k) squares.push_back(c);
  } else {
    squares = {make(3, 65, 64, false), make(3, 257, 128, true), make(1, 1000, 128, false)};
  }
  for (const AttentionCase& c : squares) {
    INFO("planted: " << what << ", square: heads " << c.shape.heads << ", seq " << c.shape.seq_q << ", d " << c.shape.d
                     << (c.shape.causal ? ", causal" : ""));
    const std::string verdict = grade(c);
    INFO("grader said: " << verdict);
    CHECK(verdict.empty());
  }
  int graded = 0;
  for (const AttentionCase& c : cross_cases()) {
    if (c.shape.seq_q >= c.shape.seq_k) continue;
    ++graded;
    INFO("planted: " << what << ", heads " << c.shape.heads << ", seq_q " << c.shape.seq_q << ", seq_k "
                     << c.shape.seq_k << ", d " << c.shape.d);
    const std::string verdict = grade(c);
    INFO("grader said: " << verdict);
    CHECK(verdict.find(diagnosis) != std::string::npos);
  }
  CHECK(graded > 0);
}
}  // namespace

TEST_CASE("the phase 5 grader names seq_q used where seq_k belongs, which only cross shapes show",
          "[gpu][grader][p5]") {
  for (const AttentionCase& c : cross_cases()) {
    INFO("a correct kernel, heads " << c.shape.heads << ", seq_q " << c.shape.seq_q << ", seq_k " << c.shape.seq_k
                                    << ", d " << c.shape.d);
    CHECK(grade_attention("planted", {planted_correct, nullptr}, c, wb::test::seed()).empty());
    CHECK(grade_attention_bf16("planted", planted_bf16_correct, c, wb::test::seed()).empty());
  }
  const char* offset = "the head offset into K and V uses seq_q where seq_k belongs";
  const char* bound = "the key loop (or a key tile's bound) uses seq_q where seq_k belongs";
  auto fp32 = [](AttentionLauncher launch) {
    return [launch](const AttentionCase& c) {
      return grade_attention("planted", {launch, nullptr}, c, wb::test::seed());
    };
  };
  auto bf16 = [](Bf16AttentionLauncher launch) {
    return [launch](const AttentionCase& c) { return grade_attention_bf16("planted", launch, c, wb::test::seed()); };
  };
  check_cross_plant("the K/V head offset taken with seq_q", fp32(planted_kv_head_offset_seq_q), offset, true);
  check_cross_plant("the key loop bounded by seq_q", fp32(planted_key_bound_seq_q), bound, true);
  check_cross_plant("BF16, the K/V head offset taken with seq_q", bf16(planted_bf16_kv_head_offset_seq_q), offset,
                    false);
  check_cross_plant("BF16, the key loop bounded by seq_q", bf16(planted_bf16_key_bound_seq_q), bound, false);
}

// The bugs the plain grader cannot see, each its own case so that CTest can run compute-sanitizer on
// it alone (gpu.p5.sanitizer-*, workbook_sanitizer_catches). Their results are right, so the grader
// passes them: checked here; the sanitizer tests prove the grade's runs fail them. Small shapes (the
// sanitizer runs have two minutes): seq 65 ends in a partial 32-key tile, and 1 head puts its tail at
// the end of K.
namespace {
void check_passes_plain_grader(AttentionLauncher launch) {
  for (const AttentionCase& c : {make(1, 65, 64, false), make(2, 17, 128, false)}) {
    INFO("seq " << c.shape.seq_q << ", d " << c.shape.d << ", " << c.shape.heads << " head(s)");
    CHECK(grade_attention("planted", {launch, nullptr}, c, wb::test::seed()).empty());
  }
}
}  // namespace

TEST_CASE("a correct one-warp tiled attention kernel passes the plain grader", "[gpu][grader][p5]") {
  check_passes_plain_grader(planted_tiled_correct);
}

// One warp per block runs in lockstep, so the K and V tiles are complete when read and not yet
// overwritten: right answers on every run; only racecheck sees the missing barriers.
TEST_CASE("planted race: a one-warp K/V tile without barriers passes the plain grader",
          "[gpu][grader][p5][planted-race]") {
  check_passes_plain_grader(planted_tiled_no_barrier);
}

// The element after K is read and zeroed: right answers (in plain runs it is a canary of the guard);
// only memcheck on exact-size inputs (WB_EXACT_INPUTS, as the grade's memcheck run) sees the read.
TEST_CASE("planted over-read: a K tile load one past the end, zeroed, passes the plain grader",
          "[gpu][grader][p5][planted-overread]") {
  check_passes_plain_grader(planted_tiled_reads_past_end_masked);
}

TEST_CASE("the phase 5 grader accepts a correct decoding kernel and names every planted decoding bug",
          "[gpu][grader][p5]") {
  const p5::AttentionData huge = p5::AttentionData::HugeLogits;
  auto decode = [](int heads, int seq_q, int seq_k, int d, bool causal, int splits,
                   p5::AttentionData data = p5::AttentionData::Uniform) {
    AttentionCase c;
    c.shape = AttentionShape{heads, seq_q, seq_k, d, causal};
    c.data = data;
    c.splits = splits;
    return c;
  };
  const std::vector<Plant> plants = {
      {"a correct decoding kernel", {planted_decoding_correct, 1}, decode(3, 5, 257, 64, true, 7), ""},
      {"a correct decoding kernel, d = 128, not causal",
       {planted_decoding_correct, 1},
       decode(3, 8, 1000, 128, false, 5),
       ""},
      {"a correct decoding kernel, empty splits", {planted_decoding_correct, 1}, decode(3, 1, 1, 64, true, 7), ""},
      {"a correct decoding kernel, logits near 1e4",
       {planted_decoding_correct, 1},
       decode(3, 5, 257, 128, true, 7, huge),
       ""},
      {"partials merged without rescaling",
       {planted_decoding_merge_no_rescale, 1},
       decode(3, 2, 257, 64, false, 7),
       "merged without rescaling"},
      {"the last split's tail keys dropped",
       {planted_decoding_drops_split_tail, 1},
       decode(3, 2, 65, 128, false, 7),
       "tail keys were dropped"},
      {"L merged wrong",
       {planted_decoding_lse_merged_wrong, 1},
       decode(3, 2, 257, 64, false, 7),
       "the merged L is m + log(l)"},
      {"the causal mask of a square matrix",
       {planted_decoding_square_mask, 1},
       decode(3, 5, 65, 64, true, 7),
       "causal mask of a square matrix"},
  };
  for (const Plant& p : plants) {
    INFO("planted: " << p.what);
    const std::string verdict = grade_attention("planted", p.kernel, p.c, wb::test::seed());
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

TEST_CASE("the phase 5 grader accepts a correct BF16 kernel and names every planted BF16 bug", "[gpu][grader][p5]") {
  // 5.05's precision: BF16 inputs, P rounded to BF16 before P V, O rounded to BF16, under BF16's bound
  // (host.p5.grader-model runs the same plants on a host model with tensor cores' truncating sums).
  const p5::AttentionData huge = p5::AttentionData::HugeLogits;
  struct Bf16Plant {
    const char* what;
    Bf16AttentionLauncher launch;
    AttentionCase c;
    const char* diagnosis;  // "" = the grader must accept it
  };
  const std::vector<Bf16Plant> plants = {
      {"a correct BF16 kernel", planted_bf16_correct, make(3, 65, 64, false), ""},
      {"a correct BF16 kernel, causal, d = 128", planted_bf16_correct, make(3, 257, 128, true), ""},
      {"a correct BF16 kernel, logits near 1e4", planted_bf16_correct, make(3, 257, 64, true, huge), ""},
      {"a correct BF16 kernel, seq 1", planted_bf16_correct, make(1, 1, 128, true), ""},
      {"a correct BF16 kernel, seq 1000", planted_bf16_correct, make(1, 1000, 128, false), ""},
      // Graded against the cuBLAS path (FP32 on the BF16 inputs widened), as 5.05's large cases are.
      {"a correct BF16 kernel, seq 4096 against the cuBLAS path", planted_bf16_correct, make(2, 4096, 128, true), ""},
      {"never rescaling when the max grows", planted_bf16_missing_rescale, make(3, 257, 64, false), "missing rescale"},
      {"never rescaling, logits near 1e4", planted_bf16_missing_rescale, make(3, 257, 64, false, huge),
       "missing rescale"},
      {"the scale applied twice", planted_bf16_scale_twice, make(3, 65, 128, false), "applied twice"},
      {"a causal mask off by one", planted_bf16_causal_off_by_one, make(3, 65, 64, true), "off by one"},
      {"dropping the last, partial key tile", planted_bf16_drops_last_tile, make(3, 65, 64, false),
       "is never processed"},
  };
  for (const Bf16Plant& p : plants) {
    INFO("planted: " << p.what);
    const std::string verdict = grade_attention_bf16("planted", p.launch, p.c, wb::test::seed());
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

TEST_CASE("the cuBLAS path that grades seq 4096 matches the CPU reference", "[gpu][grader][p5]") {
  const p5::AttentionKernel reference{nullptr, p5::attention_reference};
  for (bool causal : {false, true}) {
    for (int d : {64, 128}) {
      for (int seq : {1, 65, 257}) {
        const AttentionCase c = make(3, seq, d, causal);
        INFO("the cuBLAS path at seq " << seq << ", d " << d << (causal ? ", causal" : ""));
        const std::string verdict = grade_attention("attention_reference", reference, c, wb::test::seed());
        INFO("grader said: " << verdict);
        CHECK(verdict.empty());
      }
      const AttentionCase big = make(3, 257, d, causal, p5::AttentionData::HugeLogits);
      CHECK(grade_attention("attention_reference", reference, big, wb::test::seed()).empty());
      // Cross shapes, not causal: more queries than keys and fewer.
      if (!causal) {
        for (const auto& [seq_q, seq_k] : {std::pair<int, int>{65, 17}, std::pair<int, int>{17, 65}}) {
          AttentionCase cross = make(3, seq_q, d, false);
          cross.shape.seq_k = seq_k;
          INFO("the cuBLAS path at seq_q " << seq_q << ", seq_k " << seq_k << ", d " << d);
          CHECK(grade_attention("attention_reference", reference, cross, wb::test::seed()).empty());
        }
      }
      // Decoding shapes (5.06's lesson yardstick): seq_q < seq_k, causal rows ending at seq_k - seq_q + i.
      AttentionCase decode = make(3, 5, d, causal);
      decode.shape.seq_k = 257;
      INFO("the cuBLAS path at seq_q 5, seq_k 257, d " << d << (causal ? ", causal" : ""));
      CHECK(grade_attention("attention_reference", reference, decode, wb::test::seed()).empty());
    }
  }
}

// ---- 5.08: the solution's Hopper kernel with one bug (tests/wrong_kernels_hopper.cu, sm_90a code) -----

namespace {
bool is_hopper() {
  int major = 0, minor = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  if (major * 10 + minor != 90)
    WARN("sm_" << major << minor << " is not Hopper: 5.08's sm_90a planted bugs are not run");
  return major * 10 + minor == 90;
}
}  // namespace

TEST_CASE("the BF16 grader accepts 5.08's kernel and names the Hopper bugs the values show",
          "[gpu][grader][p5][hopper]") {
  if (!is_hopper()) return;
  const p5::AttentionData huge = p5::AttentionData::HugeLogits;
  struct HopperPlant {
    const char* what;
    Bf16AttentionLauncher launch;
    AttentionCase c;
    const char* diagnosis;  // "" = the grader must accept it
  };
  // Shapes past one 128-key tile (the bugs live between tiles), the host model's (host.p5.grader-model
  // judges the same bugs on a host model of the arithmetic).
  const std::vector<HopperPlant> plants = {
      {"5.08's kernel", planted_hopper_correct, make(3, 257, 128, true), ""},
      {"5.08's kernel, d = 64", planted_hopper_correct, make(2, 1000, 64, false), ""},
      {"5.08's kernel, causal, d = 64, three query tiles", planted_hopper_correct, make(2, 383, 64, true), ""},
      {"5.08's kernel, logits near 1e4", planted_hopper_correct, make(3, 257, 128, false, huge), ""},
      {"5.08's kernel, seq 1", planted_hopper_correct, make(1, 1, 64, true), ""},
      {"O not rescaled when the max grows (l is)", planted_hopper_output_not_rescaled, make(2, 1000, 64, false),
       "rescaled by exp(m_old - m_new) together with l"},
      {"O not rescaled, seq 257", planted_hopper_output_not_rescaled, make(3, 257, 64, false),
       "rescaled by exp(m_old - m_new) together with l"},
      {"causal blocks skipping their diagonal tile", planted_hopper_skips_diagonal_tile, make(2, 383, 64, true),
       "skip their diagonal tile"},
      {"the last tile's keys past seq_k not masked", planted_hopper_tail_unmasked, make(2, 257, 64, false),
       "were counted"},
      {"L in exp2's units (m log2 e + log2 l)", planted_hopper_lse_base2, make(2, 257, 64, true),
       "O is right but L is not"},
  };
  for (const HopperPlant& p : plants) {
    INFO("planted: " << p.what);
    const std::string verdict = grade_attention_bf16("planted", p.launch, p.c, wb::test::seed());
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
  // What no run is sure to show is the grade's source check's: tools/hopper_order_check.py fails both
  // (host.p1.hopper-order-check plants them in the solution's text). One graded run each, for the record.
  const std::pair<const char*, Bf16AttentionLauncher> races[] = {
      {"a stage released before the wgmma_wait_group that retires its P V", planted_hopper_early_release},
      {"no fence.proxy.async before the TMA store of O", planted_hopper_no_store_fence}};
  for (const auto& [what, launch] : races) {
    const std::string verdict = grade_attention_bf16("planted", launch, make(2, 1000, 128, false), wb::test::seed());
    WARN("5.08, " << what << ": " << (verdict.empty() ? "passed" : "failed") << " one graded run; the grade's "
                  << "source check (tools/hopper_order_check.py) fails it whatever the run shows");
  }
}

// Its own process (gpu.p5.hopper-parity): the wait on the other parity either returns before the tile
// has landed (wrong values) or waits for a phase that needs the consumers' own release, and the bounded
// wait traps after 2 s: a launch failure that leaves the CUDA context unusable for any case after it.
TEST_CASE("planted wrong parity: 5.08's consumers wait on the other phase, and the grade fails",
          "[.][gpu][grader][p5][hopper][planted-parity]") {
  if (!is_hopper()) return;
  const std::string verdict =
      grade_attention_bf16("planted", planted_hopper_wrong_parity, make(2, 1000, 128, false), wb::test::seed());
  INFO("grader said: " << verdict);
  CHECK(!verdict.empty());
  WARN("wrong parity: " << verdict.substr(0, 240));
}

// Not in the suite ([.race], run by hand on a Hopper GPU): how often one graded run catches 5.08's early
// release and missing store fence, which the grade leaves to tools/hopper_order_check.py.
TEST_CASE("how often a run catches 5.08's early release or missing store fence", "[.race][gpu][p5][hopper]") {
  if (!is_hopper()) return;
  const std::pair<const char*, Bf16AttentionLauncher> races[] = {{"early release", planted_hopper_early_release},
                                                                 {"no store fence", planted_hopper_no_store_fence}};
  for (const auto& [what, launch] : races) {
    for (const AttentionCase& c : {make(2, 4096, 128, false), make(16, 4096, 128, false)}) {
      constexpr int kRuns = 10;
      int caught = 0;
      for (int r = 0; r < kRuns; ++r)
        caught += grade_attention_bf16("planted", launch, c, wb::test::seed() + r).empty() ? 0 : 1;
      WARN(what << " at " << c.shape.heads << "x" << c.shape.seq_q << "x128: caught by " << caught << " of " << kRuns
                << " graded runs");
    }
  }
}
