// SPDX-License-Identifier: MIT
// Compiled once per exercise that declares REQUIRES_ARCH (cmake/WorkbookExercise.cmake), with its id,
// name and requirement defined, and linked into its lessons and graded tests (not into the phase
// benchmarks, which check each rung themselves): their GPU probe then skips, with one line, on a GPU
// that cannot run the exercise.
#include "common/arch_requirement.h"

static const wb::ArchRequirementRegistrar wb_arch_requirement_registrar_(WB_EXERCISE_ID, WB_EXERCISE_NAME,
                                                                         WB_REQUIRES_ARCH);
