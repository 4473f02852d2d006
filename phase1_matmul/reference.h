// SPDX-License-Identifier: MIT
// Phase 1 references, shared by lessons and graded tests and kept out of the files learners edit:
// a CPU GEMM in double, cuBLAS in pedantic FP32, the tolerance rule, and exactly-multipliable inputs.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/verify.h"

// How the kernel under test rounds its inputs: FP32 keeps them, TF32 rounds each to 10 mantissa bits.
enum class MatmulPrecision { FP32, TF32 };

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
