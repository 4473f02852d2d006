// SPDX-License-Identifier: MIT
// Graded tests for 1.06 vectorized: the shared SGEMM grader (K = 65, 17, 1 and N = 129, 33, 31 take
// the scalar path, 64^3, 1000^3 and 4096^3 the float4 path), plus operands that sit 4 bytes past a
// 16-byte boundary although K and N are multiples of 4: only the address check keeps float4 off them.
#include <cstddef>
#include <vector>

#include "common/buffer.h"
#include "common/check.h"
#include "common/testing.h"
#include "phase1_matmul/tests/grading.h"

TEST_CASE("matmul_vectorized computes alpha A B + beta C for every shape", "[p1][1.06][gpu]") {
  const MatmulCase c = GENERATE(Catch::Generators::from_range(standard_matmul_cases()));
  check_matmul("matmul_vectorized", matmul_vectorized, c);
}

namespace {

// Calls matmul_vectorized on copies of the chosen operands that start one float past an aligned
// address (cudaMalloc aligns to 256 bytes): the same matrices, at addresses where a float4 access
// fails with "misaligned address".
template <bool SHIFT_A, bool SHIFT_B, bool SHIFT_C>
void matmul_vectorized_shifted(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C,
                               cudaStream_t stream) {
  const std::size_t a_count = std::size_t(M) * K, b_count = std::size_t(K) * N, c_count = std::size_t(M) * N;
  wb::DeviceBuffer<float> a(a_count + 1), b(b_count + 1), c(c_count + 1);
  const auto copy = [](float* to, const float* from, std::size_t count) {
    CUDA_CHECK(cudaMemcpy(to, from, count * sizeof(float), cudaMemcpyDeviceToDevice));
  };
  if (SHIFT_A) copy(a.data() + 1, A, a_count);
  if (SHIFT_B) copy(b.data() + 1, B, b_count);
  if (SHIFT_C) copy(c.data() + 1, C, c_count);
  matmul_vectorized(M, N, K, alpha, SHIFT_A ? a.data() + 1 : A, SHIFT_B ? b.data() + 1 : B, beta,
                    SHIFT_C ? c.data() + 1 : C, stream);
  if (SHIFT_C) copy(C, c.data() + 1, c_count);  // the legacy default stream orders it after the kernel
}

}  // namespace

TEST_CASE("matmul_vectorized falls back to scalar accesses for pointers that are not 16-byte aligned",
          "[p1][1.06][gpu]") {
  // K and N are multiples of 4, so only the address check tells these operands from aligned ones.
  const MatmulCase c = GENERATE(MatmulCase{64, 64, 64, 1.0f, 0.0f}, MatmulCase{127, 132, 68, 2.0f, -1.0f});
  check_matmul("matmul_vectorized with A misaligned", matmul_vectorized_shifted<true, false, false>, c);
  check_matmul("matmul_vectorized with B misaligned", matmul_vectorized_shifted<false, true, false>, c);
  check_matmul("matmul_vectorized with C misaligned", matmul_vectorized_shifted<false, false, true>, c);
}
