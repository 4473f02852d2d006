// SPDX-License-Identifier: MIT
// workbook_gpu_probe: what `workbook doctor` needs from the CUDA runtime, as name=value lines, and
// one real kernel launch (common/gpu_probe.cu) built with the project's architectures, so "no
// kernel image is available" shows up here exactly as it would in a lesson. Exit code: that of
// wb::probe_gpu (0 usable, 1 no code for this GPU or launch failed, 77 no usable GPU).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "common/gpu.h"
#if defined(WB_HAVE_NCCL)
#include <nccl.h>
#endif

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
  // Phase 6: each ordered pair of GPUs (up to 8) as access,performance rank,native atomics
  // (cudaDeviceGetP2PAttribute), and the NCCL this build links (ncclGetVersion; no communicator is made).
  for (int a = 0; counted == cudaSuccess && a < count && a < 8; ++a) {
    for (int b = 0; b < count && b < 8; ++b) {
      if (a == b) continue;
      int access = 0, rank = 0, atomics = 0;
      cudaDeviceGetP2PAttribute(&access, cudaDevP2PAttrAccessSupported, a, b);
      cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, a, b);
      cudaDeviceGetP2PAttribute(&atomics, cudaDevP2PAttrNativeAtomicSupported, a, b);
      std::printf("peer_%d_%d=%d,%d,%d\n", a, b, access, rank, atomics);
    }
  }
#if defined(WB_HAVE_NCCL)
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess)
    std::printf("nccl_version=%d.%d.%d\n", nccl >= 10000 ? nccl / 10000 : nccl / 1000,
                nccl >= 10000 ? nccl / 100 % 100 : nccl / 100 % 10, nccl % 100);
#endif
  cudaGetLastError();
  const wb::GpuStatus status = wb::probe_gpu(0);
  std::printf("probe=%s\n", status.message.empty() ? "OK: a test kernel ran on the GPU" : status.message.c_str());
  return status.exit_code;
}
