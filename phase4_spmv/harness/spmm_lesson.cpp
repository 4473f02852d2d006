// SPDX-License-Identifier: MIT
#include "phase4_spmv/harness/spmm_lesson.h"

#include <cstdio>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/buffer.h"
#include "common/gpu.h"
#include "common/measure.h"
#include "common/report.h"
#include "common/verify.h"
#include "phase4_spmv/harness/cusparse_spmm.h"
#include "phase4_spmv/harness/lesson_support.h"

namespace p4 {

struct SpmmBench::Buffers {
  DeviceMatrix* matrix = nullptr;
  int k = 0;
  wb::DeviceBuffer<float> x;
  std::unique_ptr<wb::GuardedDeviceBuffer<float>> y;
  wb::DeviceBuffer<float> y_library;
  std::vector<float> expected;
  std::vector<float> tolerance;
};

SpmmBench::SpmmBench(DeviceMatrix& matrix, int k, std::uint64_t seed) : buffers_(new Buffers) {
  Buffers& b = *buffers_;
  b.matrix = &matrix;
  b.k = k;
  SpmmExpected e = spmm_expected(matrix.host(), k, seed);
  b.x = wb::DeviceBuffer<float>(e.x);
  b.expected = std::move(e.y);
  b.tolerance = std::move(e.tolerance);
  b.y.reset(new wb::GuardedDeviceBuffer<float>(b.expected.size()));
  b.y_library = wb::DeviceBuffer<float>(b.expected.size());
}

SpmmBench::~SpmmBench() = default;

int SpmmBench::k() const {
  return buffers_->k;
}

bool SpmmBench::verify(const std::string& what, const SpmmRun& run) {
  Buffers& b = *buffers_;
  b.y->fill(wb::poison_value<float>());
  run(*b.matrix, b.x.data(), b.y->data(), b.k, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return wb::check_output(
      what, b.expected, *b.y,
      [&](std::size_t i) {
        return wb::Tolerance{b.tolerance[i], 0.0};
      },
      static_cast<std::size_t>(b.k));
}

wb::TimingStats SpmmBench::time(const SpmmRun& run, const wb::BenchOptions& options) {
  Buffers& b = *buffers_;
  return wb::bench(nullptr, options, [&] { run(*b.matrix, b.x.data(), b.y->data(), b.k, nullptr); });
}

SpmmBench::Library SpmmBench::time_cusparse(const wb::BenchOptions& options) {
  Buffers& b = *buffers_;
  std::vector<Library> ran;
  std::string refused;
  for (SpmmAlgorithm algorithm : {SpmmAlgorithm::Default, SpmmAlgorithm::CsrAlg2}) {
    const std::string name = spmm_algorithm_name(algorithm);
    try {
      CusparseCsrSpmm library(b.matrix->csr(), b.x.data(), b.y_library.data(), b.k, algorithm, nullptr);
      // Checked once before it is timed: a yardstick that computes something else would flatter us.
      b.y_library.fill(wb::poison_value<float>());
      library.run();
      CUDA_CHECK(cudaDeviceSynchronize());
      const std::vector<float> got = b.y_library.download();
      const wb::CompareReport report = wb::compare_each(
          b.expected.data(), got.data(), got.size(),
          [&](std::size_t i) {
            return wb::Tolerance{b.tolerance[i], 0.0};
          },
          static_cast<std::size_t>(b.k));
      if (!report.ok()) std::fprintf(stderr, "%s", report.describe("cuSPARSE SpMM " + name).c_str());
      Library result;
      result.time = wb::bench(nullptr, options, [&] { library.run(); });
      result.algorithm = name;
      result.right = report.ok();
      ran.push_back(result);
    } catch (const wb::CudaError&) {
      throw;                                 // the GPU itself failed: nothing after this can be trusted
    } catch (const std::runtime_error& e) {  // a status cuSPARSE returned (CUSPARSE_CHECK)
      refused += ", " + name + " not run: " + e.what();
    }
  }
  if (ran.empty()) throw std::runtime_error("cuSPARSE SpMM ran with neither algorithm" + refused);
  std::size_t best = 0;
  for (std::size_t i = 1; i < ran.size(); ++i)
    if (ran[i].time.median_ms < ran[best].time.median_ms) best = i;
  Library result = ran[best];
  // The note: every algorithm's time, then any refusal.
  for (const Library& r : ran) {
    char text[128];
    std::snprintf(text, sizeof text, "%s%s %.3g ms", result.note.empty() ? "" : ", ", r.algorithm.c_str(),
                  r.time.median_ms);
    result.note += text;
  }
  result.note += refused;
  return result;
}

int run_spmm_lesson(wb::Lesson& lesson, const char* launcher_name, const SpmmRun& run) {
  SpmvProblem problem =
      load_spmv_problem(spmv_matrix_options(), lesson.options().size, "poisson", 4 << 20, lesson.seed());
  const double nnz = static_cast<double>(problem.csr.nnz()), rows = problem.csr.rows, cols = problem.csr.cols;
  // At k = 128, device: A, X, Y twice (ours, guarded, and cuSPARSE's); host: A, then X, the reference,
  // its bounds and two downloads of Y.
  const double a_bytes = 8.0 * nnz + 4.0 * (rows + 1);
  lesson.require_memory(a_bytes + 512.0 * (cols + 2.0 * rows), a_bytes + 512.0 * (cols + 4.0 * rows));
  if (!lesson.options().csv)
    std::printf("matrix %s: %s\n", problem.label.c_str(), describe_matrix(problem.csr).c_str());

  DeviceMatrix matrix(std::move(problem.csr));
  bool all_pass = true;
  for (int k : {64, 128}) {
    const double bytes = spmm_min_bytes(matrix.host(), k), flop = spmm_flop(matrix.host(), k);
    SpmmBench bench(matrix, k, lesson.seed());
    wb::MeasureSteps steps;
    steps.verify = [&](const std::string& when) { return bench.verify(launcher_name + when, run); };
    // Memory-bound: a cold L2 before each repeat, so A, X and Y come from HBM every time.
    steps.time = [&] { return bench.time(run, lesson.bench_options(true)); };
    const wb::Measured measured = wb::measure(steps);
    const wb::TimingStats& time = measured.time;
    bool pass = measured.pass;
    const SpmmBench::Library library = bench.time_cusparse(lesson.bench_options(true));
    if (!library.right) wb::note_check_failure("cuSPARSE SpMM", "wrong result");

    // cuSPARSE's rate over the same least bytes: its share is then the ratio of the two times.
    const wb::MeasuredReference cusparse{"cuSPARSE SpMM", wb::gb_per_s(bytes, library.time.median_ms)};
    const std::string problem_label = problem.label + " k=" + std::to_string(k);
    wb::ResultLine line =
        lesson.memory_bound_line(launcher_name, problem_label, time, bytes, pass && library.right, cusparse);
    line.flop = flop;  // the CSV's flop column: 2 nnz k, for GFLOP/s
    lesson.report(line);
    if (!lesson.options().csv) {
      if (pass) std::printf("      %.1f GFLOP/s (2 nnz k / time);", wb::gflop_per_s(flop, time.median_ms));
      std::printf("%scuSPARSE SpMM %.3g ms, %.0f GB/s, %.1f GFLOP/s with %s, the faster (%s)\n", pass ? " " : "      ",
                  library.time.median_ms, wb::gb_per_s(bytes, library.time.median_ms),
                  wb::gflop_per_s(flop, library.time.median_ms), library.algorithm.c_str(), library.note.c_str());
    }
    all_pass = all_pass && pass && library.right;
  }
  return all_pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace p4
