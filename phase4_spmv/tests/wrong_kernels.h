// SPDX-License-Identifier: MIT
// Deliberately wrong CSR SpMV launchers (and one right one) that prove the phase 4 grader fails each
// planted bug with the right diagnosis. Never used by lessons.
#pragma once

#include "phase4_spmv/spmv.cuh"

void planted_spmv_correct(const CsrView& a, const float* x, float* y, cudaStream_t stream);
void planted_spmv_skips_last_row(const CsrView& a, const float* x, float* y, cudaStream_t stream);
void planted_spmv_skips_empty_rows(const CsrView& a, const float* x, float* y, cudaStream_t stream);
void planted_spmv_reads_x_out_of_range(const CsrView& a, const float* x, float* y, cudaStream_t stream);
void planted_spmv_writes_past_y(const CsrView& a, const float* x, float* y, cudaStream_t stream);
void planted_spmv_drops_first_entry(const CsrView& a, const float* x, float* y, cudaStream_t stream);
void planted_spmv_warp_lane0_only(const CsrView& a, const float* x, float* y, cudaStream_t stream);
// csr_vector-style bugs only compute-sanitizer sees (the grade's racecheck and exact-input memcheck
// runs): the warp's shared-memory tree without __syncwarp; val and col read past each row's end (and
// past the arrays at the last row), the values dropped.
void planted_spmv_vector_no_syncwarp(const CsrView& a, const float* x, float* y, cudaStream_t stream);
void planted_spmv_vector_reads_past_row_masked(const CsrView& a, const float* x, float* y, cudaStream_t stream);

// 4.09 spmm: Y = A X by a warp per row (lane l owns float4 number l of a row of Y), rows longer than 256
// entries split into segments of 256 whose first a warp stores and a second launch adds the others
// into; each launcher with one planted bug (and one right one). They take the DeviceMatrix, whose host
// copy lays out the segments.
namespace p4 {
class DeviceMatrix;
}  // namespace p4
void planted_spmm_correct(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream);
void planted_spmm_reads_x_column_major(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream);
void planted_spmm_loses_last_segment(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream);
void planted_spmm_skips_last_float4(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream);
void planted_spmm_skips_empty_rows(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream);
void planted_spmm_adds_onto_poison(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream);
// SpMM bugs only compute-sanitizer sees: a warp's (col, val) pairs staged in shared memory and reused for
// the next 32 entries and the next row without __syncwarp (racecheck); col and val read one past each
// row's end, col[row_end], the values dropped (exact-input memcheck, at the last row).
void planted_spmm_staging_without_syncwarp(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream);
void planted_spmm_reads_col_past_row(p4::DeviceMatrix& a, const float* x, float* y, int k, cudaStream_t stream);
