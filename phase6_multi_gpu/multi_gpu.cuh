// SPDX-License-Identifier: MIT
// Phase 6: several GPUs. The launchers of the exercises, declared once: lessons, tests and p6_bench
// call these, never kernels. A launcher enqueues on the streams it is given and returns without
// waiting; the caller synchronizes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "phase6_multi_gpu/harness/ranks.h"

// ---- 6.01 peer_access ---------------------------------------------------------------------------------

// Lets kernels running on `device` read and write memory allocated on `peer` (one direction: call it
// both ways for both). Calling it again for a pair that is already enabled is fine; a pair that cannot
// reach each other throws (CUDA_CHECK) with the driver's reason.
void enable_peer_access(int device, int peer);

// dst[i] = src[i] for i < count, by a kernel on the stream's device that loads src directly from the
// peer's memory (peer access enabled from the stream's device to src's). dst is on the stream's
// device. Any count (0: nothing launched); dst and src at any float offset.
void peer_copy_read(float* dst, const float* src, std::size_t count, cudaStream_t stream);

// ---- 6.02 ring_allreduce ------------------------------------------------------------------------------

// The element-wise sum over every rank of send[r] (count floats on rank r's device), written to recv[r]
// on every rank r: an all-reduce, enqueued on the ranks' streams (group.stream(r)). In place
// (send[r] == recv[r]) is allowed. Any count (0: nothing enqueued), any group of 1 to 8 ranks, real or
// virtual. Before it starts, each rank's earlier work (its inputs) may still be running on its stream;
// once every rank's stream has run what it enqueued, no rank reads or writes another's buffers any
// more. Uses the group's events only.
void ring_allreduce(const float* const* send, float* const* recv, std::size_t count, p6::RankGroup& group);

// ---- 6.03 nccl_collectives ------------------------------------------------------------------------------
// (phase6_multi_gpu/harness/collectives.h: the Collective enum, NCCL's count convention, the rank processes.)

#include <nccl.h>

#include <vector>

#include "phase6_multi_gpu/harness/collectives.h"

// One communicator per rank of a real group, made by this one process for all of its GPUs.
std::vector<ncclComm_t> nccl_comms_one_process(const p6::RankGroup& group);

// One rank's part of collective `op` on its communicator and stream: `count` as NCCL counts it
// (harness/collectives.h), `root` for the broadcast. In place when send == recv: then both name the start of the
// rank's one buffer (rank_layout in harness/collectives.h says what it holds). Enqueues and returns.
void nccl_issue(p6::Collective op, const float* send, float* recv, std::size_t count, int root, ncclComm_t comm,
                cudaStream_t stream);

// Collective `op` on every rank of the group, driven by this one process (comms from nccl_comms_one_process,
// send[r] and recv[r] on rank r's device as nccl_issue takes them). Enqueues on the ranks' streams and returns.
void nccl_collective(p6::Collective op, const float* const* send, float* const* recv, std::size_t count, int root,
                     const std::vector<ncclComm_t>& comms, const p6::RankGroup& group);

// The launcher's side of one process per GPU: gives every rank process (already started, each waiting on
// its stdin) what it needs to join one communicator.
void nccl_share_unique_id(p6::RankProcesses& processes);

// Inside rank `rank`'s own process (GPU `rank`): joins the communicator of `ranks` ranks, reading what the
// launcher sent from the file descriptor `from_parent`. Returns the communicator.
ncclComm_t nccl_join_as_rank(int rank, int ranks, int from_parent);

// Bus bandwidth in GB/s as nccl-tests counts it (its doc/PERFORMANCE.md), for collective `op` of `bytes`
// (collective_bytes: the larger buffer of one rank) that took `ms` on `ranks` ranks.
double collective_busbw_gbs(p6::Collective op, double bytes, double ms, int ranks);

// The name of the rank worker program built with this exercise (beside the lesson and the test).
const char* nccl_collectives_worker();

// ---- 6.04 overlap -------------------------------------------------------------------------------------

#include "phase6_multi_gpu/harness/overlap_support.h"

// One data-parallel backward step with its gradient all-reduce overlapped: on every rank r, the
// backward of model's layers from the last down to layer 0 (model.backward on group.stream(r), writing
// grad[r]), and the SUM over all ranks of every layer's gradient written back into grad[r] on every rank
// (no 1/n: averaging is left to the optimizer, whose learning rate can absorb it). The gradients are
// all-reduced in buckets of consecutive layers of about `bucket_floats` floats (0: the file's own
// choice) through comm.allreduce_sum on the communication streams, while later layers compute.
// Before it starts, each rank's earlier work on group.stream(r) may still be running; once every
// rank's group.stream(r) has run what the step enqueued, grad[r] holds the sums and no communication
// stream reads or writes it any more. Any group of 1 to 8 ranks, real or virtual.
void overlap_step(const p6::BackwardModel& model, float* const* grad, std::size_t bucket_floats, p6::RankGroup& group,
                  p6::GradientComm& comm);

// ---- 6.05 tensor_parallel_mlp ---------------------------------------------------------------------------
// (phase6_multi_gpu/harness/mlp_support.h: the shapes, BF16 GEMMs on cuBLAS, the GELU, the one-GPU MLP.)

#include "phase6_multi_gpu/harness/mlp_support.h"
#include "phase6_multi_gpu/harness/nccl_support.h"

// Rank `rank`'s part of W1 (model x hidden, row-major, the whole matrix on the host) for `ranks` ranks, as
// the rank's first GEMM takes it (model x hidden / ranks, row-major). hidden divides by ranks.
std::vector<p6::bf16> shard_w1(const std::vector<p6::bf16>& w1, const p6::MlpShape& shape, int rank, int ranks);
// Rank `rank`'s part of W2 (hidden x model, row-major), as its second GEMM takes it (hidden / ranks x model).
std::vector<p6::bf16> shard_w2(const std::vector<p6::bf16>& w2, const p6::MlpShape& shape, int rank, int ranks);

// One step of the tensor-parallel MLP on every rank of the engine's group: x[r] (tokens x model, BF16) on
// every rank, w1[r] and w2[r] the rank's shards (shard_w1, shard_w2), hidden[r] a scratch of tokens x
// hidden / ranks BF16; afterwards y[r] (tokens x model, FP32) holds all of Y = GELU(X W1) W2 on every rank.
// Enqueues on the ranks' streams (comms: one NCCL communicator per rank of the same group) and returns.
void tensor_parallel_mlp(const p6::bf16* const* x, const p6::bf16* const* w1, const p6::bf16* const* w2,
                         p6::bf16* const* hidden, float* const* y, const p6::MlpShape& shape, p6::MlpEngine& engine,
                         const p6::NcclComms& comms);

// ---- 6.06 ring_attention ------------------------------------------------------------------------------

#include "phase6_multi_gpu/harness/ring_support.h"

// Attention over a sequence sharded across the ranks (harness/ring_support.h: rank r holds tokens
// [ring_begin(r), ring_begin(r) + ring_rows(r)) of every head): O[r] and L[r] (L = the row's
// log-sum-exp of its scaled logits, as phase 5's kernels write it) for rank r's queries against the
// keys and values of the whole sequence, which travel around the ring of ranks through kv's double
// buffers while each rank computes. FP32. Q, K, V, O and L of rank r are on its device; kv was made for
// this group and shape. Throws std::invalid_argument for a shape validate_ring_shape refuses or a kv
// made for another shape. Before it starts, each rank's earlier work on group.stream(r) may still be
// running; once every rank's group.stream(r) has run what it enqueued, O and L are written and no rank
// reads another's buffers any more.
void ring_attention(const float* const* Q, const float* const* K, const float* const* V, float* const* O,
                    float* const* L, const p6::RingAttentionShape& shape, p6::RankGroup& group, p6::RingKV& kv);
