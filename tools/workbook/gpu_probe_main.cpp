// SPDX-License-Identifier: MIT
// workbook_gpu_probe: what `workbook doctor` needs from the CUDA runtime, as name=value lines, and
// one real kernel launch (common/gpu_probe.cu) built with the project's architectures, so "no
// kernel image is available" shows up here exactly as it would in a lesson. Exit code: that of
// wb::probe_gpu (0 usable, 1 no code for this GPU or launch failed, 77 no usable GPU).
#include <cuda_runtime.h>

#include <cstdio>

#include "common/gpu.h"

int main() {
  int driver = 0, runtime = 0, count = 0;
  cudaDriverGetVersion(&driver);
  cudaRuntimeGetVersion(&runtime);
  const cudaError_t counted = cudaGetDeviceCount(&count);
  std::printf("driver_version=%d\nruntime_version=%d\n", driver, runtime);
  std::printf("device_count_error=%s\n", counted == cudaSuccess ? "none" : cudaGetErrorName(counted));
  std::printf("device_count=%d\n", counted == cudaSuccess ? count : 0);
  if (counted == cudaSuccess && count > 0) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
      std::printf("device_name=%s\ncompute_capability=%d%d\n", prop.name, prop.major, prop.minor);
  }
  cudaGetLastError();
  const wb::GpuStatus status = wb::probe_gpu(0);
  std::printf("probe=%s\n", status.message.empty() ? "OK: a test kernel ran on the GPU" : status.message.c_str());
  return status.exit_code;
}
