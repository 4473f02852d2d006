// SPDX-License-Identifier: MIT
// p5_bench: every phase 5 reference kernel on the same data, against the cuBLAS path (5.02's
// computation) timed in the same run. Writes the result CSV (common/result_csv.h).
//   p5_bench [--seqs 1024,4096,16384] [--dims 64,128] [--rows 64K] [--cross 1024x4096,4096x1024]
//            [--cache 32768] [--repeat N] [--out p5_bench.csv]
// Attention (5.01-5.05, 5.08): seq_q = seq_k = SEQ for each --seqs and --dims, with heads = --rows / SEQ (at
// least enough 64-row query tiles for two per SM); then cross attention, seq_q != seq_k for each
// --cross pair, not causal (5.04 without its mask there), heads = --rows / seq_q; TFLOP/s counted as 4 seq_q seq_k d
// per head (halved for causal), % of the FP32 peak (5.05: of the BF16 tensor peak), "x of 5.02" against the cuBLAS path
// with the same mask. 5.05 and 5.08 run on BF16 copies of the same random floats (rounded to BF16);
// 5.05 says SKIP where the GPU is older than sm_80, 5.08 where it is not Hopper (sm_90a code).
// Decoding (5.06): 32 heads, one
// query, seq_k = each --cache, causal, L2 flushed between repeats; GB/s counted as K and V read once plus
// Q, O and L, against a cudaMemcpy of the same bytes, and x of the cuBLAS path on the same shape.
// Backward (5.07): the attention shapes, causal and not, BF16 (O and L from the forward), TFLOP/s counted
// as 2.5x the forward's, against the unfused cuBLAS backward (FP32) timed beside it; sampled rows of
// dQ, dK and dV checked against the CPU backward in double with the graded bound.
// 5.01 and 5.02 need heads x SEQ^2 floats of scores: where that does not fit, their rows say SKIP with
// the reason, and the other kernels' rows have no "x of 5.02". Each output is checked on sampled rows
// (0, the last and two random ones, in the first and the last head) against the CPU reference in double
// with the graded bound, before and after timing.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/arch_requirement.h"
#include "common/args.h"
#include "common/bench_tool.h"
#include "common/bf16.h"
#include "common/buffer.h"
#include "common/device.h"
#include "common/gpu.h"
#include "common/measure.h"
#include "common/report.h"
#include "common/timer.h"
#include "common/verify.h"
#include "phase5_attention/attention.cuh"
#include "phase5_attention/harness/backward_lesson.h"
#include "phase5_attention/harness/reference.h"
#include "phase5_attention/harness/reference_gpu.h"

namespace {

const wb::BenchToolSpec kTool = {
    "p5_bench",
    "usage: p5_bench [--seqs 1024,4096,16384] [--dims 64,128] [--rows 64K] [--cross 1024x4096,4096x1024]\n"
    "                [--cache 32768] [--repeat N] [--out p5_bench.csv]\n"
    "Times every phase 5 reference kernel against the cuBLAS path (5.02) on the same data: attention at\n"
    "seq_q = seq_k = each --seqs with heads = --rows / seq (TFLOP/s; 5.05 in BF16, sm_80 or newer;\n"
    "5.08 in BF16, Hopper only), cross attention (not causal) at each --cross SEQQxSEQK pair (none: no such rows),\n"
    "decoding of one query against a KV cache of each --cache keys, 32 heads (GB/s against memcpy),\n"
    "the backward (5.07) at the attention shapes against the cuBLAS backward.\n"
    "Checks sampled rows, writes CSV.\n",
    {"--seqs", "--dims", "--rows", "--cache", "--cross"},
    10,
    "p5_bench.csv"};

struct Row {
  std::string id, kernel;
  AttentionShape shape;
  std::string status, note;  // PASS, FAIL or SKIP (note: why)
  wb::TimingStats time;
  double flop = 0, bytes = 0;
  double cublas_ms = 0;            // the cuBLAS path on the same shape in this run (0: none)
  double memcpy_gbs = 0;           // decoding: the copy of the same bytes (0: not a memory-bound row)
  bool bf16 = false;               // 5.05: BF16 data, rated against the BF16 tensor peak
  std::string yardstick = "5.02";  // what cublas_ms times: 5.02's path, or (5.07) the cuBLAS backward
};

std::string shape_text(const AttentionShape& s) {
  std::string text = std::to_string(s.heads) + "x" + std::to_string(s.seq_q);
  if (s.seq_k != s.seq_q) text += "x" + std::to_string(s.seq_k);
  return text + "x" + std::to_string(s.d) + (s.causal ? " causal" : "");
}

// The row as a row of the result CSV: TFLOP/s rows in GFLOP/s against the FP32 or BF16 peak, decoding in
// GB/s against the HBM peak and memcpy; "x of 5.02" (or of the cuBLAS backward) as a speedup.
wb::ResultRow result_row(const Row& r, const wb::DeviceInfo& device) {
  const bool timed = r.status != "SKIP";
  const bool memory_bound = r.memcpy_gbs > 0;
  wb::ResultRow row = wb::bench_row(r.kernel == "attention_backward_cublas" ? "library" : "solution", r.kernel,
                                    shape_text(r.shape), r.bf16 ? "bf16" : "fp32", timed ? r.time : wb::TimingStats{});
  row.id = r.id;
  row.bytes = r.bytes;
  row.flop = r.flop;
  if (memory_bound) {
    wb::set_rate(row, "GB/s", wb::dram_peak_gbs(device), wb::memory_peak_label(device));
    wb::set_reference(row, "memcpy", 100.0 * row.rate / r.memcpy_gbs);
    row.note = r.note;
    if (timed && r.cublas_ms > 0) {
      char speedup[64];
      std::snprintf(speedup, sizeof speedup, "; %.2fx of 5.02", r.cublas_ms / r.time.median_ms);
      row.note += speedup;
    }
  } else {
    wb::set_rate(row, "GFLOP/s", r.bf16 ? wb::bf16_peak_gflops(device) : wb::fp32_peak_gflops(device),
                 r.bf16 ? "BF16 peak" : "FP32 peak");
    if (timed && r.cublas_ms > 0) wb::set_reference(row, r.yardstick, r.cublas_ms / r.time.median_ms, "speedup");
    row.note = r.note;
  }
  row.status = r.status;
  return row;
}

// One shape's inputs on the device and the reference rows the checks compare with; for 5.05 the same
// floats rounded to BF16 (with their own reference rows), made on first use.
struct Problem {
  AttentionShape shape;
  p5::AttentionInputs host;
  wb::DeviceBuffer<float> q, k, v, o, l;
  std::vector<std::pair<int, int>> rows;  // (head, row)
  std::vector<p5::RowReference> refs;
  struct Bf16Data {
    p5::AttentionInputs host;  // the BF16 values widened
    wb::DeviceBuffer<__nv_bfloat16> q, k, v, o;
    std::vector<p5::RowReference> refs;
    explicit Bf16Data(const p5::AttentionInputs& floats)
        : host{wb::rounded_to_bf16(floats.q), wb::rounded_to_bf16(floats.k), wb::rounded_to_bf16(floats.v)},
          q(wb::to_bf16(host.q)),
          k(wb::to_bf16(host.k)),
          v(wb::to_bf16(host.v)),
          o(host.q.size()) {}
  };
  std::unique_ptr<Bf16Data> bf16;
  Problem(const AttentionShape& s, std::uint64_t seed)
      : shape(s),
        host(p5::make_attention_inputs(s, p5::AttentionData::Uniform, seed)),
        q(host.q),
        k(host.k),
        v(host.v),
        o(s.q_elements()),
        l(s.l_elements()) {
    for (int head : {0, s.heads - 1}) {
      for (int row : p5::sample_rows(s.seq_q, 2, seed + static_cast<std::uint64_t>(head))) {
        if (head == 0 || s.heads > 1) rows.emplace_back(head, row);
      }
    }
    set_causal(s.causal);
  }

  // The mask changes the reference rows.
  void set_causal(bool causal) {
    shape.causal = causal;
    refs.clear();
    for (const auto& [head, row] : rows) refs.push_back(p5::attention_reference_row(shape, host, head, row));
    if (bf16) make_bf16_refs();
  }
  Bf16Data& bf16_data() {
    if (!bf16) {
      bf16 = std::make_unique<Bf16Data>(host);
      make_bf16_refs();
    }
    return *bf16;
  }
  void make_bf16_refs() {
    bf16->refs.clear();
    for (const auto& [head, row] : rows)
      bf16->refs.push_back(p5::attention_reference_row(shape, bf16->host, head, row));
  }

  // Poisons O and L, runs once, compares the sampled rows with the derived bound.
  bool check(const std::string& what, const p5::AttentionKernel& kernel, float* workspace) {
    o.fill(wb::poison_value<float>());
    l.fill(wb::poison_value<float>());
    kernel(q.data(), k.data(), v.data(), o.data(), l.data(), shape, workspace, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    return compare(what, refs, o.download(), l.download(), p5::AttentionPrecision::FP32);
  }
  // The same for 5.05's BF16 launcher, on the BF16 data, under the BF16 bound.
  bool check(const std::string& what, Bf16AttentionLauncher launch) {
    Bf16Data& b = bf16_data();
    b.o.fill(wb::poison_value<__nv_bfloat16>());
    l.fill(wb::poison_value<float>());
    launch(b.q.data(), b.k.data(), b.v.data(), b.o.data(), l.data(), shape, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    return compare(what, b.refs, wb::widen_bf16_output(b.o.download()), l.download(), p5::AttentionPrecision::BF16);
  }
  bool compare(const std::string& what, const std::vector<p5::RowReference>& want, const std::vector<float>& got_o,
               const std::vector<float>& got_l, p5::AttentionPrecision precision) const {
    std::size_t bad = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const p5::RowTolerance t = p5::attention_row_tolerance(want[i], shape.d, false, 1.0, precision);
      const std::size_t r = static_cast<std::size_t>(rows[i].first) * shape.seq_q + rows[i].second;
      bool ok = wb::within(want[i].lse, got_l[r], wb::Tolerance{t.l_abs, wb::kFloatEpsilon});
      for (int c = 0; c < shape.d && ok; ++c)
        ok = wb::within(want[i].o[c], got_o[r * shape.d + c],
                        wb::Tolerance{t.o_abs + t.o_rel * want[i].magnitude[c], wb::kFloatEpsilon});
      bad += !ok;
    }
    if (bad > 0)
      std::fprintf(stderr, "%s on %s: %zu of %zu sampled rows wrong\n", what.c_str(), shape_text(shape).c_str(), bad,
                   rows.size());
    return bad == 0;
  }
};

// Floats of scores (or partials) that fit in 90% of the free memory, leaving room for the timer's L2 flush.
bool fits(std::size_t floats) {
  std::size_t free_bytes = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return 4.0 * static_cast<double>(floats) < 0.9 * static_cast<double>(free_bytes) - 256.0 * wb::MiB;
}

// The bench's options beyond --repeat and --out.
struct Options {
  std::vector<std::size_t> seqs = {1024, 4096, 16384}, dims = {64, 128}, caches = {32768};
  std::size_t total_rows = 64 * 1024;
  std::vector<std::pair<std::size_t, std::size_t>> cross = {{1024, 4096}, {4096, 1024}};
};

// --cross: SEQQxSEQK pairs, comma-separated; "none" for no cross rows. "" when accepted, else why not.
std::string parse_cross(const std::string& value, std::vector<std::pair<std::size_t, std::size_t>>* cross) {
  cross->clear();
  if (value == "none") return "";
  const std::string wanted = "--cross needs SEQQxSEQK pairs like 1024x4096,4096x1024 (or none)";
  std::size_t begin = 0;
  while (begin <= value.size()) {
    const std::size_t comma = std::min(value.find(',', begin), value.size());
    std::vector<std::size_t> pair;
    if (!wb::parse_dim_list(value.substr(begin, comma - begin), &pair) || pair.size() != 2 || pair[0] < 1 ||
        pair[1] < 1 || pair[0] > (std::size_t(1) << 20) || pair[1] > (std::size_t(1) << 20))
      return wanted + " (each from 1 to 1M)";
    cross->emplace_back(pair[0], pair[1]);
    begin = comma + 1;
  }
  return "";
}

std::string take_option(Options& o, const std::string& name, const std::string& value) {
  if (name == "--cross") return parse_cross(value, &o.cross);
  if (name == "--seqs")
    return wb::parse_count_list(value, &o.seqs, false) ? "" : "--seqs needs sequence lengths like 1024,4096";
  if (name == "--cache")
    return wb::parse_count_list(value, &o.caches, false) ? "" : "--cache needs KV cache lengths like 32768";
  if (name == "--rows")
    return wb::parse_count(value, &o.total_rows, false) && o.total_rows <= (std::size_t(1) << 24)
               ? ""
               : "--rows needs a count of query rows from 1 to 16M, like 64K";
  if (!wb::parse_count_list(value, &o.dims, false)) return "--dims needs 64, 128 or 64,128";
  for (std::size_t d : o.dims)
    if (d != 64 && d != 128) return "--dims takes the head dimensions 64 and 128 only";
  return "";
}

// One run of the bench: the device, what it can run, and the rows so far. Each public step adds the
// rows of one kind of shape and prints them as it goes; finish() writes the CSV.
class Phase5Bench {
 public:
  Phase5Bench(const Options& options, const wb::BenchToolArgs& args)
      : options_(options),
        device_(wb::query_device(0)),
        cc_(10 * device_.cc_major + device_.cc_minor),
        // 5.05 runs BF16 mma.sync: sm_80 or newer (its solution object holds no code for older GPUs);
        // 5.08 wgmma and TMA: Hopper only (sm_90a code).
        tensor_cores_(wb::arch_requirement_met("80", cc_)),
        hopper_(wb::arch_requirement_met("90a", cc_)),
        repeat_(args.repeat),
        compute_{2, args.repeat, false},
        memory_{2, args.repeat, true} {
    wb::BenchTable::check_writable(args.out);
    std::printf("%s\n", wb::describe(device_).c_str());
    for (std::size_t seq : options.seqs)
      if (seq > (std::size_t(1) << 20)) throw wb::UsageError("--seqs: at most 1M");
    for (std::size_t seq : options.caches)
      if (seq > (std::size_t(1) << 24)) throw wb::UsageError("--cache: at most 16M keys");
  }

  void attention(int seq_q, int seq_k, int d);
  void decoding(int seq_k, int d);
  void backward(int seq, int d, bool causal);

  int finish(const std::string& out) const {
    wb::BenchTable table(device_.name);
    for (const Row& r : results_) table.add(result_row(r, device_));
    table.write(out);
    return table.all_pass() ? wb::kExitPass : wb::kExitFail;
  }

 private:
  // heads = --rows / seq_q, at least two 64-row query tiles per SM.
  int heads_for(long long seq_q) const {
    const long long tiles = wb::ceil_div(seq_q, 64LL);
    return static_cast<int>(std::max<long long>(
        {1, static_cast<long long>(options_.total_rows) / seq_q, wb::ceil_div(2LL * device_.sm_count, tiles)}));
  }
  void print(const Row& r) const;
  void measure(Problem& p, const char* id, const char* name, const p5::AttentionKernel& kernel, float* workspace,
               bool memory_bound, double* cublas_ms);
  void measure_bf16(Problem& p, const char* id, const char* name, Bf16AttentionLauncher launch, double cublas_ms);
  void skip(const AttentionShape& shape, const char* id, const char* name, const std::string& why) {
    Row r;
    r.id = id;
    r.kernel = name;
    r.shape = shape;
    r.status = "SKIP";
    r.note = why;
    results_.push_back(r);
    print(r);
  }
  // The flash kernels of one mask on one shape, after the unfused paths have set cublas_ms.
  void flash_rows(Problem& p, bool causal, bool is_cross, double cublas_ms);

  Options options_;
  wb::DeviceInfo device_;
  int cc_;
  bool tensor_cores_, hopper_;
  int repeat_;
  wb::BenchOptions compute_, memory_;
  std::vector<Row> results_;
};

void Phase5Bench::print(const Row& r) const {
  const std::string shape = shape_text(r.shape);
  if (r.status == "SKIP") {
    std::printf("%-5s %-28s %-24s skipped: %s\n", r.id.c_str(), r.kernel.c_str(), shape.c_str(), r.note.c_str());
  } else if (r.memcpy_gbs > 0) {
    const double gbps = wb::gb_per_s(r.bytes, r.time.median_ms);
    std::printf("%-5s %-28s %-24s %9.3f ms %7.0f GB/s %4.0f%% of memcpy", r.id.c_str(), r.kernel.c_str(), shape.c_str(),
                r.time.median_ms, gbps, 100.0 * gbps / r.memcpy_gbs);
    if (r.cublas_ms > 0) std::printf("  %5.2fx of 5.02", r.cublas_ms / r.time.median_ms);
    std::printf("  %s\n", r.status.c_str());
  } else {
    const double gflops = wb::gflop_per_s(r.flop, r.time.median_ms);
    const double peak = r.bf16 ? wb::bf16_peak_gflops(device_) : wb::fp32_peak_gflops(device_);
    std::printf("%-5s %-28s %-24s %9.3f ms %7.2f TFLOP/s ", r.id.c_str(), r.kernel.c_str(), shape.c_str(),
                r.time.median_ms, gflops / 1000);
    // A peak the tables lack (a new architecture) is said to be unknown, not printed as 0%.
    if (peak > 0)
      std::printf("%4.0f%% %s", 100.0 * gflops / peak, r.bf16 ? "BF16 peak" : "FP32 peak");
    else
      std::printf("%s unknown", r.bf16 ? "BF16 peak" : "FP32 peak");
    if (r.cublas_ms > 0) std::printf("  %5.2fx of %s", r.cublas_ms / r.time.median_ms, r.yardstick.c_str());
    std::printf("  %s\n", r.status.c_str());
  }
  std::fflush(stdout);
}

// Checks, times (checks again) and records one kernel; the 5.02 row's time becomes the yardstick of
// the rows after it.
void Phase5Bench::measure(Problem& p, const char* id, const char* name, const p5::AttentionKernel& kernel,
                          float* workspace, bool memory_bound, double* cublas_ms) {
  Row r;
  r.id = id;
  r.kernel = name;
  r.shape = p.shape;
  r.flop = p.shape.flop();
  r.bytes = 4.0 * (2.0 * static_cast<double>(p.shape.k_elements()) + 2.0 * static_cast<double>(p.shape.q_elements()) +
                   static_cast<double>(p.shape.l_elements()));
  wb::MeasureSteps steps;
  steps.verify = [&](const std::string& when) { return p.check(name + when, kernel, workspace); };
  steps.time = [&] {
    return wb::bench(nullptr, memory_bound ? memory_ : compute_, [&] {
      kernel(p.q.data(), p.k.data(), p.v.data(), p.o.data(), p.l.data(), p.shape, workspace, nullptr);
    });
  };
  const wb::Measured m = wb::measure(steps);
  r.time = m.time;
  r.status = m.pass ? "PASS" : "FAIL";
  if (std::string(id) == "5.02") *cublas_ms = r.time.median_ms;
  r.cublas_ms = *cublas_ms;
  if (memory_bound) r.memcpy_gbs = 1;  // filled in by the caller, once per byte count
  results_.push_back(r);
}

// 5.05 and 5.08: the same on the BF16 copy of the problem's data.
void Phase5Bench::measure_bf16(Problem& p, const char* id, const char* name, Bf16AttentionLauncher launch,
                               double cublas_ms) {
  Row r;
  r.id = id;
  r.kernel = name;
  r.shape = p.shape;
  r.flop = p.shape.flop();
  r.bf16 = true;
  r.bytes = 2.0 * (2.0 * static_cast<double>(p.shape.k_elements()) + 2.0 * static_cast<double>(p.shape.q_elements())) +
            4.0 * static_cast<double>(p.shape.l_elements());
  r.note = "BF16 Q K V and O";
  Problem::Bf16Data& b = p.bf16_data();
  wb::MeasureSteps steps;
  steps.verify = [&](const std::string& when) { return p.check(name + when, launch); };
  steps.time = [&] {
    return wb::bench(nullptr, compute_,
                     [&] { launch(b.q.data(), b.k.data(), b.v.data(), b.o.data(), p.l.data(), p.shape, nullptr); });
  };
  const wb::Measured m = wb::measure(steps);
  r.time = m.time;
  r.status = m.pass ? "PASS" : "FAIL";
  r.cublas_ms = cublas_ms;
  results_.push_back(r);
}

void Phase5Bench::flash_rows(Problem& p, bool causal, bool is_cross, double cublas_ms) {
  if (!causal) {
    measure(p, "5.03", "attention_flash_fp32", {attention_flash_fp32, nullptr}, nullptr, false, &cublas_ms);
    print(results_.back());
  }
  // 5.04 with its mask on square shapes; on cross shapes without (it takes those too).
  if (causal || is_cross) {
    measure(p, "5.04", "attention_flash_causal", {attention_flash_causal, nullptr}, nullptr, false, &cublas_ms);
    print(results_.back());
  }
  if (tensor_cores_) {
    measure_bf16(p, "5.05", "attention_flash_tensor_cores", attention_flash_tensor_cores, cublas_ms);
    print(results_.back());
  } else {
    skip(p.shape, "5.05", "attention_flash_tensor_cores",
         wb::arch_requirement_unmet("5.05", "flash_tensor_cores", "80", cc_));
  }
  if (hopper_) {
    measure_bf16(p, "5.08", "attention_flash_hopper", attention_flash_hopper, cublas_ms);
    print(results_.back());
  } else {
    skip(p.shape, "5.08", "attention_flash_hopper", wb::arch_requirement_unmet("5.08", "flash_hopper", "90a", cc_));
  }
}

// Attention on one shape: the unfused paths, then the flash kernels, without and (square shapes) with
// the causal mask.
void Phase5Bench::attention(int seq_q, int seq_k, int d) {
  AttentionShape shape;
  shape.seq_q = seq_q;
  shape.seq_k = seq_k;
  shape.d = d;
  shape.heads = heads_for(seq_q);
  Problem p(shape, wb::kDefaultSeed);
  const std::size_t scores = attention_scores_elements(shape);
  std::unique_ptr<wb::DeviceBuffer<float>> workspace;
  std::string no_scores;
  if (fits(scores)) {
    try {
      workspace = std::make_unique<wb::DeviceBuffer<float>>(scores);
    } catch (const wb::CudaError& e) {
      no_scores = e.what();
    }
  } else {
    char why[96];
    std::snprintf(why, sizeof why, "the scores need %.1f GiB: more than the GPU has free",
                  4.0 * static_cast<double>(scores) / static_cast<double>(wb::GiB));
    no_scores = why;
  }
  const bool is_cross = seq_q != seq_k;  // cross attention: not causal (5.01-5.05 take square causal shapes)
  for (bool causal : {false, true}) {
    if (causal && is_cross) break;
    p.set_causal(causal);  // the references of the sampled rows change with the mask
    double cublas_ms = 0;
    if (workspace) {
      measure(p, "5.02", "attention_cublas", {nullptr, attention_cublas}, workspace->data(), false, &cublas_ms);
      print(results_.back());
      if (!causal) {
        measure(p, "5.01", "attention_naive", {nullptr, attention_naive}, workspace->data(), false, &cublas_ms);
        print(results_.back());
      }
    } else {
      skip(p.shape, "5.02", "attention_cublas", no_scores);
      if (!causal) skip(p.shape, "5.01", "attention_naive", no_scores);
    }
    flash_rows(p, causal, is_cross, cublas_ms);
  }
}

// Decoding: one new token per head (32 heads) against a long KV cache; memory-bound.
void Phase5Bench::decoding(int seq_k, int d) {
  const AttentionShape shape{32, 1, seq_k, d, true};
  Problem p(shape, wb::kDefaultSeed + 1);
  const int splits = attention_decoding_splits(shape, device_.sm_count);
  wb::DeviceBuffer<float> workspace(
      std::max(attention_scores_elements(shape), attention_decoding_workspace_elements(shape, splits)));
  double cublas_ms = 0;
  // 5.02's launcher takes square causal shapes only; the same cuBLAS path from reference_gpu.cu also
  // takes decoding's.
  measure(p, "5.02", "attention_reference", {nullptr, p5::attention_reference}, workspace.data(), true, &cublas_ms);
  results_.back().note = "the cuBLAS path of 5.02";
  measure(p, "5.06", "attention_flash_decoding", {attention_flash_decoding, splits}, workspace.data(), true,
          &cublas_ms);
  results_.back().note = std::to_string(splits) + " splits";
  measure(p, "5.06", "attention_flash_decoding_1", {attention_flash_decoding, 1}, workspace.data(), true, &cublas_ms);
  results_.back().note = "1 split";
  for (std::size_t i = results_.size() - 3; i < results_.size(); ++i) {
    results_[i].memcpy_gbs = wb::measure_memcpy_d2d_gbs(static_cast<std::size_t>(results_[i].bytes / 2), repeat_);
    print(results_[i]);
  }
}

// The backward (5.07) on one attention shape: BF16 inputs, O and L from the forward, against the unfused
// cuBLAS backward (FP32) on the same inputs; TFLOP/s counted as 2.5x the forward's FLOP (the five products).
void Phase5Bench::backward(int seq, int d, bool causal) {
  AttentionShape shape;
  shape.seq_q = shape.seq_k = seq;
  shape.d = d;
  shape.causal = causal;
  shape.heads = heads_for(seq);
  if (!tensor_cores_) {
    skip(shape, "5.07", "attention_flash_backward", wb::arch_requirement_unmet("5.07", "flash_backward", "80", cc_));
    return;
  }
  const bool cublas = fits(static_cast<std::size_t>(p5::BackwardProblem::device_bytes(shape, true) / 4));
  p5::BackwardProblem p(shape, wb::kDefaultSeed + 2, cublas);
  auto record = [&](const char* name, bool bf16, bool pass, const wb::TimingStats& time, double cublas_ms) {
    Row r;
    r.id = "5.07";
    r.kernel = name;
    r.shape = shape;
    r.flop = attention_backward_flop(shape);
    r.bf16 = bf16;
    r.time = time;
    r.status = pass ? "PASS" : "FAIL";
    r.cublas_ms = cublas_ms;
    r.yardstick = "cuBLAS bwd";
    r.note = bf16 ? "backward; BF16; against the cuBLAS backward" : "the unfused cuBLAS backward (FP32)";
    results_.push_back(r);
    print(r);
  };
  double cublas_ms = 0;
  if (cublas) {
    wb::MeasureSteps steps;
    steps.verify = [&](const std::string& when) { return p.verify_cublas("attention_backward_cublas" + when); };
    steps.time = [&] { return p.time_cublas(compute_); };
    const wb::Measured m = wb::measure(steps);
    cublas_ms = m.time.median_ms;
    record("attention_backward_cublas", false, m.pass, m.time, 0);
  } else {
    skip(shape, "5.07", "attention_backward_cublas", "P and dS do not fit in the GPU's free memory");
  }
  wb::MeasureSteps steps;
  steps.verify = [&](const std::string& when) {
    return p.verify("attention_flash_backward" + when, attention_flash_backward);
  };
  steps.time = [&] { return p.time(attention_flash_backward, compute_); };
  const wb::Measured m = wb::measure(steps);
  record("attention_flash_backward", true, m.pass, m.time, cublas_ms);
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  auto take = [&options](const std::string& name, const std::string& value) {
    return take_option(options, name, value);
  };
  return wb::run_bench_tool(kTool, argc, argv, take, [&options](const wb::BenchToolArgs& args) {
    Phase5Bench bench(options, args);
    for (std::size_t seq : options.seqs)
      for (std::size_t d : options.dims)
        bench.attention(static_cast<int>(seq), static_cast<int>(seq), static_cast<int>(d));
    // Cross attention (seq_q != seq_k): fewer queries than keys (a decoder reading a longer encoder's
    // output) and more.
    for (const auto& [seq_q, seq_k] : options.cross)
      for (std::size_t d : options.dims)
        bench.attention(static_cast<int>(seq_q), static_cast<int>(seq_k), static_cast<int>(d));
    for (std::size_t seq_k : options.caches)
      for (std::size_t d : options.dims) bench.decoding(static_cast<int>(seq_k), static_cast<int>(d));
    for (std::size_t seq : options.seqs)
      for (std::size_t d : options.dims)
        for (bool causal : {false, true}) bench.backward(static_cast<int>(seq), static_cast<int>(d), causal);
    return bench.finish(args.out);
  });
}
