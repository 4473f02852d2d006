// SPDX-License-Identifier: MIT
// CUDA_CHECK / CUDA_CHECK_KERNEL: every CUDA call is checked, and a failure names the call,
// file:line, the error's name and its description. Errors are thrown as wb::CudaError so that a
// graded test reports them as a failure (never a crash) and a lesson exits with status 1.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace wb {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& message) : std::runtime_error(message), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

// "CUDA error cudaErrorInvalidValue (invalid argument) in `cudaMemcpy(...)` at file.cu:42"
inline std::string format_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  return std::string("CUDA error ") + cudaGetErrorName(code) + " (" + cudaGetErrorString(code) + ") in `" + call +
         "` at " + file + ":" + std::to_string(line);
}

// One sentence on the likely cause, for the errors learners meet first.
inline const char* cuda_error_hint(cudaError_t code) {
  switch (code) {
    case cudaErrorInvalidConfiguration:
      return "the launch configuration is invalid: more than 1024 threads per block, a zero-sized grid or "
             "block, or too much shared memory";
    case cudaErrorIllegalAddress:
      return "a kernel read or wrote outside its buffers: check the bounds guard, then run compute-sanitizer";
    case cudaErrorLaunchTimeout:
      return "a kernel ran too long (an infinite loop, or a __syncthreads/__shfl_sync that not all threads reach)";
    case cudaErrorMemoryAllocation:
      return "the GPU is out of memory: try a smaller --size";
    case cudaErrorNoKernelImageForDevice:
      return "this build has no code for your GPU: reconfigure with -DCMAKE_CUDA_ARCHITECTURES=<your sm>";
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
      return "no usable GPU: check nvidia-smi and that the driver is at least as new as the toolkit";
    default:
      return nullptr;
  }
}

[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  std::string message = format_cuda_error(code, call, file, line);
  if (const char* hint = cuda_error_hint(code)) message += ": " + std::string(hint);
  throw CudaError(code, message);
}

inline void check_cuda(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, call, file, line);
}

// After a launch: the launch error (bad configuration, no kernel image) is reported at once.
// With WB_DEBUG_SYNC (the debug preset) it also waits, so errors while the kernel runs point here.
// The message for an error found right after a launch. There, "invalid argument" almost always
// means a block or grid dimension out of range (CUDA 13 reports bad block sizes this way too).
inline std::string launch_error_message(cudaError_t code, const char* file, int line) {
  std::string message = format_cuda_error(code, "kernel launch", file, line);
  const char* hint = code == cudaErrorInvalidValue
                         ? "a launch dimension is out of range: a block of 0 or more than 1024 threads, or a "
                           "grid dimension of 0 or above its limit (gridDim.y and gridDim.z <= 65535)"
                         : cuda_error_hint(code);
  if (hint != nullptr) message += ": " + std::string(hint);
  return message;
}

inline void check_kernel_launch(const char* file, int line) {
  const cudaError_t launched = cudaGetLastError();
  if (launched != cudaSuccess) throw CudaError(launched, launch_error_message(launched, file, line));
#ifdef WB_DEBUG_SYNC
  check_cuda(cudaDeviceSynchronize(), "kernel execution (WB_DEBUG_SYNC)", file, line);
#endif
}

}  // namespace wb

#define CUDA_CHECK(expr) ::wb::check_cuda((expr), #expr, __FILE__, __LINE__)
#define CUDA_CHECK_KERNEL() ::wb::check_kernel_launch(__FILE__, __LINE__)
