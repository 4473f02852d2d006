// SPDX-License-Identifier: MIT
// The pure halves of 6.04's and 6.06's given code and grader, on the host: the overlap grader's diagnosis
// of right and wrong gradients, and the ring's shards.
#include <stdexcept>
#include <string>
#include <vector>

#include "common/testing.h"
#include "phase6_multi_gpu/harness/ring_support.h"
#include "phase6_multi_gpu/tests/overlap_grading.h"

TEST_CASE("the overlap grader names what went wrong with a rank's gradients", "[host][p6]") {
  const int n = 3;
  const std::size_t count = 10;
  const std::vector<std::size_t> layers = {4, 0, 6};
  std::vector<std::vector<float>> inputs;
  for (int r = 0; r < n; ++r) inputs.push_back(p6::test::allreduce_input(r, count, 5));
  std::vector<float> sum(count, 0.0f);
  for (std::size_t i = 0; i < count; ++i)
    for (int r = 0; r < n; ++r) sum[i] += inputs[static_cast<std::size_t>(r)][i];
  const std::vector<int> once(count, 1), never(count, 0);
  CHECK(p6::test::judge_overlap(inputs, 1, sum, once, layers).empty());
  std::vector<float> got = sum;
  got[7] = p6::test::recv_poison(0) + p6::test::recv_poison(1) + inputs[2][7];
  std::string verdict = p6::test::judge_overlap(inputs, 1, got, once, layers);
  CHECK(verdict.find("before its gradient was written") != std::string::npos);
  CHECK(verdict.find("layer 2") != std::string::npos);
  got = sum;
  got[2] = inputs[1][2];
  CHECK(p6::test::judge_overlap(inputs, 1, got, once, layers).find("before its gradient was written") !=
        std::string::npos);
  CHECK(p6::test::judge_overlap(inputs, 1, got, never, layers).find("never all-reduced") != std::string::npos);
  got = sum;
  got[9] = 3 * sum[9];
  CHECK(p6::test::judge_overlap(inputs, 1, got, once, layers).find("reduced twice") != std::string::npos);
  got = sum;
  got[0] = sum[1] + 0.5f;
  CHECK(p6::test::judge_overlap(inputs, 1, got, once, layers).find("offset or length") != std::string::npos);
}

TEST_CASE("the ring's shards cover the sequence once, in order, for any length and rank count", "[host][p6]") {
  for (int n = 1; n <= 8; ++n)
    for (int seq : {1, 2, 5, 7, 8, 9, 33, 1000}) {
      INFO("n " << n << ", seq " << seq);
      int next = 0;
      for (int r = 0; r < n; ++r) {
        CHECK(p6::ring_begin(r, n, seq) == next);
        CHECK(p6::ring_rows(r, n, seq) >= 0);
        CHECK(p6::ring_rows(r, n, seq) <= p6::ring_chunk(seq, n));
        next += p6::ring_rows(r, n, seq);
      }
      CHECK(next == seq);
    }
  CHECK_THROWS_AS(p6::validate_ring_shape(p6::RingAttentionShape{1, 16, 96, false}), std::invalid_argument);
  CHECK_THROWS_AS(p6::validate_ring_shape(p6::RingAttentionShape{0, 16, 64, false}), std::invalid_argument);
  CHECK_THROWS_AS(p6::validate_ring_shape(p6::RingAttentionShape{1, 0, 64, false}), std::invalid_argument);
  CHECK_NOTHROW(p6::validate_ring_shape(p6::RingAttentionShape{3, 1, 128, true}));
}
