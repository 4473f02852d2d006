// SPDX-License-Identifier: MIT
// 1.09 tensor_cores: the shared grader under the TF32 tolerance (inputs rounded to 10 mantissa
// bits); the exact-integer half stays exact, since small integers are exact in TF32. Beside the
// standard shapes: tails and whole tiles on the float4 copy, and A + 1 or B + 1 with K and N multiples
// of 4, which only the address check keeps off the float4 copy.
#include "common/testing.h"
#include "phase1_matmul/tests/grading.h"

TEST_CASE("matmul_tensor_core_tf32 computes alpha A B + beta C for every shape", "[p1][1.09][gpu]") {
  const MatmulCase c = GENERATE(Catch::Generators::from_range(standard_matmul_cases()));
  check_matmul("matmul_tensor_core_tf32", matmul_tensor_core_tf32, c, p1::MatmulPrecision::TF32);
}

TEST_CASE("matmul_tensor_core_tf32 handles tails on its float4 path and exact tiles", "[p1][1.09][gpu]") {
  // K % 4 == 0 and N % 4 == 0 take the float4 copy (128 x 128 x 32 tiles): these shapes leave
  // partial block tiles in M and N and a partial last step along K; 256 x 256 x 32 is whole tiles;
  // 129 x 257 x 4 (N odd) takes the scalar copy.
  const MatmulCase c = GENERATE(MatmulCase{200, 260, 36, 1.0f, 0.0f}, MatmulCase{132, 4, 20, -1.0f, 2.0f},
                                MatmulCase{128, 128, 16, 1.0f, 0.0f}, MatmulCase{256, 256, 32, 0.5f, 1.0f},
                                MatmulCase{129, 257, 4, 1.0f, 0.0f});
  check_matmul("matmul_tensor_core_tf32", matmul_tensor_core_tf32, c, p1::MatmulPrecision::TF32);
}

TEST_CASE("matmul_tensor_core_tf32 takes the scalar copy for A or B one float past 16 bytes", "[p1][1.09][gpu]") {
  // K % 4 == 0 and N % 4 == 0 would take the float4 copy, whose loads fault at these addresses
  // ("misaligned address"): A + 1 and B + 1 (a valid matrix each, matmul.cuh) must take the scalar one.
  const MatmulCase c =
      GENERATE(MatmulCase{128, 128, 32, 1.0f, 0.0f, 1, 0, 0}, MatmulCase{200, 260, 36, 1.0f, 0.0f, 1, 0, 0},
               MatmulCase{132, 4, 20, -1.0f, 2.0f, 0, 1, 0}, MatmulCase{256, 256, 32, 0.5f, 1.0f, 0, 1, 0});
  check_matmul("matmul_tensor_core_tf32", matmul_tensor_core_tf32, c, p1::MatmulPrecision::TF32);
}
