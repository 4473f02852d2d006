// SPDX-License-Identifier: MIT
// A grader that passes a wrong kernel is the worst bug of a course: plant each bug the phase 1
// grader claims to diagnose and check that it fails, with the sentence that names the bug, while a
// correct kernel passes on exact and random inputs (including the cuBLAS-referenced 1000^3).
#include <string>
#include <vector>

#include "common/testing.h"
#include "phase1_matmul/tests/grading.h"
#include "phase1_matmul/tests/wrong_kernels.h"

namespace {

struct Plant {
  const char* what;
  MatmulLauncher launch;
  MatmulCase shape;
  bool exact;
  const char* diagnosis;  // "" = the grader must accept it
};

}  // namespace

TEST_CASE("the phase 1 grader accepts a correct kernel and names every planted bug", "[gpu][grader][p1]") {
  const std::vector<Plant> plants = {
      {"a correct kernel, exact inputs", planted_correct, {127, 129, 65, 2.0f, -1.0f}, true, ""},
      {"a correct kernel, random inputs", planted_correct, {127, 129, 65, 2.0f, -1.0f}, false, ""},
      {"a correct kernel, random inputs against cuBLAS", planted_correct, {1000, 1000, 1000, 0.5f, 2.0f}, false, ""},
      {"a correct kernel with K = 0", planted_correct, {17, 19, 0, 1.0f, 0.5f}, true, ""},
      {"skipping the last partial tile of rows",
       planted_skips_tail_rows,
       {127, 129, 65, 1.0f, 0.0f},
       true,
       "Wrong only where row >= 96"},
      {"reading C when beta = 0",
       planted_reads_c_when_beta_zero,
       {31, 33, 17, 1.0f, 0.0f},
       true,
       "beta = 0 must not read C"},
      {"ignoring beta",
       planted_ignores_beta,
       {33, 31, 65, -1.5f, 0.5f},
       true,
       "the kernel overwrote C instead of adding beta * C"},
      {"dropping the last k term (exact inputs)",
       planted_drops_last_k,
       {64, 64, 64, 1.0f, 0.0f},
       true,
       "The wrong elements are spread over C"},
      {"dropping the last k term (random inputs)",
       planted_drops_last_k,
       {64, 64, 64, 1.0f, 0.0f},
       false,
       "values are wrong"},
      {"writing one element past the end of C",
       planted_writes_past_end,
       {31, 33, 17, 1.0f, 0.0f},
       true,
       "wrote past the end"},
  };
  for (const Plant& p : plants) {
    INFO("planted: " << p.what);
    const std::string verdict =
        grade_matmul("planted", p.launch, p.shape, p1::MatmulPrecision::FP32, p.exact, wb::test::seed());
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}

// The bugs the plain grader cannot see, each its own case so that CTest can run compute-sanitizer on
// it alone (gpu.p1.sanitizer-*, workbook_sanitizer_catches). Their results are right, so the grader
// passes them: checked here; the sanitizer tests prove the grade's runs fail them.
namespace {
void check_passes_plain_grader(MatmulLauncher launch) {
  for (const MatmulCase& shape : {MatmulCase{31, 33, 17, 1.0f, 0.0f}, MatmulCase{1, 1, 1, 2.0f, 0.5f}}) {
    INFO("shape " << shape.M << "x" << shape.N << "x" << shape.K);
    CHECK(grade_matmul("planted", launch, shape, p1::MatmulPrecision::FP32, true, wb::test::seed()).empty());
  }
}
}  // namespace

TEST_CASE("a correct one-warp tiled kernel passes the plain grader", "[gpu][grader][p1]") {
  check_passes_plain_grader(planted_tiled_correct);
}

TEST_CASE("planted race: a one-warp tile without barriers passes the plain grader", "[gpu][grader][p1][planted-race]") {
  check_passes_plain_grader(planted_tiled_no_barrier);
}

TEST_CASE("planted over-read: tile loads past the end of A and B, zeroed, pass the plain grader",
          "[gpu][grader][p1][planted-overread]") {
  check_passes_plain_grader(planted_tiled_reads_past_end_masked);
}

// ---- BF16 (1.10-1.14) ---------------------------------------------------------------------------------
namespace {
void check_bf16_plants(const std::vector<Bf16Plant>& plants) {
  for (const Bf16Plant& p : plants) {
    INFO("planted: " << p.what);
    const std::string verdict = grade_matmul_bf16("planted", p.launch, p.shape, p.exact, wb::test::seed());
    INFO("grader said: " << verdict);
    if (std::string(p.diagnosis).empty()) {
      CHECK(verdict.empty());
    } else {
      CHECK(verdict.find(p.diagnosis) != std::string::npos);
    }
  }
}
}  // namespace

TEST_CASE("the BF16 grader accepts a correct kernel and the fallback, and names every planted bug",
          "[gpu][grader][p1][bf16]") {
  const std::vector<Bf16Plant> plants = {
      {"a correct kernel, exact inputs", planted_bf16_correct, {127, 129, 136, 2.0f, -1.0f}, true, ""},
      {"a correct kernel, random inputs", planted_bf16_correct, {127, 129, 136, 2.0f, -1.0f}, false, ""},
      {"a correct kernel, random inputs against cuBLAS",
       planted_bf16_correct,
       {1000, 1000, 1000, 0.5f, 2.0f},
       false,
       ""},
      {"a correct kernel with K = 0", planted_bf16_correct, {17, 19, 0, 1.0f, 0.5f}, true, ""},
      {"a correct kernel on A + 1", planted_bf16_correct, {65, 63, 64, 1.0f, 0.0f, 1, 0}, false, ""},
      {"the fallback, exact inputs, K % 8 != 0", matmul_bf16_fallback, {33, 17, 13, 1.0f, 0.0f}, true, ""},
      {"the fallback, random inputs", matmul_bf16_fallback, {129, 127, 264, 2.0f, -1.0f}, false, ""},
      {"the fallback on B + 1", matmul_bf16_fallback, {63, 65, 64, 2.0f, -1.0f, 0, 1}, false, ""},
      {"the fallback with K = 0 and beta = 0 (NaN in C)", matmul_bf16_fallback, {17, 19, 0, 1.0f, 0.0f}, true, ""},
      {"dropping the partial last K tile (exact inputs)",
       planted_bf16_drops_k_tail,
       {63, 65, 72, 1.0f, 0.0f},
       true,
       "the sum over k < 64 only"},
      {"dropping the partial last K tile (random inputs)",
       planted_bf16_drops_k_tail,
       {63, 65, 72, 1.0f, 0.0f},
       false,
       "values are wrong"},
      {"reading C when beta = 0",
       planted_bf16_reads_c_when_beta_zero,
       {31, 33, 24, 1.0f, 0.0f},
       true,
       "beta = 0 must not read C"},
      {"reading B as K x N", planted_bf16_b_as_kxn, {64, 48, 32, 1.0f, 0.0f}, true, "B read as K x N"},
      {"skipping the last partial tile of columns",
       planted_bf16_skips_tail_cols,
       {65, 129, 72, 1.0f, 0.0f},
       true,
       "Wrong only where column >= 128"},
  };
  check_bf16_plants(plants);
}

// The Hopper rungs' planted bugs (tests/wrong_kernels_hopper.cu, sm_90a code): only a Hopper GPU runs them.
TEST_CASE("the BF16 grader names the Hopper rungs' planted bugs", "[gpu][grader][p1][bf16][hopper]") {
  int major = 0, minor = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  std::vector<Bf16Plant> plants = hopper_bf16_plants();
  for (const Bf16Plant& p : cluster_bf16_plants()) plants.push_back(p);
  if (major * 10 + minor != 90) {
    WARN("sm_" << major << minor << " is not Hopper: the " << plants.size() << " sm_90a planted bugs are not run");
    return;
  }
  if (plants.empty()) WARN("no Hopper planted bugs yet (phase1_matmul/tests/wrong_kernels_hopper.cu)");
  check_bf16_plants(plants);
}

// Not in the suite ([.race], run by hand on a Hopper GPU): how often one graded run catches a stage
// refilled before the wgmma that read it finished. The grade relies on tools/hopper_order_check.py
// for this bug; this measures why.
TEST_CASE("how often a run catches a stage refilled before its wgmma finished", "[.race][gpu][p1][hopper]") {
  int major = 0, minor = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  if (major * 10 + minor != 90) return;
  const std::vector<Bf16MatmulCase> shapes = {{256, 256, 4096, 1.0f, 0.0f}, {2048, 2048, 2048, 1.0f, 0.0f}};
  for (const Bf16MatmulCase& shape : shapes) {
    constexpr int kRuns = 10;
    int caught = 0;
    for (int r = 0; r < kRuns; ++r)
      caught +=
          grade_matmul_bf16("planted", planted_hopper_early_refill, shape, false, wb::test::seed() + r).empty() ? 0 : 1;
    WARN("early refill at " << shape.M << "x" << shape.N << "x" << shape.K << ": caught by " << caught << " of "
                            << kRuns << " graded runs");
  }
}

// 1.14's plants whose bounded wait stops the kernel: the trap loses the GPU context, so each runs in a
// process of its own, hidden from the suite and run by name (CTest gpu.p1.grader-cluster-mask and
// gpu.p1.grader-cluster-release). Each must fail "while running", within seconds, instead of hanging.
namespace {
void check_stopping_plant(std::size_t index) {
  int major = 0, minor = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  if (major * 10 + minor != 90) {
    WARN("sm_" << major << minor << " is not Hopper: the cluster plant is not run");
    return;
  }
  check_bf16_plants({cluster_stopping_plants().at(index)});
}
}  // namespace

TEST_CASE("planted stop: a multicast mask that leaves out the peer fails while running",
          "[.][gpu][p1][hopper][planted-cluster-mask]") {
  check_stopping_plant(0);
}

TEST_CASE("planted stop: a stage released in this block only fails while running",
          "[.][gpu][p1][hopper][planted-cluster-release]") {
  check_stopping_plant(1);
}

// Not in the suite ([.race], run by hand on a Hopper GPU): how often one graded run catches blocks
// that exit without the cluster barrier. The grade relies on tools/hopper_order_check.py for this bug.
TEST_CASE("how often a run catches a cluster without the barrier before exit", "[.race][gpu][p1][hopper]") {
  int major = 0, minor = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
  if (major * 10 + minor != 90) return;
  const Bf16MatmulCase shape{2048, 2048, 2048, 1.0f, 0.0f};
  constexpr int kRuns = 10;
  int caught = 0;
  for (int r = 0; r < kRuns; ++r)
    caught +=
        grade_matmul_bf16("planted", planted_cluster_no_exit_sync, shape, false, wb::test::seed() + r).empty() ? 0 : 1;
  WARN("no cluster barrier before exit at 2048^3: caught by " << caught << " of " << kRuns << " graded runs");
}
