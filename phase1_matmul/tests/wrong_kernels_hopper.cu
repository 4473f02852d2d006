// SPDX-License-Identifier: MIT
// Planted bugs of the Hopper rungs 1.11-1.13 (compiled for sm_90a only: workbook_grader_selftest's
// SOURCES_90A in phase1_matmul/CMakeLists.txt). Each is a wgmma/TMA kernel with one bug a learner
// makes (a swizzle that does not match the tensor map's, a stage handed back to the producer before the
// consumers finished reading it, a missing fence between the generic-proxy writes and the async
// proxy), listed with the diagnosis the grader must give. None yet: the rungs' author adds them here
// (kernels in this file, rows in the list); the self-test's [hopper] case runs the list on sm_90.
#include "phase1_matmul/tests/wrong_kernels.h"

std::vector<Bf16Plant> hopper_bf16_plants() { return {}; }
