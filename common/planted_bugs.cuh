// SPDX-License-Identifier: MIT
// Device pieces of the planted bugs in the grader self-tests (phaseN/tests/wrong_kernels.cu) that
// only compute-sanitizer sees: a race inside one warp and a read past the end whose value is masked.
// Never used by lessons or solutions.
#pragma once

#include <cstddef>

// The last steps of a shared-memory tree inside one warp, s[lane] += s[lane + offset] for offset
// 16 .. 1 over the warp's 32 slots, written as before Volta: no __syncwarp() between the steps.
// A warp that runs in lockstep gets the right sum, so plain runs pass; lane 0 reads s[8] right after
// lane 8 wrote it with nothing ordering the two, which racecheck reports (as a warning: a hazard
// within one warp). The fix is a __syncwarp() between the reads and the writes of each step.
__device__ inline float warp_tree_sum_without_syncwarp(volatile float* s, unsigned int lane) {
  for (unsigned int offset = 16; offset > 0; offset /= 2)
    if (lane < offset) s[lane] += s[lane + offset];
  return s[0];
}

// p[i], read even when the caller then throws the value away (`i < n ? x : 0`): the volatile load
// keeps the compiler from turning the masked read into a guarded one that never happens, so the read
// past the end stays in the machine code, as it does in a learner's kernel whose loads are not
// provably dead (float4 chunks, loads hoisted above the bound check).
template <typename T>
__device__ inline T read_even_if_masked(const T* p, std::size_t i) {
  return static_cast<const volatile T*>(p)[i];
}
