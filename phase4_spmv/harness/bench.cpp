// SPDX-License-Identifier: MIT
// p4_bench: every phase 4 reference kernel on every generator at millions of rows, against cuSPARSE
// CSR SpMV timed in the same run (cold L2 between repeats), as GFLOP/s, effective GB/s (the CSR
// minimum bytes, the same yardstick for every format) and % of cuSPARSE CSR. Writes the result CSV
// (common/result_csv.h; the rate column holds GB/s, the flop column the 2 nnz for GFLOP/s).
//   p4_bench [--rows 4M] [--gen poisson,uniform,powerlaw,banded,block] [--repeat N] [--out p4_bench.csv]
// Each SpMV is checked against the double reference with the graded per-row tolerance first; a
// kernel that cannot run on a matrix (ELL whose padding explodes) gets a SKIP row saying why.
// 4.01 coo_to_csr is a conversion, not an SpMV: its row times COO -> CSR on the same matrix, its GB/s
// counts the COO read once and the CSR written once, and it has no % of cuSPARSE.
// 4.09 spmm adds Y = A X rows at k = 64 and 128 on the same matrix (kernel spmm_csr_k64, _k128): its
// yardstick is cuSPARSE SpMM (the faster of ALG_DEFAULT and CSR_ALG2, in its own library row,
// cusparse_spmm_k64, _k128), its GB/s count SpMM's least traffic (A once, X once, Y once) and its
// GFLOP/s 2 nnz k.
#include <cstdio>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/args.h"
#include "common/bench_tool.h"
#include "common/buffer.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/measure.h"
#include "common/report.h"
#include "common/timer.h"
#include "phase4_spmv/harness/lesson_support.h"
#include "phase4_spmv/harness/spmm_lesson.h"
#include "phase4_spmv/spmv.cuh"

namespace {

const wb::BenchToolSpec kTool = {
    "p4_bench",
    "usage: p4_bench [--rows 4M] [--gen poisson,uniform,powerlaw,banded,block] [--repeat N] [--out p4_bench.csv]\n"
    "Times every phase 4 reference kernel on each generated matrix (L2 flushed between repeats) against\n"
    "cuSPARSE CSR SpMV measured in the same run (4.09's SpMM at k = 64 and 128 against cuSPARSE SpMM),\n"
    "checks each result, and writes the results as CSV.\n",
    {"--rows", "--gen"},
    10,
    "p4_bench.csv"};

struct Row {
  std::string id, generator, kernel, status, note;
  int rows = 0, cols = 0;
  long long nnz = 0;
  double bytes = 0, flop = 0;
  wb::TimingStats time;
  double cusparse_ms = 0;  // 0: no comparison (a conversion, or a skipped kernel)
  std::string yardstick = "cuSPARSE CSR";
};

// The row as a row of the result CSV: GB/s over the CSR minimum bytes, % of the library's time.
wb::ResultRow result_row(const Row& r, const wb::DeviceInfo& device) {
  wb::ResultRow row = wb::bench_row(r.status == "REF" ? "library" : "solution", r.kernel,
                                    r.generator + ":" + wb::format_count(static_cast<std::size_t>(r.rows)), "fp32",
                                    r.status == "SKIP" ? wb::TimingStats{} : r.time);
  row.id = r.id;
  row.bytes = r.bytes;
  row.flop = r.flop;
  wb::set_rate(row, "GB/s", wb::dram_peak_gbs(device), wb::memory_peak_label(device));
  if (r.cusparse_ms > 0 && row.timed) wb::set_reference(row, r.yardstick, 100.0 * r.cusparse_ms / r.time.median_ms);
  row.status = r.status == "REF" ? "PASS" : r.status;
  row.note = r.note;
  return row;
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

// Each SpMV launcher in the form the lessons use; anything made once per matrix (a plan, a workspace,
// a converted format) is made on the first call, which is the untimed verification.
struct Kernel {
  const char* id;
  const char* name;
  std::function<p4::SpmvRun()> make;
};

// 4.08's plan, destroyed with the last copy of the run that made it.
struct PlanHolder {
  CusparseSpmvPlan* plan = nullptr;
  PlanHolder() = default;
  PlanHolder(const PlanHolder&) = delete;
  PlanHolder& operator=(const PlanHolder&) = delete;
  ~PlanHolder() {
    if (plan != nullptr) spmv_cusparse_plan_destroy(plan);
  }
};

std::vector<Kernel> spmv_kernels() {
  return {
      {"4.02", "spmv_csr_scalar",
       [] {
         return p4::SpmvRun(
             [](p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t s) { spmv_csr_scalar(m.csr(), x, y, s); });
       }},
      {"4.03", "spmv_csr_vector",
       [] {
         return p4::SpmvRun(
             [](p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t s) { spmv_csr_vector(m.csr(), x, y, s); });
       }},
      {"4.04", "spmv_ell",
       [] {
         return p4::SpmvRun(
             [](p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t s) { spmv_ell(m.ell(), x, y, s); });
       }},
      {"4.05", "spmv_csr_adaptive",
       [] {
         auto plan = std::make_shared<wb::DeviceBuffer<int>>();
         return p4::SpmvRun([plan](p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t s) {
           if (plan->size() == 0) {
             *plan = wb::DeviceBuffer<int>(static_cast<std::size_t>(spmv_csr_adaptive_plan_entries(m.csr())));
             spmv_csr_adaptive_plan(m.csr(), plan->data(), s);
           }
           spmv_csr_adaptive(m.csr(), plan->data(), x, y, s);
         });
       }},
      {"4.06", "spmv_csr_balanced",
       [] {
         auto workspace = std::make_shared<wb::DeviceBuffer<unsigned char>>();
         return p4::SpmvRun([workspace](p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t s) {
           if (workspace->size() == 0)
             *workspace = wb::DeviceBuffer<unsigned char>(spmv_csr_balanced_workspace_bytes(m.csr()));
           spmv_csr_balanced(m.csr(), x, y, workspace->data(), s);
         });
       }},
      {"4.07", "spmv_block_tiled",
       [] {
         auto tiled = std::make_shared<std::unique_ptr<BlockTiledMatrix>>();
         return p4::SpmvRun([tiled](p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t s) {
           if (!*tiled) *tiled = std::make_unique<BlockTiledMatrix>(m.host_pattern_blocks());
           spmv_block_tiled((*tiled)->view(), x, y, s);
         });
       }},
      {"4.08", "spmv_cusparse_plan_run",
       [] {
         auto holder = std::make_shared<PlanHolder>();
         // The plan holds x and y: made on the first call, for the x and y the bench passes every time.
         return p4::SpmvRun([holder](p4::DeviceMatrix& m, const float* x, float* y, cudaStream_t s) {
           if (holder->plan == nullptr) holder->plan = spmv_cusparse_plan_create(m.csr(), x, y, s);
           spmv_cusparse_plan_run(holder->plan);
         });
       }},
  };
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t rows = std::size_t(4) << 20;
  std::vector<std::string> generators = p4::spmv_generator_names();
  auto take_option = [&](const std::string& name, const std::string& value) -> std::string {
    if (name == "--rows")
      return wb::parse_count(value, &rows, false) && rows <= (std::size_t(1) << 26) ? "" : "--rows needs 1 to 64M";
    generators = split(value);
    for (const std::string& g : generators) {
      bool known = false;
      for (const std::string& known_name : p4::spmv_generator_names()) known = known || g == known_name;
      if (!known) return "unknown generator '" + g + "'";
    }
    return "";
  };
  return wb::run_bench_tool(kTool, argc, argv, take_option, [&](const wb::BenchToolArgs& args) {
    const int repeat = args.repeat;
    const wb::DeviceInfo device = wb::query_device(0);
    const wb::BenchOptions options{2, repeat, true};
    wb::BenchTable::check_writable(args.out);
    std::printf("%s\n", wb::describe(device).c_str());
    std::vector<Row> results;
    auto print = [](const Row& r) {
      std::printf("%-9s %-24s %9.4f ms %8.1f GFLOP/s %7.0f GB/s %6s %s\n", r.generator.c_str(), r.kernel.c_str(),
                  r.time.median_ms, wb::gflop_per_s(r.flop, r.time.median_ms), wb::gb_per_s(r.bytes, r.time.median_ms),
                  r.cusparse_ms > 0 && r.time.median_ms > 0
                      ? (std::to_string(static_cast<int>(100.0 * r.cusparse_ms / r.time.median_ms + 0.5)) + "%").c_str()
                      : "-",
                  r.status.c_str());
      std::fflush(stdout);
    };
    for (const std::string& gen : generators) {
      p4::sparse::Csr a = p4::make_generated_matrix(gen, static_cast<int>(rows), wb::kDefaultSeed);
      std::printf("%s: %s\n", gen.c_str(), p4::describe_matrix(a).c_str());
      Row base;
      base.generator = gen;
      base.rows = a.rows;
      base.cols = a.cols;
      base.nnz = static_cast<long long>(a.nnz());
      base.bytes = p4::spmv_min_bytes(a);
      base.flop = p4::spmv_flop(a);
      p4::SpmvBench bench(std::move(a), wb::kDefaultSeed);

      Row library = base;
      library.id = "-";
      library.kernel = "cusparse_csr";
      library.time = bench.time_cusparse(options);
      library.cusparse_ms = library.time.median_ms;
      library.status = "REF";
      results.push_back(library);
      print(results.back());

      for (const Kernel& k : spmv_kernels()) {
        Row r = base;
        r.id = k.id;
        r.kernel = k.name;
        r.cusparse_ms = library.time.median_ms;
        try {
          const p4::SpmvRun run = k.make();
          wb::MeasureSteps steps;
          steps.verify = [&](const std::string& when) { return bench.verify(k.name + when, run); };
          steps.time = [&] { return bench.time(run, options); };
          const wb::Measured m = wb::measure(steps);
          r.time = m.time;
          r.status = m.pass ? "PASS" : "FAIL";
        } catch (const p4::sparse::SparseError& e) {  // ELL padding that would explode
          r.status = "SKIP";
          r.cusparse_ms = 0;
          r.note = e.what();
          std::printf("%-9s %-24s skipped: %s\n", gen.c_str(), k.name, e.what());
        }
        results.push_back(r);
        if (r.status != "SKIP") print(results.back());
      }

      // 4.01: COO (in CSR order, as DeviceMatrix keeps it) to CSR; reads 12 bytes per entry, writes 8
      // per entry and the row pointers.
      p4::DeviceMatrix& m = bench.matrix();
      const CooView coo = m.coo();
      wb::DeviceBuffer<int> row_ptr(static_cast<std::size_t>(coo.rows) + 1), col(static_cast<std::size_t>(coo.nnz));
      wb::DeviceBuffer<float> val(static_cast<std::size_t>(coo.nnz));
      Row convert = base;
      convert.id = "4.01";
      convert.kernel = "coo_to_csr_gpu";
      convert.bytes = 20.0 * static_cast<double>(coo.nnz) + 4.0 * (static_cast<double>(coo.rows) + 1);
      convert.flop = 0;
      wb::MeasureSteps steps;
      steps.poison = [&] {
        row_ptr.fill(wb::poison_value<int>());
        col.fill(wb::poison_value<int>());
        val.fill(wb::poison_value<float>());
      };
      steps.launch = [&] { coo_to_csr_gpu(coo, row_ptr.data(), col.data(), val.data(), nullptr); };
      steps.verify = [&](const std::string& when) {
        const bool same =
            row_ptr.download() == m.host().row_ptr && col.download() == m.host().col && val.download() == m.host().val;
        if (!same) std::fprintf(stderr, "coo_to_csr_gpu%s: the CSR differs from the host's\n", when.c_str());
        return same;
      };
      steps.options = options;
      const wb::Measured converted = wb::measure(steps);
      convert.time = converted.time;
      convert.status = converted.pass ? "PASS" : "FAIL";
      results.push_back(convert);
      print(results.back());

      // 4.09: Y = A X on the same matrix, against cuSPARSE SpMM.
      for (int k : {64, 128}) {
        p4::SpmmBench spmm(m, k, wb::kDefaultSeed);
        const std::string suffix = "_k" + std::to_string(k);
        Row spmm_base = base;
        spmm_base.bytes = p4::spmm_min_bytes(m.host(), k);
        spmm_base.flop = p4::spmm_flop(m.host(), k);
        Row spmm_library = spmm_base;
        const p4::SpmmBench::Library library = spmm.time_cusparse(options);
        spmm_library.kernel = "cusparse_spmm" + suffix;
        spmm_library.time = library.time;
        spmm_library.cusparse_ms = library.time.median_ms;
        spmm_library.yardstick = "cuSPARSE SpMM";
        spmm_library.status = library.right ? "REF" : "FAIL";
        spmm_library.note = library.note;
        results.push_back(spmm_library);
        print(results.back());
        std::printf("%-9s %-24s (%s)\n", gen.c_str(), "", library.note.c_str());
        const p4::SpmmRun run = [](p4::DeviceMatrix& a, const float* x, float* y, int cols, cudaStream_t s) {
          spmm_csr(a.csr(), x, y, cols, s);
        };
        Row r = spmm_base;
        r.id = "4.09";
        r.kernel = "spmm_csr" + suffix;
        r.cusparse_ms = library.time.median_ms;
        r.yardstick = "cuSPARSE SpMM";
        wb::MeasureSteps spmm_steps;
        spmm_steps.verify = [&](const std::string& when) { return spmm.verify(r.kernel + when, run); };
        spmm_steps.time = [&] { return spmm.time(run, options); };
        const wb::Measured spmm_measured = wb::measure(spmm_steps);
        r.time = spmm_measured.time;
        r.status = spmm_measured.pass ? "PASS" : "FAIL";
        results.push_back(r);
        print(results.back());
      }
    }

    wb::BenchTable table(device.name);
    for (const Row& r : results) table.add(result_row(r, device));
    table.write(args.out);
    return table.all_pass() ? wb::kExitPass : wb::kExitFail;
  });
}
