// SPDX-License-Identifier: MIT
// The 0.08 block_reduce grader, shared by its graded test and the phase 0 grader self-test.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

// The shape of reduce_sum_atomic (phase0_basics/basics.cuh).
using ReduceSumLauncher = void (*)(const float* in, float* result, std::size_t n, cudaStream_t stream);

// Sums x on the GPU `calls` times in a row into one poisoned, guarded float and checks the last sum,
// the result's guards, and that x came through unchanged; FAILs the test with the likely cause.
void check_reduce(ReduceSumLauncher reduce, const std::string& what, const std::vector<float>& x, bool exact,
                  int calls = 1);
