// SPDX-License-Identifier: MIT
// Phase 6: several GPUs. The launchers of the exercises, declared once: lessons, tests and p6_bench
// call these, never kernels. A launcher enqueues on the streams it is given and returns without
// waiting; the caller synchronizes.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "phase6_multi_gpu/ranks.h"

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
