// SPDX-License-Identifier: MIT
// Graded tests for 0.09 streams: every chunking of n (a short last chunk, empty chunks when rounding
// up leaves nothing for them), 1, 2 and 4 streams, poisoned pinned outputs with canaries after them,
// poisoned device buffers with guards, and results exact to the bit.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/buffer.h"
#include "common/testing.h"
#include "phase0_basics/basics.cuh"
#include "phase0_basics/harness/reference.h"
#include "phase0_basics/harness/stream.h"

namespace {

constexpr int kWork = 8;
// Canary floats after each pinned array. A wrong split overruns by less than num_chunks (<= 16)
// elements, because num_chunks rounded-up chunks end before n + num_chunks: the canaries catch it.
constexpr std::size_t kGuard = 64;

struct Problem {
  wb::PinnedBuffer<float> host_in;  // n inputs, then kGuard canaries (read past n stays in bounds)
  std::vector<float> expected;
};

Problem make_problem(std::size_t n, std::uint64_t seed) {
  const std::vector<float> input = wb::random_floats(n, seed);
  Problem p{wb::PinnedBuffer<float>(n + kGuard), std::vector<float>(n)};
  std::copy(input.begin(), input.end(), p.host_in.begin());
  std::fill(p.host_in.begin() + n, p.host_in.end(), wb::canary_value<float>());
  for (std::size_t i = 0; i < n; ++i) p.expected[i] = p0::process_reference(input[i], kWork);
  return p;
}

// n poisoned outputs (untouched elements show), then kGuard canaries (writes past n show).
void poison_output(wb::PinnedBuffer<float>& host_out, std::size_t n) {
  std::fill(host_out.begin(), host_out.begin() + n, wb::poison_value<float>());
  std::fill(host_out.begin() + n, host_out.end(), wb::canary_value<float>());
}

void require_output(const std::string& what, const Problem& p, const wb::PinnedBuffer<float>& host_out,
                    const wb::GuardedDeviceBuffer<float>& dev_in, const wb::GuardedDeviceBuffer<float>& dev_out) {
  const std::size_t n = p.expected.size();
  // Past the end of a buffer: a chunk ran beyond n (the last chunk's count, or an empty chunk not skipped).
  const std::string overrun = ": does every chunk stop at n?";
  WB_REQUIRE_OK(wb::inspect_guards(host_out.data(), 0, n, kGuard, wb::canary_value<float>()),
                what + " (host_out" + overrun + ")");
  WB_REQUIRE_OK(dev_in.check_guards(), what + " (dev_in" + overrun + ")");
  WB_REQUIRE_OK(dev_out.check_guards(), what + " (dev_out" + overrun + ")");
  WB_REQUIRE_OK(wb::compare(p.expected.data(), host_out.data(), n, wb::Tolerance{0, 0}), what);
}

// The host may read host_out only after the copies into it finished: wait for every stream, then
// for the whole device (work that went to another stream, e.g. the default one, is not covered).
void require_finished(const p0::StreamSet& streams, int num_streams) {
  for (int s = 0; s < num_streams; ++s) {
    const cudaError_t e = cudaStreamSynchronize(streams[static_cast<std::size_t>(s)]);
    if (e != cudaSuccess)
      FAIL("stream " << s << " failed while running the pipeline: " << wb::test::explain_execution_error(e));
  }
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) FAIL("the pipeline failed while running: " << wb::test::explain_execution_error(e));
}

// 0 and 1; fewer elements than chunks (3); exactly 4; one more than 4 chunks of 1 (5, where rounding
// up leaves the last of 4 chunks empty); around the warp (31, 33); 1000; a prime; one large size.
std::vector<std::size_t> pipeline_sizes() {
  return wb::test::sizes({0, 1, 3, 4, 5, 31, 33, 1000, 100003, (std::size_t(1) << 22) + 5});
}

}  // namespace

TEST_CASE("pipeline_serial (given) copies in, processes and copies back every element exactly", "[p0][0.09][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(pipeline_sizes()));
  const std::uint64_t seed = wb::test::seed();
  INFO("pipeline_serial with n = " << n << ", work = " << kWork << ", seed " << seed << " (replay with WB_SEED=" << seed
                                   << ")");
  const Problem p = make_problem(n, seed);
  wb::PinnedBuffer<float> host_out(n + kGuard);
  poison_output(host_out, n);
  wb::GuardedDeviceBuffer<float> dev_in(n), dev_out(n);  // poisoned inside, canaries around
  p0::StreamSet streams(1);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);  // the buffers' set-up copies are done

  try {
    pipeline_serial(p.host_in.data(), host_out.data(), dev_in.data(), dev_out.data(), n, kWork, streams[0]);
  } catch (const wb::CudaError& e) {
    FAIL("pipeline_serial failed to enqueue its work: " << e.what());
  }
  require_finished(streams, 1);
  require_output("pipeline_serial", p, host_out, dev_in, dev_out);
}

TEST_CASE("pipeline_streams covers every element once for any chunk and stream count, short and empty chunks included",
          "[p0][0.09][gpu]") {
  const std::size_t n = GENERATE(Catch::Generators::from_range(pipeline_sizes()));
  const std::uint64_t seed = wb::test::seed();
  const Problem p = make_problem(n, seed);
  wb::PinnedBuffer<float> host_out(n + kGuard);
  p0::StreamSet streams(4);

  for (const int num_chunks : {1, 3, 4, 16}) {
    for (const int num_streams : {1, 2, 4}) {
      INFO("pipeline_streams with n = " << n << ", num_chunks = " << num_chunks << ", num_streams = " << num_streams
                                        << ", work = " << kWork << ", seed " << seed << " (replay with WB_SEED=" << seed
                                        << ")");
      poison_output(host_out, n);
      // Fresh poisoned device buffers: a chunk that skips its copy in or its kernel cannot reuse
      // what an earlier run left there.
      wb::GuardedDeviceBuffer<float> dev_in(n), dev_out(n);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);  // the buffers' set-up copies are done

      try {
        pipeline_streams(p.host_in.data(), host_out.data(), dev_in.data(), dev_out.data(), n, kWork, streams.data(),
                         num_streams, num_chunks);
      } catch (const wb::CudaError& e) {
        FAIL("pipeline_streams failed to enqueue its work: " << e.what());
      }
      require_finished(streams, num_streams);
      require_output("pipeline_streams", p, host_out, dev_in, dev_out);
    }
  }
}
