// SPDX-License-Identifier: MIT
// The phase 0 grader self-test. 0.08 (block_reduce_grading): the bugs its grader cannot see, a race
// inside the tree's last warp and a masked read past n. 0.11 (histogram_grading): a correct histogram
// must pass, and each planted bug (bins never zeroed, the tail skipped, a bin index off by one, each
// block's counts added twice) must fail with the sentence that names it. The sanitizer-only bugs of
// both give the right answer, so the plain grader passes them (checked here); CTest's
// gpu.p0.sanitizer-* tests run this binary, one case at a time, under the grade's racecheck and
// exact-input memcheck runs and pass only when those catch the bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/data.h"
#include "common/testing.h"
#include "phase0_basics/tests/block_reduce_grading.h"
#include "phase0_basics/tests/histogram_grading.h"
#include "phase0_basics/tests/wrong_kernels.h"

namespace {
// 1, 31, 33 (around a warp), a prime, and past one stride of the grid (64 blocks of 256 threads).
const std::vector<std::size_t> kSizes = {1, 31, 33, 4099, 16411};
}  // namespace

TEST_CASE("planted race: the last warp without __syncwarp passes the plain grader", "[gpu][grader][p0][planted-race]") {
  for (const std::size_t n : kSizes)
    check_reduce(planted_reduce_no_syncwarp, "planted_reduce_no_syncwarp", wb::random_dyadic_floats(n, 7), true);
}

TEST_CASE("planted over-read: a masked read past n passes the plain grader", "[gpu][grader][p0][planted-overread]") {
  for (const std::size_t n : kSizes)
    check_reduce(planted_reduce_reads_past_n_masked, "planted_reduce_reads_past_n_masked",
                 wb::random_dyadic_floats(n, 7), true);
}

// ---- 0.11 histogram ---------------------------------------------------------------------------------

namespace {

struct HistogramPlant {
  const char* what;
  HistogramLauncher launch;
  std::size_t n;
  std::size_t offset;
  int num_bins;
  ByteInput input;
  int calls;
  const char* diagnosis;  // "" = the grader must accept it
};

}  // namespace

TEST_CASE("the 0.11 histogram grader accepts a correct histogram and names every planted bug", "[gpu][grader][p0]") {
  // 4099 = 256 vectors + 3 bytes of tail; 1000003 bytes 1 past a 16-byte boundary = 15 bytes of head,
  // 62499 vectors and 4 bytes of tail.
  const std::vector<HistogramPlant> plants = {
      {"a correct kernel", planted_histogram_correct, 4099, 0, 256, ByteInput::Uniform, 1, ""},
      {"a correct kernel, 7 bins, twice", planted_histogram_correct, 1000003, 1, 7, ByteInput::TwoValues, 2, ""},
      {"a correct kernel, all equal", planted_histogram_correct, 17, 3, 256, ByteInput::AllSame, 1, ""},
      {"a correct kernel, n = 0", planted_histogram_correct, 0, 0, 256, ByteInput::Uniform, 1, ""},
      {"bins never zeroed", planted_histogram_no_zeroing, 4099, 0, 256, ByteInput::Uniform, 1, "Bins never zeroed"},
      {"bins never zeroed, two calls", planted_histogram_no_zeroing, 4099, 2, 7, ByteInput::Uniform, 2,
       "Bins never zeroed"},
      {"bins never zeroed, n = 0", planted_histogram_no_zeroing, 0, 0, 256, ByteInput::Uniform, 1,
       "Output untouched: n = 0"},
      {"the tail skipped", planted_histogram_skips_tail, 4099, 0, 256, ByteInput::Uniform, 1,
       "The last 3 bytes were never counted"},
      {"the tail skipped, misaligned", planted_histogram_skips_tail, 1000003, 1, 256, ByteInput::Uniform, 1,
       "Lost or double-counted bytes: the counts sum to 999999, not n = 1000003. The last 4 bytes"},
      {"the global atomic one bin off", planted_histogram_bin_off_by_one, 4099, 0, 256, ByteInput::Uniform, 1,
       "one bin too high"},
      {"the global atomic one bin off, 7 bins", planted_histogram_bin_off_by_one, 4099, 2, 7, ByteInput::Uniform, 1,
       "one bin too high"},
      {"each block's partial added twice", planted_histogram_partial_added_twice, 4099, 0, 256, ByteInput::Uniform, 1,
       "exactly 2 times"},
      {"each block's partial added twice, 255 bins", planted_histogram_partial_added_twice, 1000003, 3, 255,
       ByteInput::TwoValues, 1, "exactly 2 times"},
  };
  const std::uint64_t seed = wb::test::seed();
  for (const HistogramPlant& p : plants) {
    INFO("planted: " << p.what << " (n = " << p.n << ", data " << p.offset << " bytes past a 16-byte boundary, "
                     << p.num_bins << " bins, " << describe(p.input) << " bytes, " << p.calls << " call(s))");
    HistogramRun run;
    run.offset = p.offset;
    run.num_bins = p.num_bins;
    run.calls = p.calls;
    const std::string verdict = grade_histogram("planted", p.launch, make_bytes(p.input, p.n, seed), run);
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

// The two bugs the plain grader cannot see, each in a case of its own so that CTest can run
// compute-sanitizer on it alone (gpu.p0.sanitizer-histogram-race / -overread). Their counts are right,
// so the grader passes them: that it does is checked here.
TEST_CASE("planted race: per-lane histograms merged without __syncwarp pass the plain grader",
          "[gpu][grader][p0][planted-histogram-race]") {
  for (const std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(4099), std::size_t(16411)}) {
    INFO("n = " << n);
    HistogramRun run;
    run.offset = 3;
    CHECK(grade_histogram("planted", planted_histogram_merge_without_syncwarp,
                          make_bytes(ByteInput::Uniform, n, wb::test::seed()), run)
              .empty());
  }
}

TEST_CASE("planted over-read: a vector loop that loads one uint4 past the data passes the plain grader",
          "[gpu][grader][p0][planted-histogram-overread]") {
  // 1 and 17: the extra vector straddles the end; 32: it lies wholly past it; 4099 and 16411 with
  // data 0 and 2 bytes past a 16-byte boundary.
  for (const std::size_t n :
       {std::size_t(1), std::size_t(17), std::size_t(32), std::size_t(4099), std::size_t(16411)}) {
    for (const std::size_t offset : {std::size_t(0), std::size_t(2)}) {
      INFO("n = " << n << ", data " << offset << " bytes past a 16-byte boundary");
      HistogramRun run;
      run.offset = offset;
      CHECK(grade_histogram("planted", planted_histogram_reads_vec_past_end,
                            make_bytes(ByteInput::Uniform, n, wb::test::seed()), run)
                .empty());
    }
  }
}
