// SPDX-License-Identifier: MIT
// 2.10 layernorm: LayerNorm forward, the phase's capstone: statistics that survive a large mean, one
// read of x, a copy's speed at every row length.
//
// You learn: to design a row kernel from what 2.05-2.09 taught, and to compute the variance of float
// data so that it keeps its digits when the mean is 1e4 times the spread (E[x^2] - E[x]^2 loses them
// all there).
// Task: layernorm_forward (elementwise.cuh): y = (x - mean) * rstd * gamma + beta over each row of a
// rows x cols matrix, rstd = 1 / sqrt(var + eps) with the population variance, mean and rstd written
// per row. Read x from DRAM once and write y once (a row too long to keep on chip may be read a second
// time); any rows, any cols >= 1 (32768 and beyond), any float-aligned pointers.
// You decide: who owns a row; where the row waits between its statistics and its write; what each
//             thread summarizes of its values, and how those partial statistics meet.
// Source: Ba, Kiros & Hinton, "Layer Normalization" (2016); Welford, "Note on a Method for Calculating
// Corrected Sums of Squares and Products" (1962).
// Run:   ./workbook run 2.10 [-- --size 16384x4096]
// Check: ./workbook check 2.10
// Aim:   >= 85% of memcpy at 16384 x 4096 (H100), and at or above PyTorch's F.layer_norm at every
//        p2_bench shape (it measured 39 / 83 / 67 / 52% of a copy at 256 / 1024 / 4096 / 32768 columns).
// Previous: 2.09 softmax_single_read. Next: phase 3, reductions.

#include "common/workbook.h"
#include "phase2_elementwise/elementwise.cuh"
#include "phase2_elementwise/harness/lesson_support.h"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

// What decides correctness, whatever your design:
// - The statistics: mean and the population variance (divided by cols, not cols - 1), from one read
//   of x, within a bound the test derives per row from float's rounding and the row's max |x| and
//   max |x - mean|: what a numerically stable method reaches at every row length. Summing x and x^2
//   in one pass is not stable: at 1e4 + noise of std 1, x^2 ~ 1e8 rounds by up to 4 in float, more
//   than the whole variance.
// - Every row length: cols % 4 != 0 leaves every row after the first off 16-byte alignment, and x,
//   gamma, beta or y may start 4 bytes past a 16-byte boundary: a 16-byte access must be aligned.
// - Constant rows: x - mean must come out exactly 0, so that y = beta exactly and rstd = 1 / sqrt(eps).
// - Lanes and threads without data still reach every full-mask shuffle and every __syncthreads, with a
//   partial that changes nothing. Offsets in size_t: rows * cols may pass 2^31.
// - Speed: x from DRAM once, at every row length; gamma and beta are read by every row.
// TODO(2.10): write the kernel(s) that layernorm_forward launches, and what they need: for each row,
//             its statistics from one read of x, then the row's mean and rstd once and every y of
//             the row once, within the constraints above (about 200 lines).

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

// Launches the kernel(s) for all rows on `stream`.
void layernorm_forward(const float* x, const float* gamma, const float* beta, float* y, float* mean, float* rstd,
                       int rows, int cols, float eps, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;  // nothing to do, and a grid of 0 blocks is an invalid launch
  // TODO(2.10): launch your kernel(s) for these rows on `stream`, right for every cols >= 1 and every
  //             float-aligned pointer, and check the launch with CUDA_CHECK_KERNEL() (about 25 lines).
  //             Then delete the (void) line below: it only silences unused-parameter warnings.
  (void)x, (void)gamma, (void)beta, (void)y, (void)mean, (void)rstd, (void)eps, (void)stream;  // TODO(2.10)
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: x read once and y written once, 8 bytes per element (gamma, beta, mean and rstd add 8
// bytes per column and per row): 16384 x 4096 moves 537 MB, about 0.18 ms at a copy's ~3 TB/s. The
// statistics cost a few dozen instructions per element at most, hidden under the memory time while
// enough rows are in flight. A second read of x that misses L2 adds 4 bytes to the 8: 50% more time.
int layernorm_forward_lesson(wb::Lesson& lesson) {
  return p2::layernorm_lesson(lesson, "layernorm_forward", layernorm_forward);
}

}  // namespace

WB_LESSON(layernorm_forward_lesson, "LayerNorm forward: one read of x, statistics combined exactly");
