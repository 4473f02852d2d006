// SPDX-License-Identifier: MIT
// The phase 6 grader. Rank groups: every test runs on virtual groups of 2 to 8 ranks on GPU 0 where the
// algorithm allows it, then on real groups of 2 up to every visible GPU; an exercise that needs real
// peers exits 77 with one line where fewer than two GPUs are visible (require_real_gpus).
// All-reduce grading: rank r's input is a_r[i] x 8^r with a_r[i] in {1, 2, 3}, small integers held
// exactly in float, so every sum is exact and its base-8 digits say how many times each rank's
// contribution arrived (a lost or doubled chunk shows exactly, and whose it was). Each rank's output
// starts as its own poison value and each input as another (negative, huge: never a sum), so a value
// copied from a rank that had not written it yet names that rank. Outputs and inputs are guarded.
// Ordering by construction: one rank's inputs arrive late (its stream holds before the upload), and
// RankGroup::barrier holds another rank back, so a step that does not wait for its upstream neighbour
// reads stale data every time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "phase6_multi_gpu/harness/ranks.h"

namespace p6 {
namespace test {

// A group to test on: `ranks` virtual ranks on GPU 0, or ranks on the real GPUs 0 .. ranks-1.
struct GroupSpec {
  int ranks = 2;
  bool is_virtual = true;
  std::string describe() const;  // "4 virtual ranks" / "2 real GPUs"
};
// Virtual groups of 2 .. max_virtual ranks (none when `virtual_allowed` is false), then real groups of
// 2 .. visible GPUs.
std::vector<GroupSpec> group_specs(bool virtual_allowed, int max_virtual = 8);
RankGroup make_group(const GroupSpec& spec);

// For exercises that need real peers: prints "SKIPPED: <id> <name> needs 2 GPUs, ..." and exits 77
// (the test binary skips) where fewer than `needed` GPUs are visible.
void require_real_gpus(const std::string& id, const std::string& name, int needed);

// ---- peer copies (6.01) ------------------------------------------------------------------------------

using PeerCopyLauncher = void (*)(float* dst, const float* src, std::size_t count, cudaStream_t stream);
// Copies `count` random floats from GPU src_device (at src_offset floats past a 256-byte boundary) to
// GPU dst_device (at dst_offset) on a stream of dst_device, once; "" when every float arrived and nothing
// else was written, else the report and a sentence naming the likely bug.
std::string grade_peer_copy(const char* name, PeerCopyLauncher launch, int dst_device, int src_device,
                            std::size_t count, std::size_t dst_offset, std::size_t src_offset, std::uint64_t seed);

// ---- all-reduce (6.02, and any exercise whose result is an all-reduce sum) ----------------------------

using AllreduceLauncher = void (*)(const float* const* send, float* const* recv, std::size_t count, RankGroup& group);

// Rank r's input: a_r[i] x 8^r, a_r[i] in {1, 2, 3} from the seed.
std::vector<float> allreduce_input(int rank, std::size_t count, std::uint64_t seed);
// The poison each rank's output (recv) and input (send) start as: distinct per rank, never a sum.
float recv_poison(int rank);
float send_poison(int rank);

// The judging half (host): rank `rank`'s output `got` against inputs[0 .. n-1]; "" when every element
// is the exact sum, else how many are wrong, the first few, and a sentence naming the likely bug.
std::string judge_allreduce(const std::vector<std::vector<float>>& inputs, int rank, const std::vector<float>& got);

struct AllreduceCase {
  GroupSpec group;
  std::size_t count = 0;
  bool in_place = false;
  std::size_t offset = 0;  // floats by which every send and recv buffer starts off 16 bytes
};
// count 0, 1, 3, 5, 31, 33, 1000, 4099, 65537 and (not under WB_SANITIZE) 1M + 3, for each group of
// group_specs(true); in place for a few; and 5 and 4099 with every buffer one float past 16 bytes, out
// of place and in place (the contract allows any float offset: 16-byte loads must check for it).
std::vector<AllreduceCase> allreduce_cases();
// Runs `launch` once on the case (inputs late on one rank, another held after the barrier), then judges
// every rank's output and guards: "" when right, else the report.
std::string grade_allreduce(const char* name, AllreduceLauncher launch, RankGroup& group, std::size_t count,
                            bool in_place, std::uint64_t seed, std::size_t offset = 0);
void check_allreduce(const char* name, AllreduceLauncher launch, const AllreduceCase& c);

}  // namespace test
}  // namespace p6
