// SPDX-License-Identifier: MIT
#include "tools/workbook/ncu.h"

#include <cstdio>

#include "tools/workbook/lesson_csv.h"
#include "tools/workbook/runner.h"
#include "tools/workbook/text.h"

namespace wbcli {

const std::vector<CuratedMetric>& curated_metrics() {
  static const std::vector<CuratedMetric> metrics = {
      {"gpu__time_duration.sum", "kernel time (us)", ""},
      {"dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput, % of peak",
       "memory-bound kernels should sit near 90%; far below means uncoalesced or too little in flight"},
      {"sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy, %",
       "low occupancy hides less latency: check registers per thread and shared memory per block"},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared-memory bank conflicts (loads)",
       "non-zero: threads of a warp hit the same bank; pad the tile (+1 column) or change the index"},
      {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared-memory bank conflicts (stores)",
       "non-zero: threads of a warp hit the same bank; pad the tile (+1 column) or change the index"},
      {"smsp__thread_inst_executed_per_inst_executed.ratio", "warp execution efficiency, active threads of 32",
       "below 32 means divergent branches or partial warps do work for fewer threads"},
      {"launch__registers_per_thread", "registers per thread",
       "more registers per thread means fewer warps per SM; watch for spills"},
  };
  return metrics;
}

std::string curated_metric_list() {
  std::vector<std::string> names;
  for (const CuratedMetric& m : curated_metrics()) names.push_back(m.name);
  return join(names, ",");
}

namespace {

// One CSV line of ncu: every field is quoted; values may contain commas ("1,024").
std::vector<std::string> split_quoted_csv(const std::string& line) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.push_back(field);
      field.clear();
    } else {
      field += c;
    }
  }
  fields.push_back(field);
  return fields;
}

}  // namespace

std::string find_ncu() {
  return find_program("ncu", {"/usr/local/cuda/bin", "/opt/nvidia/nsight-compute"});
}

NcuReport parse_ncu_csv(const std::string& text) {
  NcuReport report;
  if (contains(text, "ERR_NVGPUCTRPERM")) {
    report.problem =
        "ncu may not read the GPU's performance counters as this user (ERR_NVGPUCTRPERM). Fix: run as root "
        "(sudo), or allow all users: echo 'options nvidia NVreg_RestrictProfilingToAdminUsers=0' | sudo tee "
        "/etc/modprobe.d/nvidia-profiling.conf, then reboot (see `./workbook doctor`)";
    return report;
  }
  std::vector<std::string> header;
  int kernel_col = -1, id_col = -1, metric_col = -1, value_col = -1;
  std::map<std::string, std::size_t> kernel_index;
  std::map<std::string, std::map<std::string, int>> counts;
  std::map<std::string, std::map<std::string, std::string>> seen_ids;
  for (const std::string& line : split_lines(text)) {
    if (starts_with(line, "\"ID\"")) {
      header = split_quoted_csv(line);
      for (int i = 0; i < static_cast<int>(header.size()); ++i) {
        const std::string& h = header[static_cast<std::size_t>(i)];
        if (h == "Kernel Name") kernel_col = i;
        if (h == "ID") id_col = i;
        if (h == "Metric Name") metric_col = i;
        if (h == "Metric Value") value_col = i;
      }
      continue;
    }
    if (header.empty() || !starts_with(line, "\"")) continue;
    const std::vector<std::string> f = split_quoted_csv(line);
    if (f.size() != header.size() || kernel_col < 0 || metric_col < 0 || value_col < 0) continue;
    const std::string kernel = short_kernel_name(f[static_cast<std::size_t>(kernel_col)]);
    const std::string metric = f[static_cast<std::size_t>(metric_col)];
    const std::optional<double> value = parse_number(f[static_cast<std::size_t>(value_col)]);
    if (!value) continue;
    auto found = kernel_index.find(kernel);
    if (found == kernel_index.end()) {
      found = kernel_index.emplace(kernel, report.kernels.size()).first;
      report.kernels.push_back(KernelMetrics{kernel, 0, {}});
    }
    KernelMetrics& k = report.kernels[found->second];
    const std::string launch_id = id_col >= 0 ? f[static_cast<std::size_t>(id_col)] : "";
    if (seen_ids[kernel].emplace(launch_id, "").second) k.launches += 1;
    // Running mean over the launches of this kernel.
    const int n = ++counts[kernel][metric];
    double& mean = k.average[metric];
    mean += (*value - mean) / n;
  }
  if (report.kernels.empty()) {
    if (contains(text, "No kernels were profiled"))
      report.problem = "ncu profiled no kernel: none of the exercise's kernels ran (is the launch still a TODO?)";
    else if (contains(text, "==ERROR=="))
      report.problem = "ncu failed: " + trim(text.substr(text.find("==ERROR==") + 9, 200));
    else
      report.problem = "ncu printed no metrics";
  }
  return report;
}

std::string format_metric(const std::string& metric, double value) {
  char text[48];
  if (ends_with(metric, ".pct_of_peak_sustained_elapsed") || ends_with(metric, ".pct_of_peak_sustained_active"))
    std::snprintf(text, sizeof text, "%.1f%%", value);
  else if (metric == "gpu__time_duration.sum")
    std::snprintf(text, sizeof text, "%.1f", value / 1000.0);  // ns -> us
  else if (ends_with(metric, ".ratio"))
    std::snprintf(text, sizeof text, "%.1f", value);
  else
    std::snprintf(text, sizeof text, "%.0f", value);  // counts: registers, bank conflicts
  return text;
}

}  // namespace wbcli
