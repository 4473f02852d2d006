// SPDX-License-Identifier: MIT
#include "common/buffer.h"

#include <cstdio>
#include <cstdlib>

namespace wb {

std::string describe_out_of_memory(std::size_t bytes, std::size_t free_bytes, std::size_t total_bytes) {
  char text[200];
  std::snprintf(
      text, sizeof text, "out of GPU memory allocating %.1f MiB (%.1f MiB free of %.1f MiB): try a smaller --size",
      static_cast<double>(bytes) / MiB, static_cast<double>(free_bytes) / MiB, static_cast<double>(total_bytes) / MiB);
  return text;
}

bool exact_inputs_mode() {
  const char* value = std::getenv("WB_EXACT_INPUTS");
  return value != nullptr && *value != '\0' && std::string(value) != "0";
}

GuardLayout guard_layout(std::size_t guard, std::size_t element_bytes, bool exact) {
  const std::size_t aligned = element_bytes >= 256 ? 1 : 256 / element_bytes;  // elements in 256 bytes
  if (exact) return GuardLayout{guard % aligned, 0};
  const std::size_t both = guard < aligned ? aligned : guard;
  return GuardLayout{both, both};
}

void* device_alloc(std::size_t bytes) {
  void* ptr = nullptr;
  const cudaError_t code = cudaMalloc(&ptr, bytes);
  if (code == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear it: an allocation failure does not poison the context
    std::size_t free_bytes = 0, total_bytes = 0;
    cudaMemGetInfo(&free_bytes, &total_bytes);
    throw CudaError(code, describe_out_of_memory(bytes, free_bytes, total_bytes));
  }
  CUDA_CHECK(code);
  return ptr;
}

void device_free(void* ptr) noexcept {
  if (ptr != nullptr) cudaFree(ptr);  // errors here are reported by the next checked call
}

void* pinned_alloc(std::size_t bytes) {
  void* ptr = nullptr;
  const cudaError_t code = cudaMallocHost(&ptr, bytes);
  if (code == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    throw CudaError(
        code, "out of pinned host memory allocating " + std::to_string(bytes / MiB) + " MiB: try a smaller --size");
  }
  CUDA_CHECK(code);
  return ptr;
}

void pinned_free(void* ptr) noexcept {
  if (ptr != nullptr) cudaFreeHost(ptr);
}

}  // namespace wb
