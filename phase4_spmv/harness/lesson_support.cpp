// SPDX-License-Identifier: MIT
#include "phase4_spmv/harness/lesson_support.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <utility>

#include "common/buffer.h"
#include "common/check_cusparse.h"
#include "common/gpu.h"
#include "common/measure.h"
#include "phase4_spmv/harness/tolerance.h"

namespace p4 {

// ---- matrix options ----------------------------------------------------------------------------------

SpmvMatrixOptions& spmv_matrix_options() {
  static SpmvMatrixOptions options;
  return options;
}

namespace {

// "poisson, uniform, powerlaw, banded, block"
std::string generator_list() {
  std::string names;
  for (const std::string& n : spmv_generator_names()) names += (names.empty() ? "" : ", ") + n;
  return names;
}

// What the argument check and the generator both say of a name they do not know.
std::string unknown_generator(const std::string& name) {
  return "--gen: unknown generator '" + name + "' (choose one of " + generator_list() + ")";
}

}  // namespace

bool take_spmv_matrix_options(std::vector<std::string>& args, SpmvMatrixOptions* out, std::string* error) {
  std::vector<std::string> rest;
  bool seen_matrix = false, seen_gen = false, seen_rows = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i], value;
    bool inline_value = false;
    const std::size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg = arg.substr(0, eq);
      inline_value = true;
    }
    std::string* dest = nullptr;
    bool* seen = nullptr;
    if (arg == "--matrix") {
      dest = &out->matrix_file;
      seen = &seen_matrix;
    } else if (arg == "--gen") {
      dest = &out->generator;
      seen = &seen_gen;
    } else if (arg == "--rows") {
      dest = &out->rows;
      seen = &seen_rows;
    }
    if (dest == nullptr) {
      rest.push_back(args[i]);
      continue;
    }
    if (*seen) {
      *error = arg + " given twice";
      return false;
    }
    *seen = true;
    if (!inline_value) {
      if (i + 1 >= args.size()) {
        *error = arg + " needs a value";
        return false;
      }
      value = args[++i];
    }
    if (value.empty()) {
      *error = arg + " needs a value";
      return false;
    }
    *dest = value;
  }
  if (seen_matrix && (seen_gen || seen_rows)) {
    *error = "--matrix reads its size from the file: drop --gen and --rows";
    return false;
  }
  // What can be judged without a GPU is judged here, before the GPU probe: bad arguments exit 2 on
  // any machine. (A malformed file is reported, with its line, when the lesson reads it.)
  const std::vector<std::string>& names = spmv_generator_names();
  if (seen_gen && std::find(names.begin(), names.end(), out->generator) == names.end()) {
    *error = unknown_generator(out->generator);
    return false;
  }
  std::size_t rows = 0;
  if (seen_rows && (!wb::parse_count(out->rows, &rows) || rows < 1)) {
    *error = "--rows needs a count of at least 1 like 4M, got '" + out->rows + "'";
    return false;
  }
  if (seen_matrix) {
    std::FILE* file = std::fopen(out->matrix_file.c_str(), "r");
    if (file == nullptr) {
      *error = "--matrix: cannot open '" + out->matrix_file + "': " + std::strerror(errno);
      return false;
    }
    std::fclose(file);
  }
  args = rest;
  return true;
}

std::string spmv_matrix_usage() {
  const std::string names = generator_list();
  return "matrix options (phase 4):\n"
         "  --matrix F   a Matrix Market file (coordinate real/integer/pattern, general or symmetric)\n"
         "  --gen NAME   a generated matrix: " +
         names +
         "\n"
         "  --rows N     its number of rows (4M if not given; --size N means the same)\n";
}

// ---- generators ----------------------------------------------------------------------------------------

const std::vector<std::string>& spmv_generator_names() {
  static const std::vector<std::string> names = {"poisson", "uniform", "powerlaw", "banded", "block"};
  return names;
}

p4::sparse::Csr make_generated_matrix(const std::string& name, int rows, std::uint64_t seed) {
  if (rows < 1) throw wb::UsageError("--rows must be at least 1");
  if (name == "poisson") {
    const int n = std::max(1, static_cast<int>(std::lround(std::sqrt(static_cast<double>(rows)))));
    return p4::sparse::poisson_2d(n);
  }
  if (name == "uniform") return p4::sparse::random_uniform(rows, rows, 16, seed);
  if (name == "powerlaw") return p4::sparse::power_law(rows, rows, 2.0, 65536, seed);
  if (name == "banded") return p4::sparse::banded(rows, 8, 8, seed);
  if (name == "block") return p4::sparse::block_fem(std::max(1, rows / 4), 4, seed);
  throw wb::UsageError(unknown_generator(name));
}

SpmvProblem load_spmv_problem(const SpmvMatrixOptions& options, const std::string& size_option,
                              const std::string& default_generator, int default_rows, std::uint64_t seed) {
  SpmvProblem problem;
  if (!options.matrix_file.empty()) {
    if (!size_option.empty()) throw wb::UsageError("--matrix reads its size from the file: drop --size");
    try {
      problem.csr = p4::sparse::coo_to_csr(p4::sparse::read_matrix_market_file(options.matrix_file));
    } catch (const p4::sparse::MatrixMarketError& e) {
      throw wb::UsageError(e.what());
    } catch (const p4::sparse::SparseError& e) {
      throw wb::UsageError(options.matrix_file + ": " + e.what());
    }
    const std::size_t slash = options.matrix_file.find_last_of('/');
    problem.label = slash == std::string::npos ? options.matrix_file : options.matrix_file.substr(slash + 1);
    return problem;
  }
  if (!options.rows.empty() && !size_option.empty()) throw wb::UsageError("give --rows or --size, not both");
  const std::string rows_text = !options.rows.empty() ? options.rows : size_option;
  std::size_t rows = static_cast<std::size_t>(default_rows);
  if (!rows_text.empty() && (!wb::parse_count(rows_text, &rows, false) || rows > (std::size_t(1) << 28)))
    throw wb::UsageError("--rows needs a count from 1 to 256M like 4M, got '" + rows_text + "'");
  const std::string gen = options.generator.empty() ? default_generator : options.generator;
  problem.csr = make_generated_matrix(gen, static_cast<int>(rows), seed);
  problem.label = gen + ":" + wb::format_count(static_cast<std::size_t>(problem.csr.rows));
  return problem;
}

std::string describe_matrix(const p4::sparse::Csr& a) {
  int empty = 0, longest = 0;
  for (int r = 0; r < a.rows; ++r) {
    const int len = a.row_ptr[r + 1] - a.row_ptr[r];
    empty += len == 0;
    longest = std::max(longest, len);
  }
  char text[256];
  std::snprintf(text, sizeof text, "rows %s, cols %s, nnz %s, %.2f per row (%d empty, longest %d)",
                wb::format_count(static_cast<std::size_t>(a.rows)).c_str(),
                wb::format_count(static_cast<std::size_t>(a.cols)).c_str(), wb::format_count(a.nnz()).c_str(),
                a.rows > 0 ? static_cast<double>(a.nnz()) / a.rows : 0.0, empty, longest);
  return text;
}

// ---- cuSPARSE ------------------------------------------------------------------------------------------

// ---- cuSPARSE CSR SpMV, the library line ---------------------------------------------------------
// Declared here, not in lesson_support.h: 4.08 includes that header, and this is 4.08's answer.
// y = A x with cusparseSpMV (CUSPARSE_SPMV_ALG_DEFAULT, FP32). Handle, descriptors and work buffer are
// made in the constructor; run() only enqueues the SpMV on the stream given there.
class CusparseCsrSpmv {
 public:
  CusparseCsrSpmv(const CsrView& a, const float* x, float* y, cudaStream_t stream);
  ~CusparseCsrSpmv();
  CusparseCsrSpmv(const CusparseCsrSpmv&) = delete;
  CusparseCsrSpmv& operator=(const CusparseCsrSpmv&) = delete;
  void run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct CusparseCsrSpmv::Impl {
  cusparseHandle_t handle = nullptr;
  cusparseConstSpMatDescr_t matrix = nullptr;
  cusparseConstDnVecDescr_t x = nullptr;
  cusparseDnVecDescr_t y = nullptr;
  void* work = nullptr;
  float* y_data = nullptr;
  int rows = 0;
  bool no_entries = false;  // nnz = 0: y = 0 without cuSPARSE (it refuses null index arrays)
  cudaStream_t stream = nullptr;
};

CusparseCsrSpmv::CusparseCsrSpmv(const CsrView& a, const float* x, float* y, cudaStream_t stream) : impl_(new Impl) {
  Impl& p = *impl_;
  p.y_data = y;
  p.rows = a.rows;
  p.stream = stream;
  p.no_entries = a.nnz == 0 || a.rows == 0 || a.cols == 0;
  if (p.no_entries) return;
  const float alpha = 1.0f, beta = 0.0f;
  CUSPARSE_CHECK(cusparseCreate(&p.handle));
  CUSPARSE_CHECK(cusparseSetStream(p.handle, stream));
  CUSPARSE_CHECK(cusparseCreateConstCsr(&p.matrix, a.rows, a.cols, a.nnz, a.row_ptr, a.col, a.val, CUSPARSE_INDEX_32I,
                                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  CUSPARSE_CHECK(cusparseCreateConstDnVec(&p.x, a.cols, x, CUDA_R_32F));
  CUSPARSE_CHECK(cusparseCreateDnVec(&p.y, a.rows, y, CUDA_R_32F));
  std::size_t work_bytes = 0;
  CUSPARSE_CHECK(cusparseSpMV_bufferSize(p.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, p.matrix, p.x, &beta, p.y,
                                         CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &work_bytes));
  if (work_bytes > 0) p.work = wb::device_alloc(work_bytes);
}

CusparseCsrSpmv::~CusparseCsrSpmv() {
  Impl& p = *impl_;
  // Destructors must not throw: statuses are ignored here.
  if (p.y) cusparseDestroyDnVec(p.y);
  if (p.x) cusparseDestroyDnVec(p.x);
  if (p.matrix) cusparseDestroySpMat(p.matrix);
  if (p.handle) cusparseDestroy(p.handle);
  wb::device_free(p.work);
}

void CusparseCsrSpmv::run() {
  Impl& p = *impl_;
  if (p.no_entries) {
    if (p.rows > 0)
      CUDA_CHECK(cudaMemsetAsync(p.y_data, 0, sizeof(float) * static_cast<std::size_t>(p.rows), p.stream));
    return;
  }
  const float alpha = 1.0f, beta = 0.0f;
  CUSPARSE_CHECK(cusparseSpMV(p.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, p.matrix, p.x, &beta, p.y, CUDA_R_32F,
                              CUSPARSE_SPMV_ALG_DEFAULT, p.work));
}

// ---- the bench ---------------------------------------------------------------------------------------

struct SpmvBench::Buffers {
  std::unique_ptr<DeviceMatrix> matrix;
  wb::DeviceBuffer<float> x;
  std::unique_ptr<wb::GuardedDeviceBuffer<float>> y;
  wb::DeviceBuffer<float> y_library;
  std::vector<float> expected;
  std::vector<wb::Tolerance> tolerance;
  std::unique_ptr<CusparseCsrSpmv> library;
};

SpmvBench::SpmvBench(p4::sparse::Csr a, std::uint64_t seed) : buffers_(new Buffers) {
  Buffers& b = *buffers_;
  SpmvExpected e = spmv_expected(a, seed);
  b.expected = std::move(e.y);
  b.tolerance = std::move(e.tolerance);
  b.x = wb::DeviceBuffer<float>(e.x);
  b.y.reset(new wb::GuardedDeviceBuffer<float>(static_cast<std::size_t>(a.rows)));
  b.y_library = wb::DeviceBuffer<float>(static_cast<std::size_t>(a.rows));
  b.matrix.reset(new DeviceMatrix(std::move(a)));
}

SpmvBench::~SpmvBench() = default;

DeviceMatrix& SpmvBench::matrix() {
  return *buffers_->matrix;
}

bool SpmvBench::verify(const std::string& what, const SpmvRun& run) {
  Buffers& b = *buffers_;
  b.y->fill(wb::poison_value<float>());
  run(*b.matrix, b.x.data(), b.y->data(), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  return wb::check_output(what, b.expected, *b.y, [&](std::size_t i) { return b.tolerance[i]; });
}

wb::TimingStats SpmvBench::time(const SpmvRun& run, const wb::BenchOptions& options) {
  Buffers& b = *buffers_;
  return wb::bench(nullptr, options, [&] { run(*b.matrix, b.x.data(), b.y->data(), nullptr); });
}

wb::TimingStats SpmvBench::time_cusparse(const wb::BenchOptions& options) {
  Buffers& b = *buffers_;
  if (!b.library) b.library.reset(new CusparseCsrSpmv(b.matrix->csr(), b.x.data(), b.y_library.data(), nullptr));
  return wb::bench(nullptr, options, [&] { b.library->run(); });
}

int run_spmv_lesson(wb::Lesson& lesson, const char* launcher_name, const SpmvRun& run,
                    const std::string& default_generator, int default_rows) {
  SpmvProblem problem =
      load_spmv_problem(spmv_matrix_options(), lesson.options().size, default_generator, default_rows, lesson.seed());
  const p4::sparse::Csr& a = problem.csr;
  const double bytes = spmv_min_bytes(a), flop = spmv_flop(a);
  // Device: the CSR arrays, x, y twice (ours and the library's); a format the run converts to comes on
  // top. Host: the matrix, its reference and tolerances.
  lesson.require_memory(bytes + 4.0 * a.rows, 2.0 * bytes + 24.0 * a.rows);
  if (!lesson.options().csv) std::printf("matrix %s: %s\n", problem.label.c_str(), describe_matrix(a).c_str());

  SpmvBench bench(std::move(problem.csr), lesson.seed());
  bool pass = false;
  wb::TimingStats time;
  try {
    wb::MeasureSteps steps;
    steps.verify = [&](const std::string& when) { return bench.verify(launcher_name + when, run); };
    // Memory-bound: a cold L2 before each repeat, so the matrix comes from HBM every time.
    steps.time = [&] { return bench.time(run, lesson.bench_options(true)); };
    const wb::Measured measured = wb::measure(steps);
    time = measured.time;
    pass = measured.pass;
  } catch (const p4::sparse::SparseError& e) {
    throw wb::UsageError(std::string(launcher_name) + " cannot run on " + problem.label + ": " + e.what());
  }
  const wb::TimingStats library = bench.time_cusparse(lesson.bench_options(true));

  // cuSPARSE's rate over the same minimum bytes: its share is then the ratio of the two times.
  const wb::MeasuredReference cusparse{"cuSPARSE CSR", wb::gb_per_s(bytes, library.median_ms)};
  wb::ResultLine line = lesson.memory_bound_line(launcher_name, problem.label, time, bytes, pass, cusparse);
  line.flop = flop;  // the CSV's flop column: 2 nnz, for GFLOP/s
  lesson.report(line);
  if (!lesson.options().csv) {
    // A wrong answer has no rate here either (as on the result line): only cuSPARSE's numbers.
    if (pass) std::printf("      %.1f GFLOP/s (2 nnz / time);", wb::gflop_per_s(flop, time.median_ms));
    std::printf("%scuSPARSE CSR %.3g ms, %.0f GB/s, %.1f GFLOP/s\n", pass ? " " : "      ", library.median_ms,
                wb::gb_per_s(bytes, library.median_ms), wb::gflop_per_s(flop, library.median_ms));
  }
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace p4
