// SPDX-License-Identifier: MIT
// A grader that passes a wrong kernel is the worst bug of a course: plant each bug the phase 6 grader
// claims to diagnose and check that it fails with the sentence that names it, while a correct launcher
// passes. The ring all-reduce plants run on virtual ranks (any GPU) and on real GPUs where there are
// two or more; the peer-copy plants need two GPUs. Ordering bugs are caught by construction: one rank's
// input arrives late and another rank is held after the barrier, so a missing wait reads stale data
// on every run, not by luck.
#include <cstdlib>
#include <string>
#include <vector>

#include "common/testing.h"
#include "phase6_multi_gpu/harness/nccl_support.h"
#include "phase6_multi_gpu/tests/collectives_grading.h"
#include "phase6_multi_gpu/tests/grading.h"
#include "phase6_multi_gpu/tests/mlp_grading.h"
#include "phase6_multi_gpu/tests/wrong_kernels.h"

namespace {

struct RingPlant {
  const char* what;
  p6::test::AllreduceLauncher launch;
  bool in_place;
  const char* diagnosis;  // "" = the grader must accept it
};

const std::vector<RingPlant> kRingPlants = {
    {"a correct ring", planted_ring_correct, false, ""},
    {"a correct ring, in place", planted_ring_correct, true, ""},
    {"a neighbour's chunk read at the wrong offset", planted_ring_wrong_chunk_offset, false, "wrong chunk offset"},
    {"no wait between ring steps", planted_ring_no_step_wait, false, "missing wait"},
    {"no wait between ring steps, in place", planted_ring_no_step_wait, true, "missing wait"},
    {"the reduce-scatter without the all-gather", planted_ring_no_allgather, false, "all-gather"},
    {"the tail past the last vector dropped", planted_ring_drops_tail, false, "tail was dropped"},
    {"a chunk added twice", planted_ring_adds_twice, false, "counted twice"},
    {"no barrier before the first step", planted_ring_no_entry_barrier, false, "RankGroup::barrier"},
};

}  // namespace

TEST_CASE("the phase 6 grader accepts a correct ring all-reduce and names every planted bug", "[gpu][grader][p6]") {
  for (const p6::test::GroupSpec& spec : p6::test::group_specs(true, 5)) {
    p6::RankGroup group = p6::test::make_group(spec);
    for (const RingPlant& p : kRingPlants) {
      for (std::size_t count : {std::size_t(4099), std::size_t(65537)}) {
        INFO("planted: " << p.what << " on " << spec.describe() << ", count " << count);
        const std::string verdict = p6::test::grade_allreduce("planted", p.launch, group, count, p.in_place, 1);
        INFO("grader said: " << verdict);
        if (std::string(p.diagnosis).empty()) {
          CHECK(verdict.empty());
        } else {
          CHECK(verdict.find(p.diagnosis) != std::string::npos);
        }
      }
    }
  }
}

TEST_CASE("the phase 6 grader accepts a correct peer copy and names every planted bug", "[gpu][grader][p6]") {
  if (p6::visible_gpu_count() < 2) {
    WARN("one GPU: the peer-copy plants need two (they run where two or more are visible)");
    return;
  }
  for (int a : {0, 1}) {
    const int b = 1 - a;
    p6::RankGroup::real(2);  // peer access both ways
    const struct {
      const char* what;
      p6::test::PeerCopyLauncher launch;
      std::size_t count, dst_offset;
      const char* diagnosis;
    } plants[] = {
        {"a correct copy", planted_copy_correct, 4099, 0, ""},
        {"a correct copy, dst off 16 bytes", planted_copy_correct, 33, 1, ""},
        {"the tail dropped", planted_copy_drops_tail, 4099, 0, "tail"},
        {"one pass of the grid, no loop", planted_copy_one_pass, 1 << 20, 0, "grid-stride loop"},
        {"a write one past the end", planted_copy_writes_one_past, 4099, 0, "past the end"},
        {"vector and float indices mixed up", planted_copy_vector_index_mixup, 4099, 0, "wrong float"},
        {"nothing copied", planted_copy_nothing, 4099, 0, "Output untouched"},
    };
    for (const auto& p : plants) {
      INFO("planted: " << p.what << ", GPU " << a << " reading GPU " << b);
      const std::string verdict = p6::test::grade_peer_copy("planted", p.launch, a, b, p.count, p.dst_offset, 0, 1);
      INFO("grader said: " << verdict);
      if (std::string(p.diagnosis).empty()) {
        CHECK(verdict.empty());
      } else {
        CHECK(verdict.find(p.diagnosis) != std::string::npos);
      }
    }
  }
}

// ---- 6.03 nccl_collectives ------------------------------------------------------------------------------
// The planted collectives run in worker processes (tests/planted_collectives.cpp, the bug chosen by
// P6_PLANTED_BUG), so the deadlock plant ends in a timeout and a diagnosis, not a hung self-test.

namespace {

void share_id(p6::RankProcesses& processes) {
  ncclUniqueId id;
  NCCL_CHECK(ncclGetUniqueId(&id));
  for (int r = 0; r < processes.size(); ++r) processes.send(r, &id, sizeof(id));
}

double busbw_right(p6::Collective op, double bytes, double ms, int ranks) {
  const double algbw = bytes / (ms * 1e6), n = ranks;
  return op == p6::Collective::AllReduce   ? algbw * 2 * (n - 1) / n
         : op == p6::Collective::Broadcast ? algbw
                                           : algbw * (n - 1) / n;
}

// The all-reduce's factor for every collective.
double busbw_allreduce_for_all(p6::Collective, double bytes, double ms, int ranks) {
  return bytes / (ms * 1e6) * 2.0 * (ranks - 1) / ranks;
}

}  // namespace

TEST_CASE("the 6.03 grader accepts nccl-tests' bus bandwidth and rejects the all-reduce's factor everywhere",
          "[grader][p6]") {
  CHECK(p6::test::judge_busbw(busbw_right).empty());
  const std::string verdict = p6::test::judge_busbw(busbw_allreduce_for_all);
  INFO("grader said: " << verdict);
  CHECK(verdict.find("reduce-scatter") != std::string::npos);
}

TEST_CASE("the 6.03 grader accepts right collectives and names every planted bug, without hanging",
          "[gpu][grader][p6]") {
  if (p6::visible_gpu_count() < 2) {
    WARN("one GPU: the collective plants need two (they run where two or more are visible)");
    return;
  }
  p6::disable_nvls();
  const struct {
    const char* bug;
    bool per_process;
    const char* diagnosis;  // "" = the grader must accept it
  } plants[] = {
      {"none", false, ""},
      {"none", true, ""},
      {"no_group", false, "ncclGroupStart"},
      {"rs_total_count", false, "too small"},
      {"rs_total_count", true, "too small"},
      {"ag_no_offset", false, "offset"},
      {"ag_no_offset", true, "offset"},
      {"bc_root_zero", false, "wrong root"},
  };
  for (const auto& p : plants) {
    setenv("P6_PLANTED_BUG", p.bug, 1);
    INFO("planted: " << p.bug << (p.per_process ? ", one process per GPU" : ", one process"));
    const std::string verdict = p6::test::grade_collectives("p6_planted_collectives", 2, p.per_process, share_id, 20.0);
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
  unsetenv("P6_PLANTED_BUG");
}

namespace {

void share_nothing(p6::RankProcesses&) {}

}  // namespace

TEST_CASE("the 6.03 grader's rank processes work on one GPU and a rank that never gets its id times out",
          "[gpu][grader][p6]") {
  p6::disable_nvls();
  setenv("P6_PLANTED_BUG", "none", 1);
  for (const bool per_process : {false, true}) {
    INFO((per_process ? "one process per GPU" : "one process") << ", 1 GPU");
    const std::string verdict = p6::test::grade_collectives("p6_planted_collectives", 1, per_process, share_id, 60.0);
    INFO("grader said: " << verdict);
    CHECK(verdict.empty());
  }
  // The launcher forgets the id: the rank waits on its pipe, the grader waits on the rank; the deadline ends it.
  const std::string verdict = p6::test::grade_collectives("p6_planted_collectives", 1, true, share_nothing, 5.0);
  INFO("grader said: " << verdict);
  CHECK(verdict.find("did not answer") != std::string::npos);
  CHECK(verdict.find("unique id") != std::string::npos);
  unsetenv("P6_PLANTED_BUG");
}

// ---- 6.05 tensor_parallel_mlp ---------------------------------------------------------------------------

TEST_CASE("the 6.05 grader accepts a right tensor-parallel MLP and names every planted bug", "[gpu][grader][p6]") {
  if (p6::visible_gpu_count() < 2) {
    WARN("one GPU: the tensor-parallel plants need two (they run where two or more are visible)");
    return;
  }
  const struct {
    const char* what;
    p6::test::ShardFn shard_w1, shard_w2;
    p6::test::MlpLauncher launch;
    const char* diagnosis;  // "" = the grader must accept it
  } plants[] = {
      {"a right split and step", planted_shard_w1_columns, planted_shard_w2_rows, planted_mlp_correct, ""},
      {"the row-parallel GEMM without its all-reduce", planted_shard_w1_columns, planted_shard_w2_rows,
       planted_mlp_no_allreduce, "missing all-reduce"},
      {"W1 sharded by rows", planted_shard_w1_rows, planted_shard_w2_rows, planted_mlp_correct, "differs from"},
      {"GELU after the all-reduce", planted_shard_w1_columns, planted_shard_w2_rows, planted_mlp_gelu_after_allreduce,
       "differs from"},
      {"rank 1's W2 shard at block 0's offset", planted_shard_w1_columns, planted_shard_w2_rank1_offset,
       planted_mlp_correct, "differs from"},
  };
  for (const auto& p : plants) {
    for (const p6::MlpShape& shape : p6::test::mlp_test_shapes(2)) {
      if (shape.tokens == 1) continue;  // too small to tell some bugs from noise by design: the larger shapes do
      INFO("planted: " << p.what << ", " << shape.describe());
      const std::string verdict = p6::test::grade_mlp("planted", p.shard_w1, p.shard_w2, p.launch, 2, shape, 1);
      INFO("grader said: " << verdict);
      if (std::string(p.diagnosis).empty()) {
        CHECK(verdict.empty());
      } else {
        CHECK(verdict.find(p.diagnosis) != std::string::npos);
      }
    }
  }
}

TEST_CASE("the 6.05 grader on one GPU: the GEMMs, the GELU and the tolerance accept a right MLP, reject GELU moved",
          "[gpu][grader][p6]") {
  for (const p6::MlpShape& shape : p6::test::mlp_test_shapes(1)) {
    INFO(shape.describe());
    const std::string right = p6::test::grade_mlp("planted", planted_shard_w1_columns, planted_shard_w2_rows,
                                                  planted_mlp_correct, 1, shape, 1);
    INFO("grader said: " << right);
    CHECK(right.empty());
    if (shape.tokens == 1) continue;
    const std::string moved = p6::test::grade_mlp("planted", planted_shard_w1_columns, planted_shard_w2_rows,
                                                  planted_mlp_gelu_after_allreduce, 1, shape, 1);
    INFO("grader said: " << moved);
    CHECK(moved.find("differs from") != std::string::npos);
  }
}
