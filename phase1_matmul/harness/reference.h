// SPDX-License-Identifier: MIT
// Phase 1 references, shared by lessons and graded tests and kept out of the files learners edit:
// a CPU GEMM in double, cuBLAS in pedantic FP32, the tolerance rule, and exactly-multipliable inputs.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/bf16.h"  // the host BF16 helpers the BF16 references and inputs use
#include "common/verify.h"

namespace p1 {

// How the kernel under test rounds its inputs: FP32 keeps them, TF32 rounds each to 10 mantissa bits.
// BF16 (1.10-1.14): the inputs are BF16 already (the reference is computed from the very same
// values), FP32 accumulation on tensor cores.
enum class MatmulPrecision { FP32, TF32, BF16 };

// out = alpha * A * B + beta * C in double (row-major). magnitude[i] = |alpha| sum_k |a_ik b_kj| +
// |beta| |c_ij|: the scale of the rounding error of element i.
void gemm_reference_cpu(int M, int N, int K, float alpha, const std::vector<float>& A, const std::vector<float>& B,
                        float beta, const std::vector<float>& C, std::vector<double>& out,
                        std::vector<double>& magnitude);

// The error bound of one output element. An FP32 dot product of K terms, in any order and with or
// without FMA, errs by at most K * u * sum |a b| (Higham, Accuracy and Stability of Numerical
// Algorithms, 3.1), u = 2^-24; alpha, beta and the final add cost two more roundings: (K + 2) * u *
// magnitude. TF32 inputs first round each of a and b by up to 2^-11 relative, which adds about
// 2 * 2^-11 * |alpha| sum |a b| (bounded here by the whole magnitude).
// BF16: the inputs cost nothing (the reference uses the same BF16 values, and a product of two BF16
// numbers, 8 significant bits each, is exact in FP32), but tensor cores do not add the way FP32 units
// do. Fasi, Higham, Mikaitis and Pranesh ("Numerical behavior of NVIDIA tensor cores", PeerJ Computer
// Science 7:e330, 2021) found that they add a block of b exact products and the accumulator in one
// step: every addend is aligned to the largest exponent and truncated (rounded toward zero, no guard
// bits), then the sum is normalized, truncating again. A truncation errs by up to one ulp, twice
// round-to-nearest's half ulp, so the unit roundoff doubles to 2u: each of the K addends loses up to
// 2u of the block's largest addend, and each of the ceil(K / b) normalizations 2u of the running sum.
// With b >= 4 (4 on V100, 8 and more on A100 and Hopper), both at most `magnitude`, plus the two
// roundings of alpha and beta: 2u (K + ceil(K / 4) + 2) * magnitude. The plain 2 (K + 2) u (Higham's
// bound with u doubled) is tighter but can be exceeded in that worst case, and a correct kernel must
// never fail the bound.
wb::Tolerance gemm_tolerance(int K, double magnitude, MatmulPrecision precision);

// The bound for comparing a float result with a reference: gemm_tolerance on `slack` x magnitude
// (slack 2 when the reference is itself an FP32 result that carries rounding error, 1 for the double
// CPU reference), plus u * magnitude for rounding the reference to float.
wb::Tolerance gemm_check_tolerance(int K, double magnitude, MatmulPrecision precision, double slack);

// Small integers in [lo, hi] as floats: every product and every partial sum of a GEMM on them (for
// K * hi^2 < 2^24) is an exact float, and exact in TF32 too, so any summation order gives the exact
// answer and a test can demand it: one missing or doubled term shows.
std::vector<float> random_small_integers(std::size_t n, std::uint64_t seed, int lo = -2, int hi = 2);

// C = alpha * A * B + beta * C on the device with cublasSgemm in CUBLAS_PEDANTIC_MATH (true FP32, no
// TF32), row-major through the transpose identity C^T = B^T A^T. Used as the reference for large sizes.
void gemm_reference_cublas(cublasHandle_t handle, int M, int N, int K, float alpha, const float* A, const float* B,
                           float beta, float* C, cudaStream_t stream);

// ---- the BF16 rungs (matmul_bf16.cuh): C = alpha * A * B^T + beta * C, B stored N x K ----------------

// out = alpha * A * B^T + beta * C in double, A M x K and B N x K row-major (so element (i, j) is the
// dot product of row i of A and row j of B); magnitude as gemm_reference_cpu. Pass the BF16 inputs
// widened to float (wb::widen_bf16): every BF16 value is exactly a float.
void gemm_nt_reference_cpu(int M, int N, int K, float alpha, const std::vector<float>& A, const std::vector<float>& B,
                           float beta, const std::vector<float>& C, std::vector<double>& out,
                           std::vector<double>& magnitude);

// The same on the device: cublasSgemm in pedantic FP32 on the widened inputs (products of BF16 values
// are exact in FP32, so only the additions round, to nearest). Column-major, row-major C = A B^T is
// C^T (N x M) = B (N x K) * A^T (K x M): B is the column-major K x N matrix B^T, transposed back.
void gemm_nt_reference_cublas(cublasHandle_t handle, int M, int N, int K, float alpha, const float* A, const float* B,
                              float beta, float* C, cudaStream_t stream);

}  // namespace p1
