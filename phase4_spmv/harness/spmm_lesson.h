// SPDX-License-Identifier: MIT
// 4.09's lesson and p4_bench's SpMM rows: one matrix on the device (the phase's --matrix/--gen/--rows
// options), X random from the seed for k = 64 and k = 128, Y poisoned and guarded, the double
// reference with its bound per element (spmm_reference.h), cuSPARSE SpMM timed in the same run (the
// faster of CUSPARSE_SPMM_ALG_DEFAULT and CUSPARSE_SPMM_CSR_ALG2, plan and work buffer made outside
// the timed region, its Y checked too), and a result line per k: GB/s over SpMM's least traffic, % of
// the HBM peak, % of cuSPARSE SpMM.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/lesson.h"
#include "common/timer.h"
#include "phase4_spmv/harness/device_matrix.h"
#include "phase4_spmv/harness/spmm_reference.h"

namespace p4 {

class SpmmBench {
 public:
  // X (cols x k) random in [-1, 1) from `seed` on the device, a guarded Y, the reference and its bounds.
  // `matrix` must outlive the bench.
  SpmmBench(DeviceMatrix& matrix, int k, std::uint64_t seed);
  ~SpmmBench();
  SpmmBench(const SpmmBench&) = delete;
  SpmmBench& operator=(const SpmmBench&) = delete;

  int k() const;
  // Poisons Y, runs once, compares with the reference under the per-element bound and checks Y's
  // guards; prints the report to stderr and returns false when wrong.
  bool verify(const std::string& what, const SpmmRun& run);
  // Times `run` (cold L2 between repeats when flush_l2).
  wb::TimingStats time(const SpmmRun& run, const wb::BenchOptions& options);

  struct Library {
    wb::TimingStats time;   // the faster algorithm's
    std::string algorithm;  // its name
    bool right = false;     // its Y matched the reference
    std::string note;       // the other algorithm's time, or why it did not run
  };
  // cuSPARSE SpMM on the same A and X (into its own Y) with each algorithm: each checked once, then
  // timed; the faster is the yardstick. Throws std::runtime_error when neither runs.
  Library time_cusparse(const wb::BenchOptions& options);

 private:
  struct Buffers;
  std::unique_ptr<Buffers> buffers_;
};

// The lesson of 4.09: load the matrix, then for k = 64 and 128: verify, time (cold L2), verify again,
// time cuSPARSE SpMM, print the result line ("<label> k=64") and, unless --csv, a line with the GFLOP/s
// of both and the algorithm cuSPARSE ran.
int run_spmm_lesson(wb::Lesson& lesson, const char* launcher_name, const SpmmRun& run);

}  // namespace p4
