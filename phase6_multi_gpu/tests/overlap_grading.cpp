// SPDX-License-Identifier: MIT
#include "phase6_multi_gpu/tests/overlap_grading.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "common/check.h"
#include "common/testing.h"

namespace p6 {
namespace test {

namespace {

enum class Wrong { Stale, Overwritten, Forgotten, Twice, Foreign, Kinds };

int layer_of(const std::vector<std::size_t>& layers, std::size_t i) {
  std::size_t end = 0;
  for (std::size_t l = 0; l < layers.size(); ++l) {
    end += layers[l];
    if (i < end) return static_cast<int>(l);
  }
  return -1;
}

void synchronize_comm(const RankGroup& group, const GradientComm& comm) {
  for (int r = 0; r < group.size(); ++r) {
    DeviceScope scope(group.device(r));
    CUDA_CHECK(cudaStreamSynchronize(comm.stream(r)));
  }
}

}  // namespace

std::string OverlapCase::describe() const {
  std::ostringstream text;
  text << group.describe() << ", " << layers.size() << " layers, buckets of ";
  if (bucket_floats == 0) {
    text << "the launcher's choice";
  } else if (bucket_floats == std::numeric_limits<std::size_t>::max()) {
    text << "everything";
  } else {
    text << bucket_floats << " floats";
  }
  return text.str();
}

std::vector<OverlapCase> overlap_cases() {
  std::vector<std::size_t> twelve = {1000, 70000, 4096, 5, 65537, 2048, 30000, 1, 12345, 8192, 50000, 777};
  if (wb::test::sanitize_mode())
    for (std::size_t& s : twelve) s = std::min<std::size_t>(s, 5000);
  const std::vector<std::vector<std::size_t>> layouts = {{1}, {3, 0, 4099, 33, 1}, twelve};
  const std::size_t buckets[] = {1, 4096, 0, std::numeric_limits<std::size_t>::max()};
  std::vector<OverlapCase> cases;
  for (const GroupSpec& spec : group_specs(true, wb::test::sanitize_mode() ? 4 : 8)) {
    // Under the sanitizer virtual ranks only: on real GPUs the all-reduce is NCCL's kernels, not the step's.
    if (wb::test::sanitize_mode() && !spec.is_virtual) continue;
    for (const std::vector<std::size_t>& layers : layouts)
      for (std::size_t bucket : buckets) cases.push_back(OverlapCase{spec, layers, bucket});
    // 70 buckets of one float: more buckets than a rank has events (64), so some event is reused.
    cases.push_back(OverlapCase{spec, std::vector<std::size_t>(70, 1), 1});
  }
  return cases;
}

std::string judge_overlap(const std::vector<std::vector<float>>& inputs, int rank, const std::vector<float>& got,
                          const std::vector<int>& covered, const std::vector<std::size_t>& layers) {
  const int n = static_cast<int>(inputs.size());
  const std::size_t count = got.size();
  std::size_t wrong = 0, counts[static_cast<int>(Wrong::Kinds)] = {};
  std::size_t first_of[static_cast<int>(Wrong::Kinds)] = {};
  std::ostringstream first;
  for (std::size_t i = 0; i < count; ++i) {
    double expected = 0;
    for (const std::vector<float>& in : inputs) expected += in[i];
    const float g = got[i];
    if (static_cast<double>(g) == expected) continue;
    Wrong kind = Wrong::Foreign;
    if (!std::isfinite(g) || g <= -1e20f) {
      kind = Wrong::Stale;
    } else if (n > 1 && g == inputs[static_cast<std::size_t>(rank)][i]) {
      kind = covered[i] > 0 ? Wrong::Overwritten : Wrong::Forgotten;
    } else if (n > 1 && static_cast<double>(g) == n * expected) {
      kind = Wrong::Twice;
    }
    const int k = static_cast<int>(kind);
    if (counts[k]++ == 0) first_of[k] = i;
    if (wrong++ < 5)
      first << "    [" << i << "] (layer " << layer_of(layers, i) << ") expected " << expected << ", got " << g << "\n";
  }
  if (wrong == 0) return "";
  std::ostringstream report;
  report << "rank " << rank << " of " << n << ": " << wrong << " of " << count << " gradients wrong; the first:\n"
         << first.str();
  auto at = [&](Wrong kind) {
    const std::size_t i = first_of[static_cast<int>(kind)];
    return "gradient " + std::to_string(i) + " (layer " + std::to_string(layer_of(layers, i)) + ")";
  };
  if (counts[static_cast<int>(Wrong::Stale)] > 0) {
    report << at(Wrong::Stale)
           << " was all-reduced before its gradient was written: the sum holds the poison the buffer started "
              "with. A bucket's all-reduce must wait, on the communication stream, for an event recorded on the "
              "compute stream after the last layer that writes the bucket.";
  } else if (counts[static_cast<int>(Wrong::Overwritten)] > 0) {
    report << at(Wrong::Overwritten)
           << " was all-reduced before its gradient was written: an all-reduce covered it, yet it holds this "
              "rank's own gradient, written by its layer after the sum. A bucket's all-reduce must wait, on the "
              "communication stream, for an event recorded after the last layer that writes the bucket.";
  } else if (counts[static_cast<int>(Wrong::Forgotten)] > 0) {
    report << at(Wrong::Forgotten)
           << " was never all-reduced: it holds this rank's own gradient and no all-reduce covered it. Every "
              "layer's gradient, layer 0's included, belongs to exactly one bucket, and the last bucket is "
              "reduced too, however little it holds.";
  } else if (counts[static_cast<int>(Wrong::Twice)] > 0) {
    report << at(Wrong::Twice) << " holds " << n
           << " times the sum: it was reduced twice (a bucket all-reduced again, or buckets that overlap).";
  } else {
    report << at(Wrong::Foreign)
           << " holds a value no number of all-reduces gives: a bucket's offset or length does not match the "
              "layers it holds (layer l's gradient starts at model.offset(l)).";
  }
  return report.str();
}

std::string grade_overlap(const char* name, OverlapLauncher launch, RankGroup& group,
                          const std::vector<std::size_t>& layers, std::size_t bucket_floats, std::uint64_t seed) {
  const int n = group.size();
  std::size_t total = 0;
  for (std::size_t s : layers) total += s;
  std::vector<std::vector<float>> inputs;
  for (int r = 0; r < n; ++r) inputs.push_back(allreduce_input(r, total, seed));
  BackwardModel model(group, layers, 8, inputs);
  GradientComm comm(group);
  RankBuffers<float> grad(group, total);
  auto poison = [&] {
    for (int r = 0; r < n; ++r) grad.upload(r, std::vector<float>(total, recv_poison(r)));
  };
  auto coverage = [&] {
    std::vector<int> covered(total, 0);
    for (const GradientComm::Call& call : comm.calls())
      for (std::size_t i = call.offset; i < call.offset + call.count && i < total; ++i) ++covered[i];
    return covered;
  };
  std::ostringstream context;
  context << name << " on " << group.describe() << ", " << layers.size() << " layers (" << total
          << " gradients per rank), bucket_floats " << bucket_floats << ", seed " << seed << " (WB_SEED)";
  auto judge_all = [&](const std::vector<std::vector<float>>& got) {
    const std::vector<int> covered = coverage();
    for (int r = 0; r < n; ++r) {
      std::string report = judge_overlap(inputs, r, got[static_cast<std::size_t>(r)], covered, layers);
      if (report.empty()) report = grad.check_guards(r, std::string(name) + " gradients of rank " + std::to_string(r));
      if (!report.empty()) return report;
    }
    return std::string();
  };
  auto download_all = [&] {
    std::vector<std::vector<float>> got;
    for (int r = 0; r < n; ++r) got.push_back(grad.download(r));
    return got;
  };
  // Run 1: every layer's backward held, so a read that does not wait for its layer is early every time.
  poison();
  model.hold_each_layer(1.0);
  comm.hold_each_allreduce(0.0);
  comm.clear_calls();
  std::string failure = wb::test::launch_and_explain(name, [&] {
    launch(model, grad.pointers(), bucket_floats, group, comm);
    group.synchronize();
    synchronize_comm(group, comm);
  });
  if (!failure.empty()) return failure;
  std::string report = judge_all(download_all());
  if (!report.empty()) return context.str() + ", every layer's backward held 1 ms:\n" + report;
  // Run 2: every all-reduce held; the gradients are read as soon as the compute streams are done.
  poison();
  model.hold_each_layer(0.0);
  comm.hold_each_allreduce(5.0);
  comm.clear_calls();
  std::vector<std::vector<float>> at_end;
  failure = wb::test::launch_and_explain(name, [&] {
    launch(model, grad.pointers(), bucket_floats, group, comm);
    group.synchronize();
    at_end = download_all();
    synchronize_comm(group, comm);
  });
  comm.hold_each_allreduce(0.0);
  if (!failure.empty()) return failure;
  report = judge_all(download_all());
  if (!report.empty()) return context.str() + ", every all-reduce held 5 ms:\n" + report;
  report = judge_all(at_end);
  if (!report.empty())
    return context.str() + ", every all-reduce held 5 ms, gradients read when the compute streams were done:\n" +
           report +
           "\nBut once the communication streams finished, every gradient was right: the step returned before the "
           "last all-reduce finished. Its end is on the compute streams: each must wait for an event recorded on "
           "its communication stream after the last all-reduce.";
  return "";
}

void check_overlap(const char* name, OverlapLauncher launch, const OverlapCase& c) {
  const std::uint64_t seed = wb::test::seed();
  INFO(c.describe() << ", seed " << seed);
  RankGroup group = make_group(c.group);
  const std::string verdict = grade_overlap(name, launch, group, c.layers, c.bucket_floats, seed);
  if (!verdict.empty()) FAIL(verdict);
}

}  // namespace test
}  // namespace p6
