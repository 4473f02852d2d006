// SPDX-License-Identifier: MIT
// Nsight Compute CSV output (ncu --csv --print-units base --metrics ...) and its failure messages.
#include "tools/workbook/ncu.h"

#include "common/catch.h"

namespace {
const char* kNcuCsv = R"txt(==PROF== Connected to process 41833 (/b/phase0_basics/p0_06_transpose)
==PROF== Profiling "transpose_tiled_kernel" - 0: 0%....50%....100% - 9 passes
==PROF== Profiling "transpose_tiled_kernel" - 1: 0%....50%....100% - 9 passes
0.06  transpose_tiled            8192x8192            0.195 ms ±0.0%    2754 GB/s      82% HBM peak     93% of memcpy    PASS
==PROF== Disconnected from process 41833
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","41833","p0_06_transpose","127.0.0.1","transpose_tiled_kernel(const float *, float *, int, int)","1","13","(32, 8, 1)","(256, 256, 1)","0","9.0","Command line profiler metrics","dram__throughput.avg.pct_of_peak_sustained_elapsed","%","84.10"
"0","41833","p0_06_transpose","127.0.0.1","transpose_tiled_kernel(const float *, float *, int, int)","1","13","(32, 8, 1)","(256, 256, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","nsecond","201,344"
"0","41833","p0_06_transpose","127.0.0.1","transpose_tiled_kernel(const float *, float *, int, int)","1","13","(32, 8, 1)","(256, 256, 1)","0","9.0","Command line profiler metrics","l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum","","0"
"0","41833","p0_06_transpose","127.0.0.1","transpose_tiled_kernel(const float *, float *, int, int)","1","13","(32, 8, 1)","(256, 256, 1)","0","9.0","Command line profiler metrics","launch__registers_per_thread","register/thread","18"
"1","41833","p0_06_transpose","127.0.0.1","transpose_tiled_kernel(const float *, float *, int, int)","1","13","(32, 8, 1)","(256, 256, 1)","0","9.0","Command line profiler metrics","dram__throughput.avg.pct_of_peak_sustained_elapsed","%","85.90"
"1","41833","p0_06_transpose","127.0.0.1","transpose_tiled_kernel(const float *, float *, int, int)","1","13","(32, 8, 1)","(256, 256, 1)","0","9.0","Command line profiler metrics","smsp__thread_inst_executed_per_inst_executed.ratio","","32"
"2","41833","p0_06_transpose","127.0.0.1","void <unnamed>::transpose_naive_kernel<float>(const float *, float *, int, int)","1","13","(32, 8, 1)","(256, 256, 1)","0","9.0","Command line profiler metrics","dram__throughput.avg.pct_of_peak_sustained_elapsed","%","30.5"
)txt";
}  // namespace

TEST_CASE("ncu CSV rows are averaged per kernel", "[host][workbook]") {
  const wbcli::NcuReport report = wbcli::parse_ncu_csv(kNcuCsv);
  REQUIRE(report.problem.empty());
  REQUIRE(report.kernels.size() == 2);
  const wbcli::KernelMetrics& tiled = report.kernels[0];
  CHECK(tiled.kernel == "transpose_tiled_kernel");
  CHECK(tiled.launches == 2);
  CHECK(tiled.average.at("dram__throughput.avg.pct_of_peak_sustained_elapsed") == 85.0);
  CHECK(tiled.average.at("gpu__time_duration.sum") == 201344.0);
  CHECK(tiled.average.at("launch__registers_per_thread") == 18.0);
  CHECK(report.kernels[1].kernel == "transpose_naive_kernel<float>");
  CHECK(wbcli::format_metric("dram__throughput.avg.pct_of_peak_sustained_elapsed", 85.0) == "85.0%");
  CHECK(wbcli::format_metric("gpu__time_duration.sum", 201344.0) == "201.3");
  CHECK(wbcli::format_metric("launch__registers_per_thread", 18.0) == "18");
}

TEST_CASE("ncu failures become one sentence with the fix", "[host][workbook]") {
  const wbcli::NcuReport denied = wbcli::parse_ncu_csv(
      "==PROF== Connected to process 1 (/b/lesson)\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on "
      "the target device 0. For instructions on enabling permissions and to get more information see "
      "https://developer.nvidia.com/ERR_NVGPUCTRPERM\n");
  CHECK(denied.kernels.empty());
  CHECK(denied.problem.find("NVreg_RestrictProfilingToAdminUsers=0") != std::string::npos);
  const wbcli::NcuReport none = wbcli::parse_ncu_csv("==PROF== Disconnected\n==WARNING== No kernels were profiled.\n");
  CHECK(none.problem.find("profiled no kernel") != std::string::npos);
  CHECK(wbcli::curated_metric_list().find("launch__registers_per_thread") != std::string::npos);
  CHECK(wbcli::curated_metrics().size() >= 6);
}
