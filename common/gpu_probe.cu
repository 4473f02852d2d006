// SPDX-License-Identifier: MIT
#include <cstdio>
#include <string>

#include "common/arch_requirement.h"
#include "common/gpu.h"

namespace wb {
namespace {

__global__ void probe_kernel() {}

std::string sm_name(int major, int minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

}  // namespace

GpuStatus probe_gpu(int device) {
  GpuStatus status;
  int count = 0;
  const cudaError_t counted = cudaGetDeviceCount(&count);
  if (counted != cudaSuccess || count <= device) {
    cudaGetLastError();
    // cudaErrorInsufficientDriver is also what a machine without any NVIDIA driver answers.
    const std::string why = counted == cudaErrorInsufficientDriver ? "no NVIDIA driver, or one older than this CUDA"
                            : counted != cudaSuccess               ? cudaGetErrorName(counted)
                                                                   : "0 devices";
    status.message = "SKIPPED: no CUDA GPU visible (" + why +
                     "): lessons and GPU tests need an NVIDIA GPU of compute capability 7.5 or newer";
    return status;
  }
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (major * 10 + minor < 75) {
    status.message = "SKIPPED: the GPU is " + sm_name(major, minor) + "; the workbook needs sm_75 or newer";
    return status;
  }
  cudaSetDevice(device);
  probe_kernel<<<1, 1>>>();
  cudaError_t launched = cudaGetLastError();
  if (launched == cudaSuccess) launched = cudaDeviceSynchronize();
  if (launched != cudaSuccess) {
    status.exit_code = kExitFail;
    status.message = std::string("FAILED: a test kernel did not run on this GPU (") + cudaGetErrorName(launched) +
                     ": " + cudaGetErrorString(launched) + ")";
    if (launched == cudaErrorNoKernelImageForDevice || launched == cudaErrorUnsupportedPtxVersion) {
      status.message += ". This build has no code for " + sm_name(major, minor) +
                        ": reconfigure with -DCMAKE_CUDA_ARCHITECTURES=" + std::to_string(major * 10 + minor);
    }
    return status;
  }
  // An exercise that needs a newer GPU (1.10 sm_80, 1.11-1.14 and 5.08 Hopper) skips here, never fails.
  const ArchRequirement* need = registered_arch_requirement();
  if (need != nullptr && !arch_requirement_met(need->arch, major * 10 + minor)) {
    status.message = "SKIPPED: " + arch_requirement_unmet(need->id, need->name, need->arch, major * 10 + minor);
    return status;
  }
  status.usable = true;
  status.exit_code = kExitPass;
  return status;
}

}  // namespace wb
