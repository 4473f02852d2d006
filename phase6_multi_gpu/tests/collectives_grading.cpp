// SPDX-License-Identifier: MIT
#include "phase6_multi_gpu/tests/collectives_grading.h"

#include <cmath>
#include <sstream>

#include "common/testing.h"

namespace p6 {
namespace test {

std::vector<std::size_t> collective_counts() {
  if (wb::test::sanitize_mode()) return {1, 7, 4099};
  return {1, 7, (std::size_t(1) << 20) + 3};
}

namespace {

// q when v is a x 8^q with a in {1, 2, 3} (one rank's input value), else -1.
int single_rank_of(float v, int ranks) {
  for (int q = 0; q < ranks; ++q) {
    const double a = v / std::ldexp(1.0, 3 * q);
    if (a == 1.0 || a == 2.0 || a == 3.0) return q;
  }
  return -1;
}

int poison_owner(float v, int ranks, bool* is_send) {
  for (int q = 0; q < ranks; ++q) {
    if (v == collective_recv_poison(q)) return *is_send = false, q;
    if (v == collective_send_poison(q)) return *is_send = true, q;
  }
  return -1;
}

}  // namespace

std::string judge_collective(const CollectiveJob& job, int ranks, int rank, const std::vector<float>& recv) {
  const RankLayout layout = rank_layout(job, rank, ranks);
  const std::vector<float> expected = expected_result(job, rank, ranks);
  std::ostringstream report;
  report << collective_name(job.op) << ", rank " << rank << " of " << ranks << ", count " << job.count
         << (job.in_place ? ", in place" : ", out of place")
         << (job.op == Collective::Broadcast ? ", root " + std::to_string(job.root) : std::string()) << ", seed "
         << job.seed << " (WB_SEED): ";
  if (recv.size() != layout.recv.size())
    return report.str() + "the worker returned " + std::to_string(recv.size()) + " floats, expected " +
           std::to_string(layout.recv.size());
  // Outside the result (in place: the rest of the one buffer) nothing may change, except an all-gather's.
  for (std::size_t i = 0; i < recv.size(); ++i) {
    const bool in_result = i >= layout.result_at && i < layout.result_at + layout.result_floats;
    if (!in_result && recv[i] != layout.recv[i])
      return report.str() + "element " + std::to_string(i) + " of the buffer, outside the result, changed: " +
             "a result written at the wrong offset of the buffer (NCCL's in-place convention).";
  }
  std::size_t wrong = 0, untouched = 0, first_untouched = expected.size(), last_right = 0;
  std::size_t other_rank = 0, poison_of_other = 0;
  int named = -1, poisoned = -1;
  std::ostringstream first;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const float got = recv[layout.result_at + i];
    if (got == expected[i]) {
      last_right = i;
      continue;
    }
    if (wrong++ < 4) first << "\n    [" << i << "] expected " << expected[i] << ", got " << got;
    bool is_send = false;
    const int owner = poison_owner(got, ranks, &is_send);
    if (owner == rank && !is_send) {
      if (untouched++ == 0) first_untouched = i;
    } else if (owner >= 0) {
      if (poison_of_other++ == 0) poisoned = owner;
    } else if (job.op == Collective::AllGather || job.op == Collective::Broadcast) {
      const int q = single_rank_of(got, ranks);
      if (q >= 0 && other_rank++ == 0) named = q;
    }
  }
  if (wrong == 0) return "";
  report << wrong << " of " << expected.size() << " result elements wrong; the first:" << first.str() << "\n";
  if (untouched == expected.size()) {
    // A reduce-scatter given the send buffer's count divided by the ranks writes nothing when that rounds to 0.
    const std::string count_note =
        job.op == Collective::ReduceScatter
            ? " Or its count is too small: NCCL's recvcount is what each rank receives, the whole count per rank; "
              "divided by the rank count, a small count rounds to 0 and nothing is written."
            : "";
    return report.str() + "Output untouched: nothing was written (is " + nccl_call(job.op) +
           " called for this rank?)." + count_note;
  }
  if (untouched > 0 && untouched == wrong && first_untouched > last_right)
    return report.str() + "Only the first " + std::to_string(first_untouched) + " elements were written: the count " +
           "given to " + nccl_call(job.op) + " is too small (NCCL's count: each rank's recvcount for a " +
           "reduce-scatter, sendcount for an all-gather; harness/collectives.h).";
  if (job.op == Collective::Broadcast && poison_of_other == wrong && poisoned != job.root)
    return report.str() + "It holds what rank " + std::to_string(poisoned) + "'s buffer held before the call, and " +
           "NCCL reads only the root's (rank " + std::to_string(job.root) + "): a broadcast from the wrong root.";
  if (poison_of_other > 0)
    return report.str() + "It holds what rank " + std::to_string(poisoned) + "'s buffer held before the call: a " +
           "pointer at the wrong offset (in place, NCCL expects the rank's own block of the buffer) or a count " +
           "that reaches past the input.";
  if (job.op == Collective::Broadcast && other_rank == wrong)
    return report.str() + "The values are rank " + std::to_string(named) + "'s input, not the root's (rank " +
           std::to_string(job.root) + "): a broadcast from the wrong root.";
  if (job.op == Collective::AllGather && other_rank == wrong)
    return report.str() + "Rank " + std::to_string(named) + "'s data sits in another rank's block: an all-gather's " +
           "input at the wrong offset.";
  return report.str() +
         "Values that no right result gives: the wrong collective, the wrong count (the reduce-scatter's "
         "is per rank, not the total), or the wrong blocks.";
}

std::string run_and_judge(CollectiveWorkers& workers, const CollectiveJob& job, const std::string& setup) {
  std::vector<std::vector<float>> outputs;
  try {
    outputs = workers.run(job);
  } catch (const RankTimeout& e) {
    return setup + ", " + collective_name(job.op) + " of count " + std::to_string(job.count) + ": " + e.what() +
           ".\nA deadlock: a rank waits for peers that never arrive. One thread that issues a collective for several "
           "ranks must put the calls between ncclGroupStart and ncclGroupEnd (and wait for nothing in between); "
           "a rank process must get the launcher's unique id before it can join.";
  } catch (const std::exception& e) {
    return setup + ", " + collective_name(job.op) + " of count " + std::to_string(job.count) + ": " + e.what();
  }
  for (int r = 0; r < workers.ranks(); ++r) {
    const std::string verdict = judge_collective(job, workers.ranks(), r, outputs[static_cast<std::size_t>(r)]);
    if (!verdict.empty()) return setup + ": " + verdict;
  }
  return "";
}

std::string grade_collectives(const std::string& program, int ranks, bool per_process, ShareId share,
                              double timeout_s) {
  const std::string setup = std::to_string(ranks) + " GPUs, " + (per_process ? "one process per GPU" : "one process");
  try {
    CollectiveWorkers workers(program, ranks, per_process, timeout_s);
    if (per_process) share(workers.processes());
    const std::uint64_t seed = wb::test::seed();
    for (Collective op : kCollectives)
      for (std::size_t count : collective_counts())
        for (const bool in_place : {false, true}) {
          const std::string verdict =
              run_and_judge(workers, CollectiveJob{op, count, ranks - 1, in_place, seed}, setup);
          if (!verdict.empty()) return verdict;
        }
  } catch (const std::exception& e) {
    return setup + ": " + e.what();
  }
  return "";
}

std::string judge_busbw(BusbwFormula busbw) {
  const double bytes = 1e9, ms = 2.0, algbw = bytes / (ms * 1e6);
  for (int n = 2; n <= 8; ++n)
    for (Collective op : kCollectives) {
      const double factor = op == Collective::AllReduce   ? 2.0 * (n - 1) / n
                            : op == Collective::Broadcast ? 1.0
                                                          : static_cast<double>(n - 1) / n;
      const double got = busbw(op, bytes, ms, n), want = algbw * factor;
      if (!(std::fabs(got - want) <= 1e-9 * want)) {
        std::ostringstream report;
        report << "collective_busbw_gbs(" << collective_name(op) << ", " << bytes << " bytes, " << ms << " ms, " << n
               << " ranks) returned " << got << " GB/s; nccl-tests counts " << want << " (algbw " << algbw
               << " GB/s times the share of the data each link carries for a " << collective_name(op) << ").";
        return report.str();
      }
    }
  return "";
}

}  // namespace test
}  // namespace p6
