// SPDX-License-Identifier: MIT
// 4.08 cusparse_reference: cuSPARSE's generic SpMV API on CSR, the line every rung is measured against.
//
// You learn: the generic API's four steps (describe the sparse matrix, describe the dense vectors, ask
// how much work memory the algorithm wants, run), which of them are set-up that belongs outside a timed
// loop (all but the last: a plan is made once and run many times), and that cuSPARSE, too, only moves
// bytes: its GB/s over the CSR minimum is the bar the ladder's CSR kernels aim at (90% of it).
// Task: in spmv_cusparse_plan_create describe A with cusparseCreateConstCsr and x, y with
// cusparseCreateConstDnVec / cusparseCreateDnVec, size and allocate the work buffer with
// cusparseSpMV_bufferSize, and in spmv_cusparse_plan_run call cusparseSpMV (y = 1 * A x + 0 * y).
// You decide: which descriptors are read-only and which sizes they take from A; what the plan keeps
//             so that a run is one call with nothing allocated.
// Source: the cuSPARSE documentation, cusparseSpMV (generic API). Measure against the vendor library in the
// same run, and know where the time goes before optimising.
// Run:   ./workbook run 4.08 [-- --gen poisson|uniform|powerlaw|banded|block]
//        [--rows 4M] or --matrix file.mtx
// Check: ./workbook check 4.08
// Aim:   100% of cuSPARSE CSR (it is cuSPARSE, timed twice; a few % either way is noise).
// Previous: 4.07 block_tiled. Next: 4.09 spmm, the capstone.

#include <cstddef>
#include <memory>

#include "common/check_cusparse.h"
#include "common/workbook.h"
#include "phase4_spmv/harness/lesson_support.h"
#include "phase4_spmv/spmv.cuh"

// ---- the plan ---------------------------------------------------------------------------------------

// Everything cusparseSpMV needs, made once. The Const descriptors promise cuSPARSE that A and x are
// only read.
struct CusparseSpmvPlan {
  cusparseHandle_t handle = nullptr;
  cusparseConstSpMatDescr_t matrix = nullptr;
  cusparseConstDnVecDescr_t x = nullptr;
  cusparseDnVecDescr_t y = nullptr;
  void* work = nullptr;  // the algorithm's scratch memory, sized by cusparseSpMV_bufferSize
  std::size_t work_bytes = 0;
  float* y_data = nullptr;
  int rows = 0;
  bool no_entries = false;  // no rows, no columns or no entries: y = 0 without cuSPARSE
  cudaStream_t stream = nullptr;
};

namespace {

// y = alpha A x + beta y: alpha 1 and beta 0 give y = A x and never read the old y.
[[maybe_unused]] const float kAlpha = 1.0f;
[[maybe_unused]] const float kBeta = 0.0f;

}  // namespace

CusparseSpmvPlan* spmv_cusparse_plan_create(const CsrView& a, [[maybe_unused]] const float* x, float* y,
                                            cudaStream_t stream) {
  std::unique_ptr<CusparseSpmvPlan> plan(new CusparseSpmvPlan);
  plan->y_data = y;
  plan->rows = a.rows;
  plan->stream = stream;
  // cuSPARSE rejects a matrix without entries (its index arrays may be null): y is all zeros then.
  plan->no_entries = a.rows == 0 || a.cols == 0 || a.nnz == 0;
  if (plan->no_entries) return plan.release();
  CUSPARSE_CHECK(cusparseCreate(&plan->handle));
  CUSPARSE_CHECK(cusparseSetStream(plan->handle, stream));  // every call of this handle goes to `stream`
  // TODO(4.08): describe A in plan->matrix as the read-only CSR matrix it is: its sizes, its three
  //             arrays, 32-bit indices counted from 0, float values (1 call, cusparseCreateConstCsr).
  // TODO(4.08): describe x (read only) and y (written) as dense float vectors of the right lengths
  //             (2 calls, cusparseCreateConstDnVec and cusparseCreateDnVec).
  // TODO(4.08): ask how much work memory the default SpMV algorithm needs for y = kAlpha A x + kBeta y,
  //             with A not transposed and float arithmetic, into plan->work_bytes; allocate plan->work
  //             once, with wb::device_alloc, only when it needs any (about 4 lines, cusparseSpMV_bufferSize).
  return plan.release();
}

void spmv_cusparse_plan_run(CusparseSpmvPlan* plan) {
  if (plan->no_entries) {
    if (plan->rows > 0)
      CUDA_CHECK(cudaMemsetAsync(plan->y_data, 0, sizeof(float) * static_cast<std::size_t>(plan->rows), plan->stream));
    return;
  }
  // TODO(4.08): compute y = kAlpha A x + kBeta y with the plan: the same operation, scalars,
  //             descriptors, type and algorithm as the size query, and the work memory it sized (1 call,
  //             cusparseSpMV, checked like every cuSPARSE call).
}

void spmv_cusparse_plan_destroy(CusparseSpmvPlan* plan) {
  if (plan == nullptr) return;
  // Teardown must not throw: the statuses are ignored here.
  if (plan->y) cusparseDestroyDnVec(plan->y);
  if (plan->x) cusparseDestroyDnVec(plan->x);
  if (plan->matrix) cusparseDestroySpMat(plan->matrix);
  if (plan->handle) cusparseDestroy(plan->handle);
  wb::device_free(plan->work);
  delete plan;
}

// ---- launchers --------------------------------------------------------------------------------------

void spmv_cusparse_csr(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  CusparseSpmvPlan* plan = spmv_cusparse_plan_create(a, x, y, stream);
  try {
    spmv_cusparse_plan_run(plan);
  } catch (...) {
    spmv_cusparse_plan_destroy(plan);
    throw;
  }
  // The work buffer must outlive the SpMV that uses it: wait before freeing it.
  CUDA_CHECK(cudaStreamSynchronize(stream));
  spmv_cusparse_plan_destroy(plan);
}

// ---- lesson -----------------------------------------------------------------------------------------

namespace {

// Napkin math: the same CSR bytes as every rung (8 per entry, row pointers, x and y). cuSPARSE on the
// 2-D Poisson matrix at 2048^2 rows ran at 1870 GB/s on the H100 this course was measured on (about 60%
// of a D2D copy: the gathers from x and the short rows cost the rest), so a hand-written CSR kernel at
// 90% of cuSPARSE is doing well. The plan is made on the first call, outside the timed repeats.
int cusparse_reference_lesson(wb::Lesson& lesson) {
  std::unique_ptr<CusparseSpmvPlan, void (*)(CusparseSpmvPlan*)> plan(nullptr, spmv_cusparse_plan_destroy);
  return p4::run_spmv_lesson(
      lesson, "spmv_cusparse_csr", [&](p4::DeviceMatrix& a, const float* x, float* y, cudaStream_t s) {
        if (!plan) plan.reset(spmv_cusparse_plan_create(a.csr(), x, y, s));  // the lesson's x and y never move
        spmv_cusparse_plan_run(plan.get());
      });
}

}  // namespace

WB_LESSON(cusparse_reference_lesson, "cuSPARSE generic-API CSR SpMV, the phase's reference line");
