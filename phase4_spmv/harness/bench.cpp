// SPDX-License-Identifier: MIT
// p4_bench: every phase 4 reference lesson on every generator at millions of rows (common/lesson_bench.h:
// the lessons the manifest lists for the phase, each verifying, timing with a cold L2 between repeats and
// reporting against its cuSPARSE yardstick timed in the same run), after the library's own rows on the
// same matrix. Writes the result CSV (common/result_csv.h; the rate column holds the effective GB/s over
// the CSR minimum bytes, the same yardstick for every format, the flop column the 2 nnz for GFLOP/s).
//   p4_bench [--rows 4M] [--gen poisson,uniform,powerlaw,banded,block] [--repeat N] [--out p4_bench.csv]
// The SpMV lessons (4.02-4.08) report % of cuSPARSE CSR; a lesson that cannot run on a matrix (ELL whose
// padding explodes) gets a SKIP row saying why. 4.01 coo_to_csr is a conversion, not an SpMV: its row
// times COO (in a random order) -> CSR, its GB/s counts the COO read once and the CSR written once, against
// a copy of the same bytes. 4.09 spmm reports Y = A X at k = 64 and 128 on the same matrix (shape
// "<matrix> k=64"): its yardstick is cuSPARSE SpMM (the faster of ALG_DEFAULT and CSR_ALG2, in its own
// library row, cusparse_spmm_k64, _k128), its GB/s count SpMM's least traffic (A once, X once, Y once)
// and its GFLOP/s 2 nnz k.
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "common/args.h"
#include "common/bench_tool.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/lesson_bench.h"
#include "common/report.h"
#include "common/timer.h"
#include "phase4_spmv/harness/lesson_support.h"
#include "phase4_spmv/harness/spmm_lesson.h"

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

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

void print_row(const wb::ResultRow& r) {
  if (r.status == "SKIP") {
    std::printf("%-5s %-24s %-18s skipped: %s\n", r.id.c_str(), r.launcher.c_str(), r.shape.c_str(), r.note.c_str());
    return;
  }
  const std::string share = r.ref_label.empty() || r.median_ms <= 0
                                ? "-"
                                : std::to_string(static_cast<int>(r.ref_value + 0.5)) + "% of " + r.ref_label;
  std::printf("%-5s %-24s %-18s %9.4f ms %8.1f GFLOP/s %7.0f GB/s  %-24s %s\n", r.id.c_str(), r.launcher.c_str(),
              r.shape.c_str(), r.median_ms, wb::gflop_per_s(r.flop, r.median_ms), wb::gb_per_s(r.bytes, r.median_ms),
              share.c_str(), r.status.c_str());
}

// A library row on the matrix `label`: GB/s over `bytes`, 100% of itself as the yardstick `yardstick`.
wb::ResultRow library_row(const std::string& launcher, const std::string& label, const wb::TimingStats& time,
                          double bytes, double flop, const char* yardstick, const wb::DeviceInfo& device) {
  wb::ResultRow row = wb::bench_row("library", launcher, label, "fp32", time);
  row.bytes = bytes;
  row.flop = flop;
  wb::set_rate(row, "GB/s", wb::dram_peak_gbs(device), wb::memory_peak_label(device));
  wb::set_reference(row, yardstick, 100.0);
  return row;
}

// The library's rows on one generated matrix, which it makes: cuSPARSE CSR SpMV, the SpMV lessons'
// yardstick, and cuSPARSE SpMM at k = 64 and 128, 4.09's. Returns the matrix's label as the lessons write
// it ("poisson:4M": the generator and the rows it made).
std::string add_library_rows(const std::string& gen, int rows, const wb::BenchOptions& options,
                             const wb::DeviceInfo& device, wb::BenchTable& table) {
  p4::sparse::Csr a = p4::make_generated_matrix(gen, rows, wb::kDefaultSeed);
  const std::string label = gen + ":" + wb::format_count(static_cast<std::size_t>(a.rows));
  std::printf("%s: %s\n", gen.c_str(), p4::describe_matrix(a).c_str());
  const double bytes = p4::spmv_min_bytes(a), flop = p4::spmv_flop(a);
  p4::SpmvBench spmv(std::move(a), wb::kDefaultSeed);
  print_row(
      table.add(library_row("cusparse_csr", label, spmv.time_cusparse(options), bytes, flop, "cuSPARSE CSR", device)));
  p4::DeviceMatrix& m = spmv.matrix();
  for (int k : {64, 128}) {
    p4::SpmmBench spmm(m, k, wb::kDefaultSeed);
    const p4::SpmmBench::Library library = spmm.time_cusparse(options);
    wb::ResultRow row =
        library_row("cusparse_spmm_k" + std::to_string(k), label, library.time, p4::spmm_min_bytes(m.host(), k),
                    p4::spmm_flop(m.host(), k), "cuSPARSE SpMM", device);
    row.status = library.right ? "PASS" : "FAIL";
    row.note = library.note;
    print_row(table.add(row));
    std::printf("      (%s)\n", library.note.c_str());
  }
  std::fflush(stdout);
  return label;
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
    wb::PhaseBench run = wb::start_phase_bench(4, args);
    run.bench.print = print_row;
    for (const std::string& gen : generators) {
      const std::string label =
          add_library_rows(gen, static_cast<int>(rows), wb::BenchOptions{run.bench.warmup, run.bench.repeat, true},
                           run.device, run.table);
      // The lessons read the generator from the phase's matrix options (--gen), and the rows from --size.
      run.run(wb::LessonShape{std::to_string(rows), label, [gen] {
                                p4::spmv_matrix_options() = p4::SpmvMatrixOptions{"", gen, ""};
                              }});
    }
    return run.finish(args.out);
  });
}
