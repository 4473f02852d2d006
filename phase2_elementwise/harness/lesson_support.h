// SPDX-License-Identifier: MIT
// The lesson mains of the row-wise exercises (2.05-2.08, 2.10) share everything but their launcher:
// make the data, check against the double reference, time with L2 flushed, print the result lines.
#pragma once

#include "common/lesson.h"
#include "phase2_elementwise/elementwise.cuh"

namespace p2 {

// Without --size: four row lengths of 64M floats (256 MiB) each (256 to 32768 columns), so 2.05 and
// 2.06 can be compared row length by row length; with --size ROWSxCOLS, that one shape.
int rmsnorm_lesson(wb::Lesson& lesson, const char* kernel, RmsnormLauncher launch);

// One shape (--size, default 16384x4096), inputs in [-8, 8). `sum_units_per_col` is the kernel's
// error growth with the row length in units of u (2 for three passes, 7 for online): see its test.
int softmax_lesson(wb::Lesson& lesson, const char* kernel, SoftmaxLauncher launch, double sum_units_per_col);

// One shape (--size, default 16384x4096): rows of noise in [-1, 1) around a mean of their own in
// [-64, 64), gamma in [0.5, 1.5), beta in [-0.5, 0.5). Checks y, mean and rstd against the double
// reference within reference.cpp's bounds; GB/s counts x read once, y written once, gamma and beta
// read once, mean and rstd written once.
int layernorm_lesson(wb::Lesson& lesson, const char* kernel, LayernormLauncher launch);

}  // namespace p2
