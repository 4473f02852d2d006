// SPDX-License-Identifier: MIT
// The grader's half for 6.05's tensor-parallel MLP: small shapes with odd sizes (hidden a multiple of the
// rank count, nothing else), random BF16 inputs, every element of every rank's Y against the FP64
// reference within its derived tolerance (harness/mlp_support.h), outputs poisoned and guarded; a result that
// equals one rank's partial sum is named as a missing all-reduce.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "phase6_multi_gpu/harness/mlp_support.h"
#include "phase6_multi_gpu/harness/nccl_support.h"

namespace p6 {
namespace test {

using ShardFn = std::vector<bf16> (*)(const std::vector<bf16>& w, const MlpShape& shape, int rank, int ranks);
using MlpLauncher = void (*)(const bf16* const* x, const bf16* const* w1, const bf16* const* w2, bf16* const* hidden,
                             float* const* y, const MlpShape& shape, MlpEngine& engine, const NcclComms& comms);

// 1x8x(2 ranks), 37x72x(41 ranks), 128x256x(256 ranks): tokens x model x hidden.
std::vector<MlpShape> mlp_test_shapes(int ranks);

// Shards with shard_w1/shard_w2, runs `launch` once on `ranks` real GPUs, judges every rank's Y; "" or the report.
std::string grade_mlp(const char* name, ShardFn shard_w1, ShardFn shard_w2, MlpLauncher launch, int ranks,
                      const MlpShape& shape, std::uint64_t seed);

}  // namespace test
}  // namespace p6
