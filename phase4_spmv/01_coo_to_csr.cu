// SPDX-License-Identifier: MIT
// 4.01 coo_to_csr: build CSR from COO on the GPU: count, exclusive scan, scatter.
//
// You learn: the pattern that turns "entries in any order" into "entries grouped by key" on a GPU, used
// by every format conversion and by sorting itself: count how many entries each row gets (atomics),
// turn the counts into starting offsets with an exclusive scan (row_ptr), and scatter every entry to
// its row's next free slot (atomics again). Atomics make the order inside a row arbitrary, so a
// segmented sort puts each row's columns in order, as CSR requires.
// Task: write count_entries_kernel (how many entries each row has) and scatter_entries_kernel (copy
// every entry into a free slot of its row). The scan and the per-row sort are given (CUB).
// Source: Bell & Garland, "Implementing Sparse Matrix-Vector Multiplication on Throughput-Oriented Processors"
// (SC 2009), for CSR; Kirk & Hwu, PMPP, the parallel scan chapter: row_ptr is the exclusive scan of
// the row lengths.
// Run:   ./workbook run 4.01 [-- --gen uniform|poisson|powerlaw|banded|block --rows 4M]
//        or --matrix file.mtx
// Check: ./workbook check 4.01
// Aim:   about 3% of memcpy on an H100 (uniform, 64M entries: 15 ms; the row sort dominates). It runs
//        once per matrix; SpMV runs thousands of times.
// Previous: 3.11 scan (phase 3's capstone). Next: 4.02 csr_scalar.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/workbook.h"
#include "phase4_spmv/cub_helpers.h"
#include "phase4_spmv/harness/lesson_support.h"
#include "phase4_spmv/spmv.cuh"

namespace {

constexpr int kBlockSize = 256;
constexpr int kBlocksPerSm = 16;

// ---- kernels ----------------------------------------------------------------------------------------

// counts[r] = number of entries in row r (counts starts at 0).
__global__ void count_entries_kernel(CooView coo, int* __restrict__ counts) {
  // A grid-stride loop over the entries. Entries of one row can sit anywhere, so several threads may
  // add to the same counter at once: only an atomic add counts them all.
  // TODO(4.01): count every entry of the COO input in its row's counter (about 3 lines). The launcher
  //             sizes the grid to the GPU, not to coo.nnz: together your threads must visit every entry
  //             once, however many there are. Index in std::size_t: adding a stride may pass 2^31.
}

// Each entry claims the next free slot of its row r: row r's slots start at row_ptr[r].
__global__ void scatter_entries_kernel(CooView coo, const int* __restrict__ row_ptr, int* __restrict__ cursor,
                                       int* __restrict__ col_out, float* __restrict__ val_out) {
  // atomicAdd returns the counter's old value: each of a row's entries gets a different one of 0, 1,
  // ..., len - 1, in whatever order the threads arrive. That order is why the rows are sorted after.
  // TODO(4.01): copy every entry's column and value into a slot of its own inside its row (about 6
  //             lines). Visit the entries as count_entries_kernel does. Two entries of one row must never
  //             get the same slot, and the slots of a row must all be used; cursor starts at 0.
}

}  // namespace

// ---- launchers --------------------------------------------------------------------------------------

void coo_to_csr_gpu(const CooView& coo, int* row_ptr, int* col, float* val, cudaStream_t stream) {
  const std::size_t rows = static_cast<std::size_t>(coo.rows), nnz = static_cast<std::size_t>(coo.nnz);
  // No entries: every row is empty, row_ptr is all zeros.
  CUDA_CHECK(cudaMemsetAsync(row_ptr, 0, sizeof(int) * (rows + 1), stream));
  if (nnz == 0 || rows == 0) return;

  // Scratch, stream-ordered: counts (reused as the scatter's cursors) and the rows before sorting.
  int* counts = nullptr;
  int* col_unsorted = nullptr;
  float* val_unsorted = nullptr;
  CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&counts), sizeof(int) * rows, stream));
  CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&col_unsorted), sizeof(int) * nnz, stream));
  CUDA_CHECK(cudaMallocAsync(reinterpret_cast<void**>(&val_unsorted), sizeof(float) * nnz, stream));

  const int blocks = wb::grid_stride_blocks(nnz, kBlockSize, kBlocksPerSm);
  CUDA_CHECK(cudaMemsetAsync(counts, 0, sizeof(int) * rows, stream));
  count_entries_kernel<<<blocks, kBlockSize, 0, stream>>>(coo, counts);
  CUDA_CHECK_KERNEL();
  // row_ptr[0] = 0 (the memset) and row_ptr[r + 1] = counts[0] + ... + counts[r]: the inclusive scan of
  // the counts, shifted by one, is the exclusive scan that CSR needs.
  CUDA_CHECK(p4_inclusive_scan(counts, row_ptr + 1, coo.rows, stream));
  CUDA_CHECK(cudaMemsetAsync(counts, 0, sizeof(int) * rows, stream));  // now the cursors
  scatter_entries_kernel<<<blocks, kBlockSize, 0, stream>>>(coo, row_ptr, counts, col_unsorted, val_unsorted);
  CUDA_CHECK_KERNEL();
  // Each row [row_ptr[r], row_ptr[r + 1]) sorted by column, values carried along.
  CUDA_CHECK(p4_sort_rows_by_column(row_ptr, coo.rows, col_unsorted, col, val_unsorted, val, coo.nnz, stream));
  CUDA_CHECK(cudaFreeAsync(val_unsorted, stream));
  CUDA_CHECK(cudaFreeAsync(col_unsorted, stream));
  CUDA_CHECK(cudaFreeAsync(counts, stream));
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: the minimum is reading the COO triples once (12 bytes per entry) and writing CSR once
// (8 bytes per entry + 4 per row): 20 bytes per entry, 1.3 GB for 64M entries. This conversion reads
// the rows twice (count, scatter), writes and rereads the unsorted copy, and the sort moves it again:
// about three times the minimum, plus atomics that collide when a row is long. Expect a fraction of a
// copy's bandwidth; it runs once per matrix, while SpMV runs thousands of times.
int coo_to_csr_lesson(wb::Lesson& lesson) {
  p4::SpmvProblem problem =
      p4::load_spmv_problem(p4::spmv_matrix_options(), lesson.options().size, "uniform", 4 << 20, lesson.seed());
  const p4::sparse::Csr& csr = problem.csr;
  const std::size_t nnz = csr.nnz(), rows = static_cast<std::size_t>(csr.rows);
  lesson.require_memory(28.0 * static_cast<double>(nnz) + 12.0 * static_cast<double>(rows),
                        40.0 * static_cast<double>(nnz) + 16.0 * static_cast<double>(rows));
  if (!lesson.options().csv) std::printf("matrix %s: %s\n", problem.label.c_str(), p4::describe_matrix(csr).c_str());

  // The COO input in a seeded random order: the conversion may not rely on sorted input.
  p4::sparse::Coo coo = p4::sparse::csr_to_coo(csr);
  wb::Rng rng(lesson.seed());
  for (std::size_t i = nnz; i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(i - 1)));
    std::swap(coo.row[i - 1], coo.row[j]);
    std::swap(coo.col[i - 1], coo.col[j]);
    std::swap(coo.val[i - 1], coo.val[j]);
  }
  wb::DeviceBuffer<int> d_row(coo.row), d_col(coo.col);
  wb::DeviceBuffer<float> d_val(coo.val);
  CooView view;
  view.rows = csr.rows;
  view.cols = csr.cols;
  view.nnz = static_cast<int>(nnz);
  view.row = d_row.data();
  view.col = d_col.data();
  view.val = d_val.data();

  wb::GuardedDeviceBuffer<int> out_row_ptr(rows + 1), out_col(nnz);
  wb::GuardedDeviceBuffer<float> out_val(nnz);
  auto launch = [&] { coo_to_csr_gpu(view, out_row_ptr.data(), out_col.data(), out_val.data(), nullptr); };
  // CSR is exact: every value and index must match the host converter's bit for bit.
  auto verify = [&](const std::string& what) {
    out_val.fill(wb::poison_value<float>());
    out_col.fill(wb::poison_value<int>());
    out_row_ptr.fill(wb::poison_value<int>());
    launch();
    CUDA_CHECK(cudaDeviceSynchronize());
    const bool values = wb::check_output(what + " val", csr.val, out_val, wb::Tolerance{});
    const bool cols = wb::check_output(what + " col", csr.col, out_col, wb::Tolerance{});
    const bool ptrs = wb::check_output(what + " row_ptr", csr.row_ptr, out_row_ptr, wb::Tolerance{});
    return values && cols && ptrs;
  };
  bool pass = verify("coo_to_csr_gpu");
  const wb::TimingStats time = wb::bench(nullptr, lesson.bench_options(true), launch);
  pass = verify("coo_to_csr_gpu (after timing)") && pass;

  const double bytes = 20.0 * static_cast<double>(nnz) + 4.0 * static_cast<double>(rows + 1);
  const wb::ResultLine line = lesson.memory_bound_line("coo_to_csr_gpu", problem.label, time, bytes, pass);
  lesson.report(line);
  return pass ? wb::kExitPass : wb::kExitFail;
}

}  // namespace

WB_LESSON(coo_to_csr_lesson, "COO to CSR on the GPU (count, scan, scatter, sort rows), against cudaMemcpy");
