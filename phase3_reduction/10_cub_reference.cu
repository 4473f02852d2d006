// SPDX-License-Identifier: MIT
// 3.10 cub_reference: cub::DeviceReduce::Sum, the library every rung is measured against.
//
// You learn: CUB's two-phase calling convention (call once with a null buffer to learn how many
// bytes of temporary storage it needs, then again with the storage), and to take that storage from
// a workspace allocated once, outside any timed loop, instead of a cudaMalloc per call.
// Task: in reduce_cub, query temp_bytes, check that it fits the workspace, and run the sum on the
// launcher's stream.
// You decide: the order of the calls and the check, so that nothing runs on a workspace too small for
//             CUB; which arguments carry the storage, its size and the stream.
// Source: the CUB documentation, cub::DeviceReduce: the tuned library version of 3.08/3.09, where
// hand-written reductions end.
// Run:   ./workbook run 3.10 [-- --size 256M]
// Check: ./workbook check 3.10
// Aim:   100% of CUB by definition (the line shows the run-to-run noise); about 3050 GB/s on an H100.
// Previous: 3.09 single_launch. Next: 3.11 scan, the capstone.

#include <cub/device/device_reduce.cuh>
#include <stdexcept>
#include <string>

#include "common/workbook.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/reduction.cuh"

// ---- launchers --------------------------------------------------------------------------------------

// The workspace holds reduce_workspace_elements(n) floats; CUB needs a few KiB of it (one partial
// sum per block of its own single- or two-pass plan).
void reduce_cub([[maybe_unused]] const float* in, [[maybe_unused]] float* out, std::size_t n,
                [[maybe_unused]] float* workspace, [[maybe_unused]] cudaStream_t stream) {
  const std::size_t workspace_bytes = reduce_workspace_elements(n) * sizeof(float);
  std::size_t temp_bytes = 0;
  // With a null temporary buffer CUB only writes the size it needs to temp_bytes and returns.
  // TODO(3.10): learn how many bytes cub::DeviceReduce::Sum needs, refuse a workspace that is too
  //             small with a std::runtime_error, then sum in into out with the workspace as CUB's
  //             storage, on stream (about 5 lines). Check every CUB call with CUDA_CHECK.
  [[maybe_unused]] const bool fits = temp_bytes <= workspace_bytes;  // TODO(3.10): placeholder
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: 1 GiB read once: CUB streams it at about 3050 GB/s on an H100 (91% of the HBM peak
// from the attributes), 0.35 ms. The lesson also times CUB through its own allocation, so the two
// lines differ only by noise.
int cub_reference_lesson(wb::Lesson& lesson) {
  return p3::run_reduce_lesson(lesson, {{"reduce_cub", reduce_cub}});
}

}  // namespace

WB_LESSON(cub_reference_lesson, "cub::DeviceReduce::Sum with its temporary storage from a workspace");
