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
