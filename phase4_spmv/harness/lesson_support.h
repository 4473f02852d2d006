// SPDX-License-Identifier: MIT
// What every SpMV lesson of phase 4 shares: the matrix options (--matrix file.mtx, or --gen NAME with
// --rows N, the generators at sizes far beyond L2), the device matrix with x and a poisoned y, the
// double-precision reference with its per-row tolerance (tolerance.h), cuSPARSE CSR SpMV timed in the
// same run (plan and work buffer made outside the timed region), and the result line: effective
// GB/s over the CSR minimum bytes, % of the HBM peak, % of cuSPARSE CSR, followed by the GFLOP/s.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/lesson.h"
#include "phase4_spmv/harness/device_matrix.h"
#include "phase4_spmv/harness/sparse.h"
#include "phase4_spmv/spmv.cuh"

namespace p4 {

// ---- matrix options ----------------------------------------------------------------------------------
struct SpmvMatrixOptions {
  std::string matrix_file;  // --matrix: a Matrix Market file
  std::string generator;    // --gen: one of spmv_generator_names()
  std::string rows;         // --rows: as typed ("4M"); --size is read as the same thing
};

// The options of this run, filled by the phase's lesson main (lesson_main.cpp) before the lesson runs.
SpmvMatrixOptions& spmv_matrix_options();

// Removes --matrix, --gen and --rows (as "--opt value" or "--opt=value") from `args` into `out`.
// False, with a one-line reason in `error`, when one lacks its value or repeats.
bool take_spmv_matrix_options(std::vector<std::string>& args, SpmvMatrixOptions* out, std::string* error);
// The usage lines of those options, printed after the common usage text.
std::string spmv_matrix_usage();

// "poisson", "uniform", "powerlaw", "banded", "block".
const std::vector<std::string>& spmv_generator_names();
// One of the generators at about `rows` rows (poisson: the nearest n^2; block: a multiple of 4):
//   poisson   the 5-point 2-D Laplacian (5 per row)        uniform  16 random columns per row
//   powerlaw  row lengths ~ len^-2, up to 65536 per row    banded   17 diagonals (8 below, 8 above)
//   block     block_fem: 4x4 dense blocks, 4 neighbours per node (20 per row)
// UsageError for an unknown name (the message lists the names).
p4::sparse::Csr make_generated_matrix(const std::string& name, int rows, std::uint64_t seed);

struct SpmvProblem {
  std::string label;  // "poisson:4M", "powerlaw:2M", "bcsstk01.mtx"
  p4::sparse::Csr csr;
};
// The matrix this run asks for: --matrix file, else --gen (default `default_generator`) at --rows (or
// --size, default `default_rows`). A Matrix Market error becomes a UsageError "<file>:<line>: <reason>"
// (exit 2), as do a bad --rows or an unknown --gen.
SpmvProblem load_spmv_problem(const SpmvMatrixOptions& options, const std::string& size_option,
                              const std::string& default_generator, int default_rows, std::uint64_t seed);

// "rows 4M, cols 4M, nnz 20M, 5.00 per row (0 empty, longest 5)"
std::string describe_matrix(const p4::sparse::Csr& a);

// ---- the bench ---------------------------------------------------------------------------------------
// A launcher as the lessons, the grader and the benchmark call it: the device matrix (ask it for the
// format you need), x and y on the device, a stream.
using SpmvRun = std::function<void(DeviceMatrix& a, const float* x, float* y, cudaStream_t stream)>;

// One matrix on the device with x (random in [-1, 1) from `seed`), a guarded y, the reference and the
// per-row tolerance.
class SpmvBench {
 public:
  SpmvBench(p4::sparse::Csr a, std::uint64_t seed);
  ~SpmvBench();
  SpmvBench(const SpmvBench&) = delete;
  SpmvBench& operator=(const SpmvBench&) = delete;

  DeviceMatrix& matrix();
  // Poisons y, runs once, compares with the reference under the per-row tolerance and checks y's
  // guards; prints the report to stderr and returns false when wrong.
  bool verify(const std::string& what, const SpmvRun& run);
  // Times `run` (cold L2 between repeats when flush_l2).
  wb::TimingStats time(const SpmvRun& run, const wb::BenchOptions& options);
  // Times cuSPARSE CSR SpMV on the same matrix and x (into a separate y).
  wb::TimingStats time_cusparse(const wb::BenchOptions& options);

 private:
  struct Buffers;
  std::unique_ptr<Buffers> buffers_;
};

// The lesson of a rung: load the matrix, verify, time (cold L2), verify again, time cuSPARSE CSR,
// print the result line (effective GB/s, % HBM peak, % of cuSPARSE CSR) and, unless --csv, a line
// with the GFLOP/s of both. A SparseError from the run (e.g. ELL padding that would explode) becomes
// a UsageError with its message (exit 2).
int run_spmv_lesson(wb::Lesson& lesson, const char* launcher_name, const SpmvRun& run,
                    const std::string& default_generator = "poisson", int default_rows = 4 << 20);

}  // namespace p4
