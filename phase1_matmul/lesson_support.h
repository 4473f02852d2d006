// SPDX-License-Identifier: MIT
// The lesson every rung of the ladder shares: make A and B, check the launcher against cuBLAS
// (pedantic FP32) with the derived tolerance, time it and the library on the same data in the same
// run, and print the result line with GFLOP/s, % of the peak and % of cuBLAS.
#pragma once

#include "common/lesson.h"
#include "phase1_matmul/matmul.cuh"
#include "phase1_matmul/reference.h"

// --size N (a cube) or MxNxK; default 4096^3. FP32 rungs race cublasSgemm in its default math
// mode (FP32, no tensor cores); TF32 rungs race cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32.
int run_matmul_lesson(wb::Lesson& lesson, const char* launcher_name, MatmulLauncher launch,
                      MatmulPrecision precision = MatmulPrecision::FP32);

// Dense TF32 tensor-core FLOP per clock per SM (0 where there are no TF32 tensor cores): 2048 on
// Hopper, 1024 on the A100, 512 on other Ampere and Ada GPUs (NVIDIA architecture whitepapers).
int tf32_flop_per_clock_per_sm(int cc_major, int cc_minor);
