// SPDX-License-Identifier: MIT
// compute-sanitizer output, captured in the formats the 2023-2025 releases print (memcheck,
// racecheck, initcheck, synccheck, API errors), turned into one sentence per finding.
#include "tools/workbook/sanitizer.h"

#include "common/catch.h"

namespace {

const char* kMemcheckOutOfBounds = R"txt(========= COMPUTE-SANITIZER
Randomness seeded to: 1234
========= Invalid __global__ write of size 4 bytes
=========     at vector_add_kernel(const float *, const float *, float *, int)+0x1b0 in /home/me/cuda-workbook/phase0_basics/02_vector_add.cu:42
=========     by thread (37,0,0) in block (2,0,0)
=========     Address 0x7f3c5e00a100 is out of bounds
=========     and is 4 bytes after the nearest allocation at 0x7f3c5e000000 of size 41,216 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: [0x2f5d5f] in libcuda.so.1
=========         Host Frame: [0x1403e] in p0_02_vector_add_test
=========
========= Invalid __global__ write of size 4 bytes
=========     at vector_add_kernel(const float *, const float *, float *, int)+0x1b0 in /home/me/cuda-workbook/phase0_basics/02_vector_add.cu:42
=========     by thread (38,0,0) in block (2,0,0)
=========     Address 0x7f3c5e00a104 is out of bounds
=========     and is 8 bytes after the nearest allocation at 0x7f3c5e000000 of size 41,216 bytes
=========
========= Program hit cudaErrorLaunchFailure (error 719) due to "unspecified launch failure" on CUDA API call to cudaStreamSynchronize.
=========     Saved host backtrace up to driver entry point at error
=========
========= ERROR SUMMARY: 3 errors
)txt";

const char* kMemcheckSharedAndMisaligned = R"txt(========= Invalid __shared__ read of size 4 bytes
=========     at void transpose_tiled_kernel<32>(const float *, float *, int, int)+0x2c0 in transpose.cu:57
=========     by thread (3,1,0) in block (4,2,0)
=========     Address 0x1100 is out of bounds
=========
========= Invalid __global__ read of size 16 bytes
=========     at relu_float4_kernel(const float *, float *, long)+0x90 in /src/phase2_elementwise/03_vectorized.cu:30
=========     by thread (0,0,0) in block (0,0,0)
=========     Address 0x7f0000000104 is misaligned
=========     and is inside the nearest allocation at 0x7f0000000000 of size 4,096 bytes
=========
========= Invalid __global__ read of size 4 bytes
=========     at 0x70 in /src/old.cu:12:old_kernel(float*)
=========     by thread (5,0,0) in block (0,0,0)
=========     Address 0x10 is out of bounds
=========
========= ERROR SUMMARY: 3 errors
)txt";

const char* kRacecheck = R"txt(========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at block_reduce_kernel(const float *, float *, int)+0x1c0 in /src/phase0_basics/08_block_reduce.cu:61
=========     and Read access at block_reduce_kernel(const float *, float *, int)+0x210 in /src/phase0_basics/08_block_reduce.cu:66 [248 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)
)txt";

const char* kRacecheckWarpWarning =
    R"txt(========= Warning: Race reported between Write access at planted_kernel(const float *, float *)+0x2a0 in /src/wrong_kernels.cu:70
=========     and Read access at planted_kernel(const float *, float *)+0x2b0 in /src/wrong_kernels.cu:71 [62 hazards]
=========
========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)
)txt";

const char* kInitAndSync = R"txt(========= Uninitialized __global__ memory read of size 4 bytes
=========     at scale_kernel(const float *, float *, int)+0x80 in /src/s.cu:20
=========     by thread (0,0,0) in block (1,0,0)
=========     Address 0x7f1000000400
=========
========= Barrier error detected. Divergent thread(s) in warp
=========     at reduce_kernel(const float *, float *, int)+0x350 in /src/r.cu:44
=========     by thread (0,0,0) in block (0,0,0)
=========
========= ERROR SUMMARY: 2 errors
)txt";

std::string lookup(const std::string& file, int line) {
  if (file.find("02_vector_add.cu") != std::string::npos && line == 42)
    return "    c[i + n / 2] = a[i] + b[i];  // planted: writes past the end";
  if (file.find("transpose.cu") != std::string::npos)
    return "  out[y * rows + x] = tile[threadIdx.x][threadIdx.y + 40];";
  if (file.find("03_vectorized.cu") != std::string::npos)
    return "  const float4 v = reinterpret_cast<const float4*>(in)[i];";
  return "";
}

}  // namespace

TEST_CASE("memcheck: a write past the end names thread, block, array and line", "[host][workbook]") {
  const std::vector<wbcli::SanitizerFinding> raw = wbcli::parse_sanitizer_output(kMemcheckOutOfBounds);
  REQUIRE(raw.size() == 3);
  CHECK(raw[0].kind == wbcli::FindingKind::InvalidAccess);
  CHECK(raw[0].access == "write");
  CHECK(raw[0].size_bytes == 4);
  CHECK(raw[0].line == 42);
  CHECK(raw[0].thread.x == 37);
  CHECK(raw[0].block.x == 2);
  CHECK(raw[0].relation == "after");
  CHECK(raw[0].distance_bytes == 4);
  CHECK(raw[0].allocation_bytes == 41216);
  CHECK(raw[2].kind == wbcli::FindingKind::ApiError);
  CHECK(raw[2].error_name == "cudaErrorLaunchFailure");
  CHECK(raw[2].api_call == "cudaStreamSynchronize");

  const std::vector<wbcli::SanitizerFinding> folded = wbcli::fold_findings(raw);
  REQUIRE(folded.size() == 2);
  CHECK(folded[0].repeats == 2);
  const std::string sentence = wbcli::explain_finding(folded[0], lookup);
  INFO(sentence);
  CHECK(sentence.rfind("thread 37 of block 2 wrote 4 bytes past the end of `c` at 02_vector_add.cu:42", 0) == 0);
  CHECK(sentence.find("1 more reports at the same line") != std::string::npos);
  CHECK(sentence.find("[in vector_add_kernel]") != std::string::npos);
  // The launch failures that follow a stopped kernel fold into one note.
  CHECK(wbcli::explain_finding(folded[1], lookup).find("after that, 1 CUDA call failed with cudaErrorLaunchFailure") ==
        0);
}

TEST_CASE("memcheck: shared memory, misaligned vectors and the older location format", "[host][workbook]") {
  const std::vector<wbcli::SanitizerFinding> f = wbcli::parse_sanitizer_output(kMemcheckSharedAndMisaligned);
  REQUIRE(f.size() == 3);
  CHECK(f[0].space == "shared");
  CHECK(f[0].kernel == "void transpose_tiled_kernel<32>(const float *, float *, int, int)");
  const std::string shared = wbcli::explain_finding(f[0], lookup);
  INFO(shared);
  CHECK(shared.find("thread (3,1,0) of block (4,2,0) read 4 bytes outside the shared-memory array `tile` at "
                    "transpose.cu:57") == 0);
  CHECK(shared.find("[in transpose_tiled_kernel<32>]") != std::string::npos);
  CHECK(f[1].misaligned);
  const std::string misaligned = wbcli::explain_finding(f[1], lookup);
  CHECK(misaligned.find("misaligned address (not a multiple of 16 bytes) through `in` at 03_vectorized.cu:30") !=
        std::string::npos);
  CHECK(f[2].file == "/src/old.cu");
  CHECK(f[2].line == 12);
  CHECK(f[2].kernel == "old_kernel(float*)");
  CHECK(wbcli::explain_finding(f[2], nullptr).find("an address no allocation covers, at old.cu:12") !=
        std::string::npos);
}

TEST_CASE("racecheck: both sides of the race and the hazard count", "[host][workbook]") {
  const std::vector<wbcli::SanitizerFinding> f = wbcli::parse_sanitizer_output(kRacecheck);
  REQUIRE(f.size() == 1);
  CHECK(f[0].kind == wbcli::FindingKind::Race);
  CHECK(f[0].line == 61);
  CHECK(f[0].other_line == 66);
  CHECK(f[0].hazards == 248);
  const std::string sentence = wbcli::explain_finding(f[0], nullptr);
  CHECK(sentence.find("a write at 08_block_reduce.cu:61 and a read at 08_block_reduce.cu:66") != std::string::npos);
  CHECK(sentence.find("no __syncthreads()") != std::string::npos);
  CHECK(sentence.find("(248 hazards)") != std::string::npos);
}

TEST_CASE("racecheck: a race inside one warp is a warning that names __syncwarp", "[host][workbook]") {
  const std::vector<wbcli::SanitizerFinding> f = wbcli::parse_sanitizer_output(kRacecheckWarpWarning);
  REQUIRE(f.size() == 1);
  CHECK(f[0].kind == wbcli::FindingKind::Race);
  CHECK(f[0].warning);
  const std::string sentence = wbcli::explain_finding(f[0], nullptr);
  CHECK(sentence.find("threads of one warp race") != std::string::npos);
  CHECK(sentence.find("no __syncwarp()") != std::string::npos);
  CHECK(sentence.find("(62 hazards)") != std::string::npos);
}

TEST_CASE("initcheck and synccheck findings", "[host][workbook]") {
  const std::vector<wbcli::SanitizerFinding> f = wbcli::parse_sanitizer_output(kInitAndSync);
  REQUIRE(f.size() == 2);
  CHECK(f[0].kind == wbcli::FindingKind::Uninitialized);
  CHECK(wbcli::explain_finding(f[0], nullptr)
            .find("thread 0 of block 1 read 4 bytes of global memory that nothing "
                  "had written yet, at s.cu:20") == 0);
  CHECK(f[1].kind == wbcli::FindingKind::Barrier);
  CHECK(wbcli::explain_finding(f[1], nullptr).find("a __syncthreads() at r.cu:44 is reached by only some threads") ==
        0);
}

TEST_CASE("clean runs and lines without -lineinfo", "[host][workbook]") {
  CHECK(wbcli::parse_sanitizer_output("========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n").empty());
  const std::vector<wbcli::SanitizerFinding> f = wbcli::parse_sanitizer_output(
      "========= Invalid __global__ write of size 4 bytes\n=========     at k(float*)+0x30\n"
      "=========     by thread (1,0,0) in block (0,0,0)\n=========     Address 0x7f00 is out of bounds\n"
      "=========     and is 1,024 bytes after the nearest allocation at 0x7e00 of size 256 bytes\n");
  REQUIRE(f.size() == 1);
  CHECK(wbcli::explain_finding(f[0], nullptr).find("(no line number: build with -lineinfo)") != std::string::npos);
}

TEST_CASE("an API error without a device finding stays itself; anonymous namespaces are dropped", "[host][workbook]") {
  const std::vector<wbcli::SanitizerFinding> api = wbcli::fold_findings(wbcli::parse_sanitizer_output(
      "========= Program hit cudaErrorInvalidConfiguration (error 9) due to \"invalid configuration argument\" on "
      "CUDA API call to cudaLaunchKernel.\n"));
  REQUIRE(api.size() == 1);
  CHECK(wbcli::explain_finding(api[0], nullptr).find("cudaLaunchKernel failed with cudaErrorInvalidConfiguration") !=
        std::string::npos);
  // As CUDA 13's memcheck prints a kernel in an anonymous namespace, with only the file name.
  const std::vector<wbcli::SanitizerFinding> f = wbcli::parse_sanitizer_output(
      "========= Invalid __global__ write of size 4 bytes\n"
      "=========     at <unnamed>::vector_add_kernel(const float *, const float *, float *, unsigned long)+0x1d0 in "
      "02_vector_add.cu:33\n"
      "=========     by thread (0,0,0) in block (0,0,0)\n"
      "=========     Address 0x7f2a4e000804 is out of bounds\n"
      "=========     and is 1 bytes after the nearest allocation at 0x7f2a4e000000 of size 8,196 bytes\n");
  REQUIRE(f.size() == 1);
  CHECK(f[0].file == "02_vector_add.cu");
  const std::string sentence = wbcli::explain_finding(
      f[0], [](const std::string&, int) { return std::string("    c[i + n + 1024] = a[i] + b[i];  // planted"); });
  INFO(sentence);
  CHECK(sentence.find("thread 0 of block 0 wrote 4 bytes past the end of `c` at 02_vector_add.cu:33 (1 byte after the "
                      "end of an allocation of 8196 bytes)") == 0);
  CHECK(sentence.find("[in vector_add_kernel]") != std::string::npos);
}

TEST_CASE("the array a source line indexes", "[host][workbook]") {
  CHECK(wbcli::indexed_array_name("out[i] = a[i] + b[i];", true) == "out");
  CHECK(wbcli::indexed_array_name("out[i] = a[i] + b[i];", false) == "a` or `b");
  CHECK(wbcli::indexed_array_name("  sum += x[i]; // x[i] comment", false) == "x");
  CHECK(wbcli::indexed_array_name("if (x[i] == y[j]) z[k] = 1;", true) == "z");
  CHECK(wbcli::indexed_array_name("reinterpret_cast<float4*>(out)[i] = v;", true) == "out");
  CHECK(wbcli::indexed_array_name("return;", true).empty());
}
