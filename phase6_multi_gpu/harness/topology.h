// SPDX-License-Identifier: MIT
// How two GPUs are linked, from what the driver tells without NVML: cudaDeviceGetP2PAttribute (can
// they reach each other, the driver's performance rank, native atomics) and the matrix of
// `nvidia-smi topo -m` ("NV18": 18 NVLinks; "PIX", "PHB", "SYS": PCIe paths through a switch, a host
// bridge, across sockets). The links' bound is their count times one link's rate per direction.
#pragma once

#include <string>
#include <vector>

namespace p6 {

// The cell of `nvidia-smi topo -m` for GPUs a and b ("NV18", "PIX", "SYS"), "" where nvidia-smi is
// missing or its output has no such cell. parse_topo_cell is the pure half (host-tested).
std::string topo_cell(int a, int b);
std::string parse_topo_cell(const std::string& topo_output, int a, int b);
// The NVLinks between a and b from that cell (NV18 -> 18), 0 for a PCIe path or an unknown one.
int nvlink_count(int a, int b);
int nvlink_count_of_cell(const std::string& cell);
// One NVLink's raw rate per direction in GB/s by compute capability: NVLink3 (8.0) and NVLink4 (9.0)
// run 4 and 2 lanes at 53.125 and 106.25 Gbit/s, 26.5625 GB/s per link per direction (NVIDIA's "50 GB/s
// per link" counts both directions of the 25 GB/s data rate); NVLink5 (10.x) twice that. 0 where unknown.
double nvlink_gbs_per_link(int cc_major, int cc_minor);
// The bound of a copy from b to a (one direction): links x rate, 0 where unknown (no NVLink, or an
// architecture the table lacks).
double nvlink_bound_gbs(int a, int b);
// "NV18" when nvidia-smi names the path, else what the driver says: "peer access, rank 0" or "no peer
// access".
std::string link_label(int a, int b);

}  // namespace p6
