// SPDX-License-Identifier: MIT
#include "tools/workbook/doctor_checks.h"

#include <dirent.h>

#include <regex>
#include <tuple>

#include "tools/workbook/text.h"

namespace wbcli {

bool Version::operator<(const Version& other) const {
  return std::tie(major, minor, patch) < std::tie(other.major, other.minor, other.patch);
}

std::string Version::text() const {
  return std::to_string(major) + "." + std::to_string(minor) + (patch ? "." + std::to_string(patch) : "");
}

namespace {

std::optional<Version> first_match(const std::string& text, const std::regex& pattern) {
  std::smatch m;
  if (!std::regex_search(text, m, pattern)) return std::nullopt;
  Version v;
  v.major = std::stoi(m[1]);
  v.minor = m[2].matched ? std::stoi(m[2]) : 0;
  v.patch = m.size() > 3 && m[3].matched ? std::stoi(m[3]) : 0;
  return v;
}

}  // namespace

std::optional<Version> parse_nvcc_version(const std::string& output) {
  std::optional<Version> v = first_match(output, std::regex(R"(V([0-9]+)\.([0-9]+)\.([0-9]+))"));
  return v ? v : first_match(output, std::regex(R"(release ([0-9]+)\.([0-9]+))"));
}

std::optional<Version> parse_cmake_version(const std::string& output) {
  return first_match(output, std::regex(R"(cmake version ([0-9]+)\.([0-9]+)(?:\.([0-9]+))?)"));
}

std::optional<Version> parse_dotted_version(const std::string& text) {
  return first_match(trim(text), std::regex(R"(^([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?)"));
}

std::optional<Version> parse_driver_cuda_version(const std::string& output) {
  return first_match(output, std::regex(R"(CUDA Version: ([0-9]+)\.([0-9]+))"));
}

Version decode_cuda_version(int encoded) {
  return Version{encoded / 1000, (encoded % 1000) / 10, 0};
}

int newest_gcc_for_cuda(const Version& cuda) {
  // From each release's host_config.h: the GCC major versions nvcc refuses beyond.
  if (cuda.major >= 13) return 15;
  if (cuda.major == 12 && cuda.minor >= 8) return 14;
  if (cuda.major == 12 && cuda.minor >= 4) return 13;
  if (cuda.major == 12) return 12;
  if (cuda.major == 11) return 11;
  return 0;
}

int newest_clang_for_cuda(const Version& cuda) {
  if (cuda.major >= 13) return 20;
  if (cuda.major == 12 && cuda.minor >= 8) return 19;
  if (cuda.major == 12 && cuda.minor >= 4) return 17;
  if (cuda.major == 12) return 16;
  return 0;
}

bool architectures_cover(const std::string& architectures, int cc) {
  if (architectures == "native" || architectures == "all" || architectures == "all-major") return true;
  for (const std::string& entry : split(architectures, ';')) {
    const std::string arch = trim(entry);
    if (arch.empty()) continue;
    const std::string::size_type dash = arch.find('-');
    const int number = static_cast<int>(parse_number(arch.substr(0, dash)).value_or(0));
    const std::string kind = dash == std::string::npos ? "" : arch.substr(dash + 1);
    // SASS runs on the same major version at an equal or higher minor; PTX is JIT-compiled upward.
    const bool has_sass = kind != "virtual";
    const bool has_ptx = kind != "real";
    if (has_sass && number / 10 == cc / 10 && number <= cc) return true;
    if (has_ptx && number <= cc) return true;
  }
  return false;
}

bool pci_lists_nvidia_gpu(const std::string& pci_devices_dir) {
  DIR* dir = ::opendir(pci_devices_dir.c_str());
  if (dir == nullptr) return false;
  bool found = false;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    const std::string device = join_path(pci_devices_dir, name);
    const std::string vendor = trim(read_file(join_path(device, "vendor")).value_or(""));
    const std::string klass = trim(read_file(join_path(device, "class")).value_or(""));
    if (vendor == "0x10de" && starts_with(klass, "0x03")) found = true;
  }
  ::closedir(dir);
  return found;
}

bool is_wsl(const std::string& proc_version) {
  return contains(proc_version, "microsoft") || contains(proc_version, "Microsoft") || contains(proc_version, "WSL");
}

std::optional<bool> profiling_restricted(const std::string& nvidia_params) {
  std::smatch m;
  if (!std::regex_search(nvidia_params, m, std::regex(R"(RmProfilingAdminOnly: ([0-9]+))"))) return std::nullopt;
  return m[1] != "0";
}

std::optional<GpuQuery> parse_gpu_query(const std::string& nvidia_smi_csv) {
  const std::vector<std::string> lines = split_lines(nvidia_smi_csv);
  if (lines.empty()) return std::nullopt;
  std::smatch m;
  const std::string first = lines.front();
  if (!std::regex_search(first, m, std::regex(R"(^\s*([0-9]+)\.([0-9]+)\s*(?:,\s*(.*))?$)"))) return std::nullopt;
  GpuQuery query;
  query.cc = std::stoi(m[1]) * 10 + std::stoi(m[2]);
  query.name = m[3].matched ? trim(m[3]) : "";
  return query;
}

std::optional<std::string> cmake_cache_value(const std::string& cache_text, const std::string& name) {
  for (const std::string& line : split_lines(cache_text)) {
    if (!starts_with(line, name + ":")) continue;
    const std::string::size_type equals = line.find('=');
    if (equals != std::string::npos) return line.substr(equals + 1);
  }
  return std::nullopt;
}

}  // namespace wbcli
