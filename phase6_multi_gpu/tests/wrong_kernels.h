// SPDX-License-Identifier: MIT
// Deliberately wrong phase 6 launchers (and right ones) that prove the grader fails each planted bug
// with the right diagnosis. Never used by lessons.
#pragma once

#include <cstddef>

#include "phase6_multi_gpu/harness/ranks.h"

// 6.02: a ring all-reduce, right or with one bug.
void planted_ring_correct(const float* const* send, float* const* recv, std::size_t count, p6::RankGroup& group);
// Reduce-scatter steps read the neighbour's chunk at the offset of the next chunk.
void planted_ring_wrong_chunk_offset(const float* const* send, float* const* recv, std::size_t count,
                                     p6::RankGroup& group);
// No wait on the upstream neighbour's event between ring steps.
void planted_ring_no_step_wait(const float* const* send, float* const* recv, std::size_t count, p6::RankGroup& group);
// The reduce-scatter alone: no all-gather.
void planted_ring_no_allgather(const float* const* send, float* const* recv, std::size_t count, p6::RankGroup& group);
// Vectors only: the count % 4 floats past the last whole vector are dropped.
void planted_ring_drops_tail(const float* const* send, float* const* recv, std::size_t count, p6::RankGroup& group);
// The all-gather adds its own input again instead of copying: every chunk counts one rank twice.
void planted_ring_adds_twice(const float* const* send, float* const* recv, std::size_t count, p6::RankGroup& group);
// No barrier before the first step: a neighbour's input is read while it may still be arriving.
void planted_ring_no_entry_barrier(const float* const* send, float* const* recv, std::size_t count,
                                   p6::RankGroup& group);

// 6.01: a peer copy, right or with one bug.
void planted_copy_correct(float* dst, const float* src, std::size_t count, cudaStream_t stream);
void planted_copy_drops_tail(float* dst, const float* src, std::size_t count, cudaStream_t stream);
void planted_copy_one_pass(float* dst, const float* src, std::size_t count, cudaStream_t stream);
void planted_copy_writes_one_past(float* dst, const float* src, std::size_t count, cudaStream_t stream);
void planted_copy_vector_index_mixup(float* dst, const float* src, std::size_t count, cudaStream_t stream);
void planted_copy_nothing(float* dst, const float* src, std::size_t count, cudaStream_t stream);

// ---- 6.05: a tensor-parallel MLP, right or with one bug --------------------------------------------------

#include <vector>

#include "phase6_multi_gpu/harness/mlp_support.h"
#include "phase6_multi_gpu/harness/nccl_support.h"

// W1 by columns, W2 by rows, block `rank` of the hidden units (right).
std::vector<p6::bf16> planted_shard_w1_columns(const std::vector<p6::bf16>& w1, const p6::MlpShape& shape, int rank,
                                               int ranks);
std::vector<p6::bf16> planted_shard_w2_rows(const std::vector<p6::bf16>& w2, const p6::MlpShape& shape, int rank,
                                            int ranks);
// W1 cut into contiguous pieces of the row-major array (its rows), read as model x hidden / ranks.
std::vector<p6::bf16> planted_shard_w1_rows(const std::vector<p6::bf16>& w1, const p6::MlpShape& shape, int rank,
                                            int ranks);
// W2's rows right, except rank 1 takes block 0's.
std::vector<p6::bf16> planted_shard_w2_rank1_offset(const std::vector<p6::bf16>& w2, const p6::MlpShape& shape,
                                                    int rank, int ranks);
// The step right; without its all-reduce; with the reduction of the pre-activations' products before GELU
// (Y = GELU(sum_r (X W1_r) W2_r): GELU moved past the all-reduce).
void planted_mlp_correct(const p6::bf16* const* x, const p6::bf16* const* w1, const p6::bf16* const* w2,
                         p6::bf16* const* hidden, float* const* y, const p6::MlpShape& shape, p6::MlpEngine& engine,
                         const p6::NcclComms& comms);
void planted_mlp_no_allreduce(const p6::bf16* const* x, const p6::bf16* const* w1, const p6::bf16* const* w2,
                              p6::bf16* const* hidden, float* const* y, const p6::MlpShape& shape,
                              p6::MlpEngine& engine, const p6::NcclComms& comms);
void planted_mlp_gelu_after_allreduce(const p6::bf16* const* x, const p6::bf16* const* w1, const p6::bf16* const* w2,
                                      p6::bf16* const* hidden, float* const* y, const p6::MlpShape& shape,
                                      p6::MlpEngine& engine, const p6::NcclComms& comms);
