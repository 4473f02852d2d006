// SPDX-License-Identifier: MIT
// 3.11 scan (capstone): the inclusive prefix sum of a gigabyte of ints in one pass, at CUB's speed.
//
// You learn: to design a single-pass scan from the phase's pieces (3.07's loads, 3.08's shuffles, 3.09's
// blocks that talk through global memory): tiles that hand their sums forward while they run, and what
// keeps blocks that wait on one another from waiting forever.
// Task: scan_inclusive and scan_inclusive_float (reduction.cuh): out[i] = in[0] + ... + in[i] for i < n,
// ints modulo 2^32 (exact), floats within i u sum|in[0..i]|; any n, in and out 16-byte aligned and
// distinct (in == out is not supported). Each element is read once and written once: the tiles of one
// launch pass their sums along, never a second pass over the data, and the scan must finish however
// many tiles there are (below, under "Forward progress").
// You decide: how many elements a thread and a tile take; how a tile finds the sum of everything before
//             it; what a tile's status word holds, and how it is published and reset.
// Source: the CUB documentation, cub::DeviceScan; Harris, Sengupta & Owens, "Parallel Prefix Sum (Scan)
// with CUDA" (GPU Gems 3, chapter 39: scans inside a block). The paper behind the reference's one-pass
// design is named in the first hint: its title answers the second decision below, so try first.
// Run:   ./workbook run 3.11 [-- --size 256M]
// Check: ./workbook check 3.11
// Aim:   >= 100% of CUB's DeviceScan::InclusiveSum in the same run on 256M ints (1 GiB), toward 90% of a
//        copy (H100: CUB moves about 2450 GB/s read + written, 81% of a copy).
// Previous: 3.10 cub_reference. Next: phase 4, SpMV.

#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/workbook.h"
#include "phase3_reduction/harness/lesson_support.h"
#include "phase3_reduction/reduction.cuh"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

// What decides correctness, whatever your design:
// - One pass. A tile (one block's share of the input) scans its own elements, but its outputs also need
//   the sum of every element before it, which other blocks of the same launch are adding up right now.
//   What one tile tells another passes through the workspace, never by reading the other's elements.
//   Resetting the workspace (a memset on the stream, say) is not a pass over the data.
// - Forward progress. The scan must finish however many tiles there are, also when far more exist than
//   can be resident at once. Nothing promises that blocks start in blockIdx.x order, nor that a block
//   that has not started will ever start while every resident block is waiting. Every wait must end
//   because what it waits for is sure to come, never because a timeout gives up.
// - Publication. A tile may read another tile's status word at any moment, from any SM: before, between
//   or after any of that tile's updates. A read must never yield a state that the tile did not publish,
//   and a wait must see an update once it has been made.
// - The workspace arrives full of garbage (the tests poison it, then call twice on the same one): what
//   the kernel reads there must not depend on what it held before the call.
// - Arithmetic. Ints wrap modulo 2^32: add them as unsigned (signed overflow is undefined in C++).
//   Floats: make every out[i] a sum of in[0..i], with no subtraction (in float, x + y - y need not be x).
// - Tails. Any n: a 16-byte load or store only where all four of its elements are below n; zeros (the
//   identity of +) stand in for the elements past n, and nothing is stored there.
// - Speed. A copy's traffic and no more: 8 bytes per element, nothing read twice from DRAM, and enough
//   bytes in flight (3.07's napkin math) while tiles wait on one another.
// TODO(3.11): write the kernel(s) that launch_scan launches, and their helpers: one pass over the data
//             that leaves out[i] = in[0] + ... + in[i] for every i < n, within the constraints above, on
//             unsigned ints (the int scan, modulo 2^32) and on floats (about 150 lines).

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

namespace {

// Enqueues the scan of in[0, n) into out on `stream`, T = int or float; `launcher` names the caller in
// error messages.
template <typename T>
void launch_scan(const T* in, T* out, std::size_t n, void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                 const char* launcher) {
  // TODO(3.11): refuse misaligned pointers and a workspace smaller than your kernel needs (at most
  //             scan_workspace_bytes(n) bytes) with a std::invalid_argument naming `launcher`; for n = 0
  //             do nothing (a grid of 0 blocks is an invalid launch); otherwise enqueue on `stream`
  //             everything the scan needs, within the workspace constraint above (ints as unsigned
  //             ints), and check each launch with CUDA_CHECK_KERNEL() (about 25 lines). Then delete the
  //             (void) line below: it only silences unused-parameter warnings.
  (void)in, (void)out, (void)n, (void)workspace, (void)workspace_bytes, (void)stream, (void)launcher;  // TODO(3.11)
}

}  // namespace

void scan_inclusive(const int* in, int* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                    cudaStream_t stream) {
  launch_scan(in, out, n, workspace, workspace_bytes, stream, "scan_inclusive");
}

void scan_inclusive_float(const float* in, float* out, std::size_t n, void* workspace, std::size_t workspace_bytes,
                          cudaStream_t stream) {
  launch_scan(in, out, n, workspace, workspace_bytes, stream, "scan_inclusive_float");
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: a scan reads each element once and writes it once, 8 bytes per element: 256M ints move
// 2 GiB, about 0.72 ms at the ~3.0 TB/s a copy reaches on an H100, and CUB's InclusiveSum takes about
// 0.88 ms (2450 GB/s). The add is free; the time goes to bytes in flight, and to how long a tile waits
// for the sum of the tiles before it.
int scan_lesson(wb::Lesson& lesson) {
  return p3::run_scan_lesson(lesson, scan_inclusive, scan_inclusive_float);
}

}  // namespace

WB_LESSON(scan_lesson, "inclusive scan in one pass: tiles that pass their sums along, against CUB's InclusiveSum");
