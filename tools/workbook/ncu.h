// SPDX-License-Identifier: MIT
// Nsight Compute (ncu --csv) output: a small curated metric set per kernel, and the messages ncu
// prints when it cannot profile (no permission for the hardware counters, no kernel matched).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace wbcli {

struct CuratedMetric {
  std::string name;    // the ncu metric
  std::string label;   // what the learner reads
  std::string advice;  // one line on what to look at
};
const std::vector<CuratedMetric>& curated_metrics();
// Where ncu is: PATH, then the toolkit's bin and the nsight-compute package's directory; "" if nowhere.
// doctor and profile both ask here, so they agree on whether it is installed.
std::string find_ncu();
std::string curated_metric_list();  // comma-separated, for ncu --metrics

struct KernelMetrics {
  std::string kernel;                     // the short name, e.g. vector_add_kernel
  int launches = 0;                       // profiled launches averaged together
  std::map<std::string, double> average;  // metric -> mean over launches
};

struct NcuReport {
  std::vector<KernelMetrics> kernels;  // in order of first appearance
  std::string problem;                 // empty, or why ncu produced no metrics (one sentence + fix)
};

// Parses `ncu --csv --metrics ...` output (header "ID","Process ID",...,"Metric Name","Metric Unit",
// "Metric Value"); ==PROF== and program lines are ignored.
NcuReport parse_ncu_csv(const std::string& text);

// Formats one metric value for display: "87.3%", "32", "1,204".
std::string format_metric(const std::string& metric, double value);

}  // namespace wbcli
