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
