// SPDX-License-Identifier: MIT
#include "common/arch_requirement.h"

#include <memory>

namespace wb {
namespace {

std::unique_ptr<ArchRequirement>& registered() {
  static std::unique_ptr<ArchRequirement> requirement;
  return requirement;
}

}  // namespace

const ArchRequirement* registered_arch_requirement() {
  return registered().get();
}

ArchRequirementRegistrar::ArchRequirementRegistrar(const char* id, const char* name, const char* arch) {
  registered() = std::make_unique<ArchRequirement>(ArchRequirement{id, name, arch});
}

}  // namespace wb
