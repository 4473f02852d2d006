// SPDX-License-Identifier: MIT
// workbook doctor's text handling: versions, host compiler limits, architectures, WSL, counters.
#include <stdlib.h>

#include <cstdlib>
#include <string>

#include "common/catch.h"
#include "tools/workbook/doctor_checks.h"
#include "tools/workbook/text.h"

using wbcli::Version;

TEST_CASE("tool versions are read from their banners", "[host][workbook]") {
  const std::optional<Version> nvcc = wbcli::parse_nvcc_version(
      "nvcc: NVIDIA (R) Cuda compiler driver\nCopyright (c) 2005-2025 NVIDIA Corporation\n"
      "Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0\n");
  REQUIRE(nvcc.has_value());
  CHECK(nvcc->text() == "13.0.88");
  CHECK(wbcli::parse_cmake_version("cmake version 3.25.1\n\nCMake suite maintained by Kitware")->minor == 25);
  CHECK(*wbcli::parse_cmake_version("cmake version 3.22.1") < Version{3, 25, 0});
  CHECK(wbcli::parse_dotted_version("13\n")->major == 13);
  CHECK(wbcli::parse_dotted_version("14.2.0")->minor == 2);
  const std::string smi = "| NVIDIA-SMI 580.159.04   Driver Version: 580.159.04   CUDA Version: 13.0     |";
  CHECK(wbcli::parse_driver_cuda_version(smi)->text() == "13.0");
  CHECK(wbcli::decode_cuda_version(12040).text() == "12.4");
  CHECK(wbcli::decode_cuda_version(13000).text() == "13.0");
  CHECK_FALSE(wbcli::parse_nvcc_version("command not found").has_value());
}

TEST_CASE("the newest host compiler each CUDA release accepts", "[host][workbook]") {
  CHECK(wbcli::newest_gcc_for_cuda(Version{12, 4, 0}) == 13);
  CHECK(wbcli::newest_gcc_for_cuda(Version{12, 8, 0}) == 14);
  CHECK(wbcli::newest_gcc_for_cuda(Version{13, 0, 0}) == 15);
  CHECK(wbcli::newest_clang_for_cuda(Version{12, 4, 0}) == 17);
}

TEST_CASE("does the build have code for this GPU", "[host][workbook]") {
  CHECK(wbcli::architectures_cover("75;80;86;89;90", 90));
  CHECK(wbcli::architectures_cover("90", 90));
  CHECK_FALSE(wbcli::architectures_cover("90", 86));            // sm_90 SASS does not run on sm_86
  CHECK(wbcli::architectures_cover("80-real;80-virtual", 89));  // PTX for 8.0 is JIT-compiled on 8.9
  CHECK_FALSE(wbcli::architectures_cover("86-real", 90));
  CHECK(wbcli::architectures_cover("86", 89));  // "86" carries PTX as well
  CHECK(wbcli::architectures_cover("native", 75));
}

TEST_CASE("WSL, profiling permission and the CMake cache", "[host][workbook]") {
  CHECK(wbcli::is_wsl("Linux version 5.15.153.1-microsoft-standard-WSL2 (root@1c602f52c2e4)"));
  CHECK_FALSE(wbcli::is_wsl("Linux version 6.8.0-45-generic (buildd@lcy02-amd64-075)"));
  CHECK(wbcli::profiling_restricted("ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 1\n") == true);
  CHECK(wbcli::profiling_restricted("RmProfilingAdminOnly: 0\n") == false);
  CHECK_FALSE(wbcli::profiling_restricted("").has_value());
  const std::string cache = "//comment\nCMAKE_CUDA_ARCHITECTURES:STRING=90\nCatch2_DIR:PATH=/usr/lib/cmake/Catch2\n";
  CHECK(wbcli::cmake_cache_value(cache, "CMAKE_CUDA_ARCHITECTURES") == "90");
  CHECK(wbcli::cmake_cache_value(cache, "Catch2_DIR") == "/usr/lib/cmake/Catch2");
  CHECK_FALSE(wbcli::cmake_cache_value(cache, "MISSING").has_value());
}

TEST_CASE("nvidia-smi's compute capability and name, for which rungs the GPU runs", "[host][workbook]") {
  const std::optional<wbcli::GpuQuery> h100 = wbcli::parse_gpu_query("9.0, NVIDIA H100 80GB HBM3\n");
  REQUIRE(h100.has_value());
  CHECK(h100->cc == 90);
  CHECK(h100->name == "NVIDIA H100 80GB HBM3");
  // The first GPU listed; a bare number works too.
  CHECK(wbcli::parse_gpu_query("8.9, NVIDIA GeForce RTX 4090\n8.6, NVIDIA RTX A6000\n")->cc == 89);
  CHECK(wbcli::parse_gpu_query("12.0\n")->cc == 120);
  CHECK_FALSE(wbcli::parse_gpu_query("").has_value());
  CHECK_FALSE(
      wbcli::parse_gpu_query("NVIDIA-SMI has failed because it couldn't communicate with the driver").has_value());
}

TEST_CASE("an NVIDIA GPU on the PCI bus tells a missing driver from a machine without a GPU", "[host][workbook]") {
  char dir[] = "/tmp/wb_pci_XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  const std::string root = dir;
  auto device = [&root](const std::string& slot, const std::string& vendor, const std::string& klass) {
    REQUIRE(wbcli::make_directories(root + "/" + slot));
    REQUIRE(wbcli::write_file(root + "/" + slot + "/vendor", vendor + "\n"));
    REQUIRE(wbcli::write_file(root + "/" + slot + "/class", klass + "\n"));
  };
  CHECK_FALSE(wbcli::pci_lists_nvidia_gpu(root + "/missing"));
  device("0000:00:02.0", "0x8086", "0x030000");  // an Intel display controller
  device("0000:00:1f.3", "0x10de", "0x040300");  // an NVIDIA audio function, not a GPU
  CHECK_FALSE(wbcli::pci_lists_nvidia_gpu(root));
  device("0000:17:00.0", "0x10de", "0x030200");  // an NVIDIA 3D controller (H100, A100, T4)
  CHECK(wbcli::pci_lists_nvidia_gpu(root));
  CHECK(std::system(("rm -rf " + root).c_str()) == 0);
}
