// SPDX-License-Identifier: MIT
// What an exercise needs of the GPU beyond the workbook's sm_75 (workbook_exercise's REQUIRES_ARCH):
//   ""     nothing more;
//   "80"   compute capability 8.0 or newer: BF16 mma.sync, ldmatrix, cp.async (Ampere, Ada, Hopper, ...);
//   "90a"  exactly 9.0: code built for sm_90a (wgmma, TMA, setmaxnreg) runs on Hopper and nothing else.
// An exercise's lessons and tests link a small object that registers its requirement; probe_gpu
// (common/gpu.h) then skips them (exit 77) with one line on a GPU that cannot run them. The checks
// themselves are inline and pure, so the host-only `workbook` tool shares them (list, doctor, check).
#pragma once

#include <string>

namespace wb {

inline bool is_arch_requirement(const std::string& arch) {
  return arch.empty() || arch == "80" || arch == "90a";
}

// `cc` as major * 10 + minor (sm_89 -> 89).
inline bool arch_requirement_met(const std::string& arch, int cc) {
  if (arch == "80") return cc >= 80;
  if (arch == "90a") return cc == 90;
  return true;
}

// "sm_80 or newer", "a Hopper GPU (sm_90)"; "" for no requirement.
inline std::string arch_requirement_text(const std::string& arch) {
  if (arch == "80") return "sm_80 or newer";
  if (arch == "90a") return "a Hopper GPU (sm_90)";
  return "";
}

// The short form for tables: "sm_80+", "sm_90".
inline std::string arch_requirement_short(const std::string& arch) {
  if (arch == "80") return "sm_80+";
  if (arch == "90a") return "sm_90";
  return "";
}

// The one line a lesson or test prints before it skips: "1.11 wgmma needs a Hopper GPU (sm_90); this
// is sm_89".
inline std::string arch_requirement_unmet(const std::string& id, const std::string& name, const std::string& arch,
                                          int cc) {
  std::string line = id + " " + name + " needs " + arch_requirement_text(arch);
  // Newer GPUs than Hopper surprise people: sm_90a code is not forward-compatible.
  if (arch == "90a" && cc > 90) line += ", whose sm_90a code (wgmma, TMA) runs on Hopper only";
  return line + "; this is sm_" + std::to_string(cc);
}

// The requirement of the exercise this program belongs to, or nullptr (most programs).
struct ArchRequirement {
  std::string id, name, arch;
};
const ArchRequirement* registered_arch_requirement();

// Used once per exercise with a requirement, by common/arch_requirement_registration.cpp.
struct ArchRequirementRegistrar {
  ArchRequirementRegistrar(const char* id, const char* name, const char* arch);
};

}  // namespace wb
