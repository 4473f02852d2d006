// SPDX-License-Identifier: MIT
// A grader that passes a wrong kernel is the worst bug of a course: plant each bug the phase 3
// grader claims to catch (reading past n, missing the tail, a missing __syncthreads, a dropped last
// warp step, an add during load that counts elements twice, writing into the input) and check that
// it fails with the sentence that names it, while a correct kernel passes. The same for 3.11's scan
// grader (scan_grading.h): a tile counter reset only once, an exclusive scan, the last partial tile
// dropped, a predecessor's aggregate taken as its inclusive prefix, no carry between tiles; its race
// and its over-read pass the plain grader and have cases of their own for the sanitizer tests.
#include <cstdint>
#include <string>
#include <vector>

#include "common/testing.h"
#include "phase3_reduction/tests/grading.h"
#include "phase3_reduction/tests/scan_grading.h"
#include "phase3_reduction/tests/wrong_kernels.h"

namespace {

struct Plant {
  const char* what;
  ReduceLauncher<float> launch;
  std::size_t n;
  SumInput input;
  const char* diagnosis;  // "" = the grader must accept it
};

}  // namespace

TEST_CASE("the phase 3 grader accepts a correct reduction and names every planted bug", "[gpu][grader][p3]") {
  const std::size_t big = (std::size_t(1) << 24) + 7;
  const std::vector<Plant> plants = {
      {"a correct kernel, exact inputs", planted_correct, big, SumInput::Exact, ""},
      {"a correct kernel, mixed inputs", planted_correct, 1025, SumInput::Mixed, ""},
      {"a correct kernel, constant inputs", planted_correct, big, SumInput::Constant, ""},
      {"a correct kernel, n = 0", planted_correct, 0, SumInput::Exact, ""},
      // Two passes: the second reads past the 5 partial sums into the workspace's NaN poison, which the
      // NaN message attributes to reading past the end of a pass's input.
      {"reading past n (no bound on the load), two passes", planted_reads_past_n, 1025, SumInput::Exact,
       "past the end"},
      {"reading past n (no bound on the load), one pass", planted_reads_past_n, 200, SumInput::Exact,
       "past the end of the input"},
      {"reading past n, mixed inputs", planted_reads_past_n, 33, SumInput::Mixed, "past the end of the input"},
      {"missing the tail (a grid rounded down)", planted_misses_tail, 1025, SumInput::Exact, "missed the last 1 "},
      {"missing the tail of a large input", planted_misses_tail, big, SumInput::Exact, "missed the last 7 "},
      {"no __syncthreads between the tree's steps", planted_no_syncthreads, big, SumInput::Exact, "Wrong sum"},
      {"dropping the last warp step", planted_drops_last_warp_step, 1025, SumInput::Exact, "Wrong sum"},
      {"dropping the last warp step, all negative", planted_drops_last_warp_step, 1024, SumInput::AllNegative,
       "Wrong sum"},
      {"double counting in an add during load", planted_double_counts_load, 1025, SumInput::Exact, "Wrong sum"},
      {"writing partial sums into the input", planted_writes_input, 1025, SumInput::Exact, "input was modified"},
  };
  for (const Plant& p : plants) {
    INFO("planted: " << p.what << " (n = " << p.n << ", " << describe(p.input) << ")");
    const std::vector<float> input = make_float_input(p.input, p.n, wb::test::seed());
    const std::string verdict = grade_reduce("planted", p.launch, input, p.input == SumInput::Exact);
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

// The two bugs the plain grader cannot see, each its own case so that CTest can run compute-sanitizer
// on it alone (gpu.p3.sanitizer-*, cmake workbook_sanitizer_catches). On their own the sums are
// right, so the grader passes them: that it does is checked here, and the sanitizer tests prove the
// grade's racecheck and exact-input memcheck runs fail them.
TEST_CASE("planted race: 3.05's last warp without __syncwarp passes the plain grader",
          "[gpu][grader][p3][planted-race]") {
  for (const std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(1025), std::size_t(4099)}) {
    INFO("n = " << n);
    const std::vector<float> input = make_float_input(SumInput::Exact, n, wb::test::seed());
    CHECK(grade_reduce("planted", planted_no_syncwarp, input, true).empty());
  }
}

TEST_CASE("planted over-read: a masked load past n passes the plain grader", "[gpu][grader][p3][planted-overread]") {
  for (const std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(1025), std::size_t(4099)}) {
    INFO("n = " << n);
    const std::vector<float> input = make_float_input(SumInput::Exact, n, wb::test::seed());
    CHECK(grade_reduce("planted", planted_reads_past_n_masked, input, true).empty());
  }
}

// ---- 3.11 scan ------------------------------------------------------------------------------------
// The planted scans use tiles of 512 elements. A tile numbered by blockIdx.x is not planted: whether it
// hangs depends on the order the hardware starts blocks in, and a self-test must never hang; nor are
// status words left stale from the previous call, whose effect depends on which tile publishes first.
// The tile counter left from the previous call is planted instead: it fails the second call every time.

namespace {

struct ScanPlant {
  const char* what;
  ScanLauncher<int> launch;
  std::size_t n;
  ScanInput input;
  int calls;
  const char* diagnosis;  // "" = the grader must accept it
};

}  // namespace

TEST_CASE("the 3.11 scan grader accepts a correct scan and names every planted bug", "[gpu][grader][p3]") {
  const std::vector<ScanPlant> plants = {
      {"a correct scan, all ones", planted_scan_correct, 4097, ScanInput::Ones, 1, ""},
      {"a correct scan, wrapping ints, two calls", planted_scan_correct, 100003, ScanInput::WrappingInts, 2, ""},
      {"a correct scan, 1954 tiles", planted_scan_correct, 1000003, ScanInput::RandomInts, 1, ""},
      {"a correct scan, n = 1", planted_scan_correct, 1, ScanInput::RandomInts, 1, ""},
      {"a correct scan, n = 0", planted_scan_correct, 0, ScanInput::RandomInts, 1, ""},
      {"the tile counter reset only once per workspace", planted_scan_counter_not_reset, 4097, ScanInput::RandomInts, 2,
       "The first call was right, the second was not"},
      {"an exclusive scan", planted_scan_exclusive, 1025, ScanInput::Ones, 1, "Exclusive scan"},
      {"an exclusive scan, random ints", planted_scan_exclusive, 4099, ScanInput::RandomInts, 1, "Exclusive scan"},
      {"the last partial tile dropped", planted_scan_drops_partial_tile, 1025, ScanInput::Ones, 1,
       "The last 1 elements were never written"},
      {"the last partial tile dropped, n below one tile", planted_scan_drops_partial_tile, 300, ScanInput::RandomInts,
       1, "Output untouched"},
      {"a predecessor's aggregate taken as its inclusive prefix", planted_scan_aggregate_as_prefix, 4097,
       ScanInput::Ones, 1, "right up to index 1023"},
      {"a predecessor's aggregate taken as its inclusive prefix, wrapping ints", planted_scan_aggregate_as_prefix,
       100003, ScanInput::WrappingInts, 1, "Wrong carry between tiles"},
      {"no carry between tiles", planted_scan_no_carry, 4097, ScanInput::Ones, 1, "right up to index 511"},
  };
  const std::uint64_t seed = wb::test::seed();
  for (const ScanPlant& p : plants) {
    INFO("planted: " << p.what << " (n = " << p.n << ", " << describe(p.input) << ", " << p.calls << " call(s))");
    const std::vector<int> input = make_scan_ints(p.input, p.n, seed);
    const std::vector<int> second = make_scan_ints(ScanInput::RandomInts, p.n, seed + 1);
    const std::string verdict = grade_scan("planted", p.launch, input, p.calls > 1 ? &second : nullptr);
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

TEST_CASE("planted scan race: lane totals scanned in shared memory without __syncwarp pass the plain grader",
          "[gpu][grader][p3][planted-scan-race]") {
  for (const std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(1025), std::size_t(4099)}) {
    INFO("n = " << n);
    const std::vector<int> input = make_scan_ints(ScanInput::RandomInts, n, wb::test::seed());
    CHECK(grade_scan("planted", planted_scan_no_syncwarp, input).empty());
  }
}

TEST_CASE("planted scan over-read: a last tile that reads one int4 past n passes the plain grader",
          "[gpu][grader][p3][planted-scan-overread]") {
  // None of these is a multiple of the planted tile (512), so the vector past n belongs to the last tile.
  for (const std::size_t n : {std::size_t(1), std::size_t(32), std::size_t(1025), std::size_t(4099)}) {
    INFO("n = " << n);
    const std::vector<int> input = make_scan_ints(ScanInput::RandomInts, n, wb::test::seed());
    CHECK(grade_scan("planted", planted_scan_reads_vec_past_n, input).empty());
  }
}
