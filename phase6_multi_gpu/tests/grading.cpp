// SPDX-License-Identifier: MIT
#include "phase6_multi_gpu/tests/grading.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>

#include "common/buffer.h"
#include "common/check.h"
#include "common/data.h"
#include "common/testing.h"
#include "phase6_multi_gpu/harness/lesson_support.h"

namespace p6 {
namespace test {

std::string GroupSpec::describe() const {
  return std::to_string(ranks) + (is_virtual ? " virtual ranks on GPU 0" : " real GPUs");
}

std::vector<GroupSpec> group_specs(bool virtual_allowed, int max_virtual) {
  std::vector<GroupSpec> specs;
  if (virtual_allowed)
    for (int n = 2; n <= max_virtual; ++n) specs.push_back(GroupSpec{n, true});
  const int visible = visible_gpu_count();
  for (int n = 2; n <= visible && n <= 8; ++n) specs.push_back(GroupSpec{n, false});
  return specs;
}

RankGroup make_group(const GroupSpec& spec) {
  return spec.is_virtual ? RankGroup::virtual_ranks(spec.ranks, 0) : RankGroup::real(spec.ranks);
}

void require_real_gpus(const std::string& id, const std::string& name, int needed) {
  const int code = skip_unless_gpus(id, name, needed, "it runs on real peers; CUDA_VISIBLE_DEVICES shows which");
  if (code != 0) {
    std::fflush(stdout);
    std::exit(code);
  }
}

// ---- peer copies -------------------------------------------------------------------------------------

std::string grade_peer_copy(const char* name, PeerCopyLauncher launch, int dst_device, int src_device,
                            std::size_t count, std::size_t dst_offset, std::size_t src_offset, std::uint64_t seed) {
  const std::vector<float> host = wb::random_floats(count, seed);
  std::unique_ptr<wb::GuardedDeviceBuffer<float>> src, dst;
  cudaStream_t stream = nullptr;
  {
    DeviceScope scope(src_device);
    src = std::make_unique<wb::GuardedDeviceBuffer<float>>(count + src_offset);
    std::vector<float> padded(count + src_offset, wb::poison_value<float>());
    std::copy(host.begin(), host.end(), padded.begin() + static_cast<std::ptrdiff_t>(src_offset));
    src->upload(padded);
  }
  {
    DeviceScope scope(dst_device);
    dst = std::make_unique<wb::GuardedDeviceBuffer<float>>(count + dst_offset);
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  const std::string failure = wb::test::launch_and_explain(name, [&] {
    launch(dst->data() + dst_offset, src->data() + src_offset, count, stream);
    DeviceScope scope(dst_device);
    CUDA_CHECK(cudaStreamSynchronize(stream));
  });
  std::vector<float> got;
  wb::GuardReport guards;
  {
    DeviceScope scope(dst_device);
    got = dst->download();
    guards = dst->check_guards();
    CUDA_CHECK(cudaStreamDestroy(stream));
    dst.reset();
  }
  {
    DeviceScope scope(src_device);
    src.reset();
  }
  if (!failure.empty()) return failure;
  std::ostringstream report;
  report << name << ": GPU " << dst_device << " reading GPU " << src_device << ", count " << count << ", dst offset "
         << dst_offset << ", src offset " << src_offset << ", seed " << seed << " (WB_SEED):\n";
  for (std::size_t i = 0; i < dst_offset; ++i)
    if (!wb::same_bits(got[i], wb::poison_value<float>()))
      return report.str() + "wrote before dst (index " + std::to_string(i) + " of the " + std::to_string(dst_offset) +
             " floats in front of it): a loop that starts below 0 or an address rounded down to 16 bytes.";
  if (!guards.ok()) return report.str() + guards.describe(name);
  std::size_t wrong = 0, untouched = 0, first_wrong = count, first_untouched = count;
  for (std::size_t i = 0; i < count; ++i) {
    const float v = got[dst_offset + i];
    if (v == host[i]) continue;
    if (wb::same_bits(v, wb::poison_value<float>())) {
      if (untouched++ == 0) first_untouched = i;
    } else if (wrong++ == 0) {
      first_wrong = i;
    }
  }
  if (wrong == 0 && untouched == 0) return "";
  report << wrong << " floats wrong, " << untouched << " never written (of " << count << ").\n";
  if (wrong > 0)
    return report.str() + "Index " + std::to_string(first_wrong) + " holds the wrong float: a vector index mixed " +
           "up with a float index, or loads and stores paired wrongly.";
  if (untouched == count)
    return report.str() +
           "Output untouched: nothing was copied (is the kernel written and launched? is peer access "
           "enabled?).";
  if (first_untouched + untouched == count && untouched < 4)
    return report.str() + "The last " + std::to_string(untouched) +
           " floats were never written: the tail past the last whole 16-byte vector was dropped.";
  if (first_untouched + untouched == count && count - first_untouched < 4 * 4)
    return report.str() + "The floats from index " + std::to_string(first_untouched) +
           " were never written: the tail was dropped.";
  return report.str() + "Floats from index " + std::to_string(first_untouched) +
         " were never written: the loop must cover any count whatever the grid (a grid-stride loop), and an "
         "address off 16 bytes needs the scalar path.";
}

// ---- all-reduce --------------------------------------------------------------------------------------

namespace {

double power_of_8(int r) {
  return std::ldexp(1.0, 3 * r);
}

// Where a wrong element's value came from.
enum class Kind { Right, Untouched, StaleOutput, StaleInput, Foreign, Missing, Doubled };

struct Verdict {
  Kind kind = Kind::Right;
  int rank = -1;  // the rank whose contribution or buffer it names
};

Verdict classify(const std::vector<std::vector<float>>& inputs, int self, std::size_t i, float got) {
  const int n = static_cast<int>(inputs.size());
  for (int r = 0; r < n; ++r) {
    if (got == recv_poison(r)) return {r == self ? Kind::Untouched : Kind::StaleOutput, r};
    if (got == send_poison(r)) return {Kind::StaleInput, r};
  }
  // An input poison plus a few small numbers is still that poison in float (its ulp is ~1e23).
  if (!std::isfinite(got) || got < 0 || got != std::floor(got) || got >= power_of_8(n)) return {Kind::Foreign, -1};
  double rest = got;
  Verdict verdict;
  for (int r = n - 1; r >= 0; --r) {
    const double place = power_of_8(r);
    const double digit = std::floor(rest / place);
    rest -= digit * place;
    const double a = inputs[static_cast<std::size_t>(r)][i] / place;  // 1, 2 or 3
    if (std::fmod(digit, a) != 0) return {Kind::Foreign, -1};
    const double times = digit / a;
    if (times == 0 && verdict.kind == Kind::Right) verdict = {Kind::Missing, r};
    if (times >= 2 && verdict.kind != Kind::Doubled) verdict = {Kind::Doubled, r};
  }
  return verdict;
}

}  // namespace

std::vector<float> allreduce_input(int rank, std::size_t count, std::uint64_t seed) {
  const std::vector<int> a = wb::random_ints(count, seed + 7919 * static_cast<std::uint64_t>(rank) + 1, 1, 3);
  std::vector<float> x(count);
  const double place = power_of_8(rank);
  for (std::size_t i = 0; i < count; ++i) x[i] = static_cast<float>(a[i] * place);
  return x;
}

float recv_poison(int rank) {
  return -1e30f * static_cast<float>(rank + 1);
}

float send_poison(int rank) {
  return -1e33f * static_cast<float>(rank + 1);
}

std::string judge_allreduce(const std::vector<std::vector<float>>& inputs, int rank, const std::vector<float>& got) {
  const std::size_t count = got.size();
  std::size_t wrong = 0, counts[7] = {0, 0, 0, 0, 0, 0, 0};
  int named[7] = {-1, -1, -1, -1, -1, -1, -1};
  std::size_t first_untouched = count, last_untouched = 0, untouched_runs = 0;
  bool previous_untouched = false;
  std::ostringstream first;
  for (std::size_t i = 0; i < count; ++i) {
    const Verdict v = classify(inputs, rank, i, got[i]);
    const bool untouched = v.kind == Kind::Untouched;
    if (untouched) {
      if (!previous_untouched) ++untouched_runs;
      if (first_untouched == count) first_untouched = i;
      last_untouched = i;
    }
    previous_untouched = untouched;
    if (v.kind == Kind::Right) continue;
    const int k = static_cast<int>(v.kind);
    if (counts[k]++ == 0) named[k] = v.rank;
    if (wrong++ < 5) {
      double expected = 0;
      for (const std::vector<float>& in : inputs) expected += in[i];
      first << "    [" << i << "] expected " << expected << ", got " << got[i] << "\n";
    }
  }
  if (wrong == 0) return "";
  std::ostringstream report;
  report << "rank " << rank << " of " << inputs.size() << ": " << wrong << " of " << count
         << " elements wrong (count = " << count << "); the first:\n"
         << first.str();
  const std::size_t chunk = (count + inputs.size() - 1) / inputs.size();
  if (counts[static_cast<int>(Kind::Foreign)] > 0) {
    report << "Values that no sum of the ranks' inputs at that index gives: a chunk read from or written to the "
              "wrong place (a wrong chunk offset, or a step that adds chunk c of one rank to chunk c' of another).";
  } else if (counts[static_cast<int>(Kind::StaleInput)] > 0) {
    report << "Rank " << named[static_cast<int>(Kind::StaleInput)]
           << "'s input was read before its stream had written it: the inputs of every rank may still be in "
              "flight when your launcher is called, so nothing may read them before every rank's earlier work is "
              "done (RankGroup::barrier).";
  } else if (counts[static_cast<int>(Kind::StaleOutput)] > 0) {
    report << "Rank " << named[static_cast<int>(Kind::StaleOutput)]
           << "'s output buffer was read where that rank had not written yet: a step ran before its upstream "
              "neighbour finished the step it depends on (a missing wait between ring steps: record an event after "
              "each step, wait on the neighbour's before the next), or it read a chunk the neighbour never writes at "
              "that step (a wrong chunk offset).";
  } else if (counts[static_cast<int>(Kind::Untouched)] > 0 && untouched_runs == 1 && last_untouched == count - 1 &&
             count - first_untouched < chunk) {
    report << "The last " << count - first_untouched
           << " elements were never written: the tail was dropped (a length that is not a multiple of the rank "
              "count, of the vector width or of your block's share must still reach its last element).";
  } else if (counts[static_cast<int>(Kind::Untouched)] > 0) {
    report << counts[static_cast<int>(Kind::Untouched)] << " elements (from index " << first_untouched
           << ") were never written: every rank must end with every chunk reduced. After the reduce-scatter each "
              "rank holds one finished chunk; the all-gather passes them around the ring.";
  } else if (counts[static_cast<int>(Kind::Doubled)] > 0) {
    report << "Rank " << named[static_cast<int>(Kind::Doubled)]
           << "'s contribution was counted twice: a chunk added twice (a reduce step repeated, or an all-gather step "
              "that adds instead of copying); in place, also a step that read a chunk after its neighbour had "
              "already overwritten it (a missing wait between ring steps).";
  } else {
    report << "Rank " << named[static_cast<int>(Kind::Missing)]
           << "'s contribution is missing: a step read a partial chunk before its upstream neighbour had added to "
              "it (a missing wait between ring steps?) or a reduce step was skipped.";
  }
  return report.str();
}

std::vector<AllreduceCase> allreduce_cases() {
  const std::vector<std::size_t> counts =
      wb::test::sizes({0, 1, 3, 5, 31, 33, 1000, 4099, 65537, (std::size_t(1) << 20) + 3}, 65537);
  std::vector<AllreduceCase> cases;
  for (const GroupSpec& spec : group_specs(true)) {
    for (std::size_t count : counts) cases.push_back(AllreduceCase{spec, count, false});
    for (std::size_t count : {std::size_t(33), std::size_t(4099)}) cases.push_back(AllreduceCase{spec, count, true});
    // One float past 16 bytes: 5 floats (one float4 and a tail) and 4099 would take 16-byte loads if
    // only the count were looked at.
    cases.push_back(AllreduceCase{spec, 5, false, 1});
    cases.push_back(AllreduceCase{spec, 4099, false, 1});
    cases.push_back(AllreduceCase{spec, 4099, true, 1});
  }
  return cases;
}

std::string grade_allreduce(const char* name, AllreduceLauncher launch, RankGroup& group, std::size_t count,
                            bool in_place, std::uint64_t seed, std::size_t offset) {
  const int n = group.size();
  std::vector<std::vector<float>> inputs;
  for (int r = 0; r < n; ++r) inputs.push_back(allreduce_input(r, count, seed));
  RankBuffers<float> send(group, count, offset);
  RankBuffers<float> recv_storage(group, in_place ? 0 : count, offset);
  RankBuffers<float>& recv = in_place ? send : recv_storage;
  // The inputs, staged on each device, reach the send buffers on the ranks' streams: rank `late` holds
  // first, so its input arrives after the other ranks started. Rank `held` is held back after the barrier.
  const int late = static_cast<int>(seed % static_cast<std::uint64_t>(n));
  const int held = (late + 1) % n;
  RankBuffers<float> staged(group, count);
  for (int r = 0; r < n; ++r) {
    staged.upload(r, inputs[static_cast<std::size_t>(r)]);
    send.upload(r, std::vector<float>(count, in_place ? recv_poison(r) : send_poison(r)));
    if (!in_place) recv.upload(r, std::vector<float>(count, recv_poison(r)));
  }
  for (int r = 0; r < n; ++r) {
    if (r == late && n > 1) hold_rank(group, r, 10.0);
    DeviceScope scope(group.device(r));
    if (count > 0)
      CUDA_CHECK(cudaMemcpyAsync(send[r], staged[r], count * sizeof(float), cudaMemcpyDeviceToDevice, group.stream(r)));
  }
  group.hold_after_barrier(n > 1 ? held : -1, 10.0);
  std::string failure = wb::test::launch_and_explain(name, [&] {
    launch(send.const_pointers(), recv.pointers(), count, group);
    group.synchronize();
  });
  group.hold_after_barrier(-1, 0.0);
  if (!failure.empty()) return failure;
  // In place, rank r's "input" poison is its output poison: judge stale reads of it as outputs.
  std::string report;
  for (int r = 0; r < n && report.empty(); ++r) {
    report = judge_allreduce(inputs, r, recv.download(r));
    if (report.empty()) report = recv.check_guards(r, std::string(name) + " output of rank " + std::to_string(r));
    if (report.empty() && !in_place)
      report = send.check_guards(r, std::string(name) + " input of rank " + std::to_string(r));
  }
  if (!report.empty()) {
    std::ostringstream context;
    context << name << " on " << (group.is_virtual() ? "virtual ranks" : "real GPUs") << " (" << group.describe()
            << "), count " << count << (in_place ? ", in place" : "")
            << (offset ? ", buffers " + std::to_string(offset) + " float(s) past 16 bytes" : std::string()) << ", seed "
            << seed << " (WB_SEED), rank " << late << "'s input late, rank " << held << " held after the barrier:\n";
    return context.str() + report;
  }
  return "";
}

void check_allreduce(const char* name, AllreduceLauncher launch, const AllreduceCase& c) {
  const std::uint64_t seed = wb::test::seed();
  INFO(c.group.describe() << ", count " << c.count << (c.in_place ? ", in place" : "")
                          << (c.offset ? ", buffers " + std::to_string(c.offset) + " float(s) past 16 bytes"
                                       : std::string())
                          << ", seed " << seed);
  RankGroup group = make_group(c.group);
  const std::string verdict = grade_allreduce(name, launch, group, c.count, c.in_place, seed, c.offset);
  if (!verdict.empty()) FAIL(verdict);
}

}  // namespace test
}  // namespace p6
