// SPDX-License-Identifier: MIT
// 6.04's planted steps: a right one and one bug each, for the grader's self-test (never used by lessons).
#include "common/check.h"
#include "phase6_multi_gpu/tests/overlap_wrong.h"

namespace {

enum class Bug { None, NoWait, WaitFirstLayer, ForgetLast, ReduceTwice, NoJoin };

void step(const p6::BackwardModel& model, float* const* grad, std::size_t bucket_floats, p6::RankGroup& group,
          p6::GradientComm& comm, Bug bug) {
  const int n = group.size();
  const std::size_t cap = bucket_floats == 0 ? 4096 : bucket_floats;
  std::size_t filled = 0;
  int bucket = 0;
  bool open = false;  // a layer of the bucket is enqueued
  for (int layer = model.layers() - 1; layer >= 0; --layer) {
    for (int r = 0; r < n; ++r) {
      model.backward(r, layer, grad[r], group.stream(r));
      if (bug == Bug::WaitFirstLayer && !open) {
        p6::DeviceScope scope(group.device(r));
        CUDA_CHECK(cudaEventRecord(group.event(r, bucket % 64), group.stream(r)));
      }
    }
    open = true;
    filled += model.size(layer);
    if (filled < cap && layer > 0) continue;
    const bool last = layer == 0;
    for (int r = 0; r < n; ++r) {
      p6::DeviceScope scope(group.device(r));
      if (bug != Bug::WaitFirstLayer) CUDA_CHECK(cudaEventRecord(group.event(r, bucket % 64), group.stream(r)));
      if (bug != Bug::NoWait) CUDA_CHECK(cudaStreamWaitEvent(comm.stream(r), group.event(r, bucket % 64), 0));
    }
    if (!(bug == Bug::ForgetLast && last)) comm.allreduce_sum(grad, model.offset(layer), filled);
    if (bug == Bug::ReduceTwice && last) comm.allreduce_sum(grad, model.offset(layer), filled);
    filled = 0;
    open = false;
    ++bucket;
  }
  if (bug == Bug::NoJoin) return;
  for (int r = 0; r < n; ++r) {
    p6::DeviceScope scope(group.device(r));
    CUDA_CHECK(cudaEventRecord(comm.event(r, 0), comm.stream(r)));
    CUDA_CHECK(cudaStreamWaitEvent(group.stream(r), comm.event(r, 0), 0));
  }
}

}  // namespace

void planted_overlap_correct(const p6::BackwardModel& m, float* const* g, std::size_t b, p6::RankGroup& group,
                             p6::GradientComm& comm) {
  step(m, g, b, group, comm, Bug::None);
}
void planted_overlap_serial(const p6::BackwardModel& m, float* const* g, std::size_t, p6::RankGroup& group,
                            p6::GradientComm& comm) {
  step(m, g, static_cast<std::size_t>(-1), group, comm, Bug::None);
}
void planted_overlap_no_wait(const p6::BackwardModel& m, float* const* g, std::size_t b, p6::RankGroup& group,
                             p6::GradientComm& comm) {
  step(m, g, b, group, comm, Bug::NoWait);
}
void planted_overlap_waits_first_layer(const p6::BackwardModel& m, float* const* g, std::size_t b, p6::RankGroup& group,
                                       p6::GradientComm& comm) {
  step(m, g, b, group, comm, Bug::WaitFirstLayer);
}
void planted_overlap_forgets_last_bucket(const p6::BackwardModel& m, float* const* g, std::size_t b,
                                         p6::RankGroup& group, p6::GradientComm& comm) {
  step(m, g, b, group, comm, Bug::ForgetLast);
}
void planted_overlap_reduces_twice(const p6::BackwardModel& m, float* const* g, std::size_t b, p6::RankGroup& group,
                                   p6::GradientComm& comm) {
  step(m, g, b, group, comm, Bug::ReduceTwice);
}
void planted_overlap_no_join(const p6::BackwardModel& m, float* const* g, std::size_t b, p6::RankGroup& group,
                             p6::GradientComm& comm) {
  step(m, g, b, group, comm, Bug::NoJoin);
}
