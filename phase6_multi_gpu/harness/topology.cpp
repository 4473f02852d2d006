// SPDX-License-Identifier: MIT
#include "phase6_multi_gpu/harness/topology.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <sstream>

namespace p6 {
namespace {

std::string command_output(const char* command) {
  std::string text;
  std::FILE* pipe = ::popen(command, "r");
  if (pipe == nullptr) return text;
  char buffer[4096];
  std::size_t got = 0;
  while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, got);
  ::pclose(pipe);
  return text;
}

}  // namespace

std::string parse_topo_cell(const std::string& topo_output, int a, int b) {
  // Rows look like "GPU0\t X \tNV18\tSYS ...": the row named GPU<a>, the column of GPU<b> (the
  // header's order; the matrix lists GPUs first, so column b is field b + 1 of the row).
  std::istringstream lines(topo_output);
  std::string line;
  const std::string name = "GPU" + std::to_string(a);
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == ' ' || line[0] == '\t') continue;  // the header row starts with a tab
    std::istringstream fields(line);
    std::string first;
    if (!(fields >> first) || first != name) continue;
    std::string cell;
    for (int column = 0; column <= b; ++column)
      if (!(fields >> cell)) return "";
    return cell;
  }
  return "";
}

std::string topo_cell(int a, int b) {
  return parse_topo_cell(command_output("nvidia-smi topo -m 2>/dev/null"), a, b);
}

int nvlink_count_of_cell(const std::string& cell) {
  if (cell.size() < 3 || cell.compare(0, 2, "NV") != 0) return 0;
  int links = 0;
  for (std::size_t i = 2; i < cell.size(); ++i) {
    if (cell[i] < '0' || cell[i] > '9') return 0;
    links = links * 10 + (cell[i] - '0');
  }
  return links;
}

int nvlink_count(int a, int b) {
  return nvlink_count_of_cell(topo_cell(a, b));
}

double nvlink_gbs_per_link(int cc_major, int cc_minor) {
  (void)cc_minor;
  if (cc_major == 8 || cc_major == 9) return 26.5625;
  if (cc_major == 10) return 53.125;
  return 0.0;
}

double nvlink_bound_gbs(int a, int b) {
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, a) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, a) != cudaSuccess) {
    cudaGetLastError();
    return 0.0;
  }
  return nvlink_count(a, b) * nvlink_gbs_per_link(major, minor);
}

std::string link_label(int a, int b) {
  const std::string cell = topo_cell(a, b);
  if (!cell.empty()) return cell;
  int access = 0, rank = 0;
  if (cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, a, b) != cudaSuccess) {
    cudaGetLastError();
    return "link unknown";
  }
  if (!access) return "no peer access";
  cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, a, b);
  return "peer access, rank " + std::to_string(rank);
}

}  // namespace p6
