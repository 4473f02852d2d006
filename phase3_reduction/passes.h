// SPDX-License-Identifier: MIT
// The multi-pass driver the rungs share (host code, outside the files learners edit): a rung's
// kernel turns `count` elements into one partial sum per block; the driver launches it on the input,
// then on the partial sums, and so on, until one block remains, whose sum goes to `out`. The plan
// (how many blocks each pass, where its partial sums sit in the workspace) is for_each_reduce_pass
// in reduction.cuh, the same plan reduce_workspace_elements(n) is the bound of for any rung with at
// least kMinElementsPerBlock elements per block.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <stdexcept>
#include <string>

#include "common/check.h"
#include "phase3_reduction/reduction.cuh"

// launch(src, dst, count, blocks) enqueues the rung's kernel: `blocks` blocks reduce src[0, count)
// into dst[0, blocks). elements_per_block: how many elements one block covers (its threads times
// the elements each loads); max_blocks caps the grid of grid-stride kernels (0: no cap).
template <typename T, typename Launch>
void reduce_in_passes(const T* in, T* out, std::size_t n, T* workspace, cudaStream_t stream,
                      std::size_t elements_per_block, std::size_t max_blocks, Launch launch) {
  if (elements_per_block < kMinElementsPerBlock)
    throw std::invalid_argument("reduce_in_passes: " + std::to_string(elements_per_block) +
                                " elements per block is below kMinElementsPerBlock: the workspace bound fails");
  if (n == 0) {  // the empty sum is 0; a grid of 0 blocks would be an invalid launch
    CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(T), stream));
    return;
  }
  const T* src = in;
  for_each_reduce_pass(n, elements_per_block, max_blocks, [&](const ReducePass& pass) {
    T* dst = pass.blocks == 1 ? out : workspace + pass.offset;
    launch(src, dst, pass.count, static_cast<unsigned>(pass.blocks));
    src = dst;
  });
}
