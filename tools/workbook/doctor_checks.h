// SPDX-License-Identifier: MIT
// The pieces of `workbook doctor` that are pure text handling, so they are host-tested: version
// parsing, the host compilers each CUDA release accepts, architectures vs the GPU, WSL and
// profiling-permission detection.
#pragma once

#include <optional>
#include <string>

namespace wbcli {

struct Version {
  int major = 0, minor = 0, patch = 0;
  bool operator<(const Version& other) const;
  std::string text() const;
};

// "Cuda compilation tools, release 13.0, V13.0.88" -> 13.0.88
std::optional<Version> parse_nvcc_version(const std::string& nvcc_output);
// "cmake version 3.25.1" -> 3.25.1
std::optional<Version> parse_cmake_version(const std::string& cmake_output);
// "13.2.0" or "13" (gcc -dumpfullversion / -dumpversion) -> 13.2.0
std::optional<Version> parse_dotted_version(const std::string& text);
// nvidia-smi's banner "CUDA Version: 12.4" (the newest runtime the driver supports)
std::optional<Version> parse_driver_cuda_version(const std::string& nvidia_smi_output);
// CUDA's encoded versions (cudaDriverGetVersion, cudaRuntimeGetVersion): 12040 -> 12.4
Version decode_cuda_version(int encoded);

// The newest GCC major version nvcc of this CUDA release accepts as host compiler (its
// host_config.h check), or 0 when unknown.
int newest_gcc_for_cuda(const Version& cuda);
int newest_clang_for_cuda(const Version& cuda);

// Does a CMAKE_CUDA_ARCHITECTURES value ("75;80;86;89;90", "90-real", "native", "all") contain
// code that runs on compute capability `cc` (e.g. 90)? PTX of a lower arch also runs (JIT).
bool architectures_cover(const std::string& architectures, int cc);

// Whether a folder laid out like /sys/bus/pci/devices holds an NVIDIA display or 3D controller (vendor
// 0x10de, class 0x03xxxx): a GPU whose driver is missing, as opposed to a machine without one.
bool pci_lists_nvidia_gpu(const std::string& pci_devices_dir);

// /proc/version mentions Microsoft under WSL.
bool is_wsl(const std::string& proc_version);
// /proc/driver/nvidia/params: "RmProfilingAdminOnly: 1" -> counters restricted to admins.
std::optional<bool> profiling_restricted(const std::string& nvidia_params);

// `nvidia-smi --query-gpu=compute_cap,name --format=csv,noheader`: "9.0, NVIDIA H100 80GB HBM3" -> 90 and
// the name (the first line: the first GPU listed).
struct GpuQuery {
  int cc = 0;
  std::string name;
};
std::optional<GpuQuery> parse_gpu_query(const std::string& nvidia_smi_csv);

// CMakeCache.txt "NAME:TYPE=value" -> value
std::optional<std::string> cmake_cache_value(const std::string& cache_text, const std::string& name);

}  // namespace wbcli
