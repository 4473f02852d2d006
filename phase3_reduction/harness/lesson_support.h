// SPDX-License-Identifier: MIT
// Phase 3 lesson and benchmark support (outside the files learners edit): CUB's DeviceReduce::Sum
// timed on the same data (the phase's yardstick), and the lesson every rung runs; CUB's
// DeviceScan::InclusiveSum and the lesson of the scan capstone (3.11, scan_lesson.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/lesson.h"
#include "common/timer.h"
#include "phase3_reduction/reduction.cuh"

namespace p3 {

// cub::DeviceReduce::Sum over n device floats: temporary storage allocated outside the timed region,
// `options` as the lesson's (L2 flushed between repeats). Writes the sum to *sum_out when given.
wb::TimingStats time_cub_reduce(const float* in, std::size_t n, const wb::BenchOptions& options,
                                float* sum_out = nullptr);

struct NamedLauncher {
  const char* name;
  ReduceLauncher<float> launch;
};

// The lesson of every rung: n floats (--size, default 256M = 1 GiB) of exactly summable random
// values, each launcher verified to the last bit, timed with a cold L2, verified again, and reported
// as GB/s, % of HBM peak and % of CUB measured in the same run. Returns the exit code.
int run_reduce_lesson(wb::Lesson& lesson, const std::vector<NamedLauncher>& launchers);

// cub::DeviceScan::InclusiveSum of n (1 to 2^31 - 1) device ints or floats into out: temporary storage
// allocated outside the timed region, `options` as the lesson's (L2 flushed between repeats).
wb::TimingStats time_cub_scan(const int* in, int* out, std::size_t n, const wb::BenchOptions& options);
wb::TimingStats time_cub_scan(const float* in, float* out, std::size_t n, const wb::BenchOptions& options);

// The lesson of 3.11: n (--size, default 256M = 1 GiB) random ints, then n random floats, each scanned
// by CUB and by the launcher into the same poisoned output, verified against the CPU (ints exactly,
// floats within their bound) before and after timing with a cold L2, and reported as GB/s of n * 4
// bytes read plus n * 4 written, % of HBM peak and % of CUB InclusiveSum measured in the same run.
// Returns the exit code.
int run_scan_lesson(wb::Lesson& lesson, ScanLauncher<int> scan_int, ScanLauncher<float> scan_float);

}  // namespace p3
