// SPDX-License-Identifier: MIT
// 0.01 indexing: which thread am I? blockIdx, blockDim, threadIdx and the size of the grid.
//
// You learn: how a thread turns blockIdx.x, blockDim.x and threadIdx.x into the one element it
// owns, why the grid is rounded up with ceil_div (n is rarely a multiple of the block), why the
// last block then needs the bounds check `i < n`, and why n = 0 must not launch at all.
// Task: in record_thread_indices_kernel compute the global index and, for i < n, record i, the
// block and the thread. In the launcher compute the number of blocks for n elements.
// Source: CUDA C++ Programming Guide, "Thread Hierarchy": grid -> blocks -> threads, one element per thread.
// Run:   ./workbook run 0.01 [-- --size 64M]
// Check: ./workbook check 0.01
// Aim:   every block size from 1 to 1024 covers every n; the write-only kernel near the memcpy bandwidth.
// Previous: none, this is the first step. Next: 0.02 vector_add.

#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "common/workbook.h"
#include "phase0_basics/basics.cuh"

namespace {

// ---- kernels ----------------------------------------------------------------------------------------

__global__ void record_thread_indices_kernel(int* __restrict__ global_index, int* __restrict__ block_index,
                                             int* __restrict__ thread_index, int n) {
  // Blocks before this one hold blockIdx.x * blockDim.x threads; this thread comes threadIdx.x after them.
  // TODO(0.01): compute i, the element this thread owns: its place among all the threads of the grid (1 line).
  // The grid was rounded up to whole blocks, so the last block has threads past the end: they must not store.
  // TODO(0.01): for a thread that owns an element, record in the three arrays which element, which block
  //             and which thread of its block this is (about 5 lines).
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void record_thread_indices(int* global_index, int* block_index, int* thread_index, int n, int block_size,
                           cudaStream_t stream) {
  // TODO(0.01): launch nothing when there are no elements: a grid of 0 blocks is an invalid launch (1 line).
  // Round up: n / block_size would drop the last, partial block and leave its elements untouched.
  const int blocks = 1;  // TODO(0.01): launch enough blocks of block_size threads to cover n (wb::ceil_div, 1 line).
  record_thread_indices_kernel<<<blocks, block_size, 0, stream>>>(global_index, block_index, thread_index, n);
  CUDA_CHECK_KERNEL();
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Prints which block and thread handled each of a few elements, so you can see the mapping.
void print_index_table(int n, int block_size) {
  wb::GuardedDeviceBuffer<int> dglobal(n), dblock(n), dthread(n);
  record_thread_indices(dglobal.data(), dblock.data(), dthread.data(), n, block_size, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  const std::vector<int> global = dglobal.download(), block = dblock.download(), thread = dthread.download();
  const int poison = wb::poison_value<int>();
  auto cell = [&](int v) { return v == poison ? std::string("-") : std::to_string(v); };
  std::printf("n = %d elements, blockDim.x = %d: %d blocks, the last one has %d idle threads\n", n, block_size,
              wb::ceil_div(n, block_size), wb::ceil_div(n, block_size) * block_size - n);
  std::printf("  %5s %8s %8s %8s   (- = never written)\n", "i", "global", "block", "thread");
  for (int i = 0; i < n; ++i)
    std::printf("  %5d %8s %8s %8s\n", i, cell(global[i]).c_str(), cell(block[i]).c_str(), cell(thread[i]).c_str());
}

// Napkin math: nothing is read, 3 ints (12 bytes) are written per element; n = 64M writes 805 MB,
// about 0.27 ms at the H100's ~3 TB/s. The index arithmetic is free next to that.
int indexing_lesson(wb::Lesson& lesson) {
  if (!lesson.options().csv) print_index_table(10, 4);

  const std::size_t size = lesson.size_or(64 * wb::MiB);
  lesson.require_memory(12.0 * static_cast<double>(size), 28.0 * static_cast<double>(size));
  if (size > static_cast<std::size_t>(INT_MAX) - 1024)
    throw wb::UsageError("--size must be below 2^31 - 1024: the launcher takes an int n");
  const int n = static_cast<int>(size);
  const int block_size = 256;
  std::vector<int> expected_global(size), expected_block(size), expected_thread(size);
  for (int i = 0; i < n; ++i) {
    expected_global[i] = i;
    expected_block[i] = i / block_size;
    expected_thread[i] = i % block_size;
  }

  wb::GuardedDeviceBuffer<int> dglobal(size), dblock(size), dthread(size);
  const wb::Tolerance exact{0, 0};  // integers: every element must be exactly right
  auto launch = [&] { record_thread_indices(dglobal.data(), dblock.data(), dthread.data(), n, block_size, nullptr); };
  auto check = [&](const std::string& when) {
    bool ok = wb::check_output("global_index" + when, expected_global, dglobal, exact);
    ok = wb::check_output("block_index" + when, expected_block, dblock, exact) && ok;
    return wb::check_output("thread_index" + when, expected_thread, dthread, exact) && ok;
  };

  const int poison = wb::poison_value<int>();
  dglobal.fill(poison);
  dblock.fill(poison);
  dthread.fill(poison);
  launch();
  CUDA_CHECK(cudaDeviceSynchronize());
  bool pass = check("");
  const wb::TimingStats time = wb::bench(nullptr, lesson.bench_options(true), launch);
  pass = check(" (after timing)") && pass;
  const double bytes = 12.0 * static_cast<double>(size);
  // The copy it is compared with reads and writes; this kernel only writes, so it may beat the copy
  // straight from DRAM (above 100% of memcpy without being cache-resident).
  lesson.report(lesson.memory_bound_line("record_thread_indices", "n=" + wb::format_count(size), time, bytes, pass));
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(indexing_lesson, "thread and block indices, and how many blocks to launch");
