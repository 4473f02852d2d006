// SPDX-License-Identifier: MIT
#include <cstdint>

#include "common/check.h"
#include "common/util.h"
#include "phase6_multi_gpu/tests/wrong_kernels.h"

namespace {

enum class RingBug { None, WrongChunkOffset, NoStepWait, NoAllgather, DropsTail, AddsTwice, NoEntryBarrier };

// One ring step over `count` floats: dst = mine + theirs (add) or theirs; with drop_tail, the count % 4
// floats past the last vector are left alone.
__global__ void planted_step_kernel(float* dst, const float* mine, const float* theirs, std::size_t count, bool add,
                                    bool drop_tail) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t end = drop_tail ? count / 4 * 4 : count;
  for (std::size_t i = tid; i < end; i += threads) dst[i] = add ? mine[i] + theirs[i] : theirs[i];
}

std::size_t chunk_of(std::size_t count, int n) {
  return wb::ceil_div(wb::ceil_div(count, static_cast<std::size_t>(n)), std::size_t(4)) * 4;
}

void planted_ring(const float* const* send, float* const* recv, std::size_t count, p6::RankGroup& group, RingBug bug) {
  const int n = group.size();
  if (count == 0) return;
  if (n == 1) {
    p6::DeviceScope scope(group.device(0));
    if (send[0] != recv[0])
      CUDA_CHECK(cudaMemcpyAsync(recv[0], send[0], count * sizeof(float), cudaMemcpyDeviceToDevice, group.stream(0)));
    return;
  }
  if (bug != RingBug::NoEntryBarrier) group.barrier();
  const std::size_t chunk = chunk_of(count, n);
  const int steps = bug == RingBug::NoAllgather ? n - 1 : 2 * (n - 1);
  for (int step = 0; step < steps; ++step) {
    for (int q = 0; q < n; ++q) {
      const int up = (q + n - 1) % n;
      p6::DeviceScope scope(group.device(q));
      if (step > 0 && bug != RingBug::NoStepWait)
        CUDA_CHECK(cudaStreamWaitEvent(group.stream(q), group.event(up, step - 1), 0));
      const bool reduce = step < n - 1;
      const int c = reduce ? ((q - 1 - step) % n + 2 * n) % n : ((q - (step - (n - 1))) % n + 2 * n) % n;
      const std::size_t begin = std::min(count, static_cast<std::size_t>(c) * chunk);
      const std::size_t len = std::min(count, begin + chunk) - begin;
      // The wrong offset: the neighbour's chunk read one chunk further on (wrapping to the start).
      std::size_t their_begin = begin;
      if (bug == RingBug::WrongChunkOffset && reduce) {
        their_begin = std::min(count, static_cast<std::size_t>((c + 1) % n) * chunk);
        if (count - their_begin < len) their_begin = 0;
      }
      if (len > 0) {
        const bool add = reduce || bug == RingBug::AddsTwice;
        const float* theirs = (reduce && step == 0 ? send[up] : recv[up]) + their_begin;
        planted_step_kernel<<<64, 256, 0, group.stream(q)>>>(recv[q] + begin, send[q] + begin, theirs, len, add,
                                                             bug == RingBug::DropsTail);
        CUDA_CHECK_KERNEL();
      }
      CUDA_CHECK(cudaEventRecord(group.event(q, step), group.stream(q)));
    }
  }
  group.barrier();
}

// A peer copy: `vectors` float4 (when aligned) then the tail; each bug a switch.
__global__ void planted_copy_kernel(float* dst, const float* src, std::size_t count, bool drop_tail, bool one_pass,
                                    bool one_past, bool mixup) {
  const std::size_t threads = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t stride = one_pass ? count + 1 : threads;
  const std::size_t end = drop_tail ? count / 4 * 4 : count + (one_past ? 1 : 0);
  for (std::size_t i = tid; i < end; i += stride) {
    const std::size_t from = mixup && i % 4 == 1 && i + 1 < count ? i + 1 : i;
    dst[i] = src[from < count ? from : count - 1];
  }
}

void planted_copy(float* dst, const float* src, std::size_t count, cudaStream_t stream, bool drop_tail, bool one_pass,
                  bool one_past, bool mixup) {
  if (count == 0) return;
  cudaPointerAttributes where{};
  CUDA_CHECK(cudaPointerGetAttributes(&where, dst));
  p6::DeviceScope scope(where.device);
  planted_copy_kernel<<<one_pass ? 8 : 256, 256, 0, stream>>>(dst, src, count, drop_tail, one_pass, one_past, mixup);
  CUDA_CHECK_KERNEL();
}

}  // namespace

void planted_ring_correct(const float* const* send, float* const* recv, std::size_t count, p6::RankGroup& group) {
  planted_ring(send, recv, count, group, RingBug::None);
}
void planted_ring_wrong_chunk_offset(const float* const* send, float* const* recv, std::size_t count,
                                     p6::RankGroup& group) {
  planted_ring(send, recv, count, group, RingBug::WrongChunkOffset);
}
void planted_ring_no_step_wait(const float* const* send, float* const* recv, std::size_t count, p6::RankGroup& group) {
  planted_ring(send, recv, count, group, RingBug::NoStepWait);
}
void planted_ring_no_allgather(const float* const* send, float* const* recv, std::size_t count, p6::RankGroup& group) {
  planted_ring(send, recv, count, group, RingBug::NoAllgather);
}
void planted_ring_drops_tail(const float* const* send, float* const* recv, std::size_t count, p6::RankGroup& group) {
  planted_ring(send, recv, count, group, RingBug::DropsTail);
}
void planted_ring_adds_twice(const float* const* send, float* const* recv, std::size_t count, p6::RankGroup& group) {
  planted_ring(send, recv, count, group, RingBug::AddsTwice);
}
void planted_ring_no_entry_barrier(const float* const* send, float* const* recv, std::size_t count,
                                   p6::RankGroup& group) {
  planted_ring(send, recv, count, group, RingBug::NoEntryBarrier);
}

void planted_copy_correct(float* dst, const float* src, std::size_t count, cudaStream_t stream) {
  planted_copy(dst, src, count, stream, false, false, false, false);
}
void planted_copy_drops_tail(float* dst, const float* src, std::size_t count, cudaStream_t stream) {
  planted_copy(dst, src, count, stream, true, false, false, false);
}
void planted_copy_one_pass(float* dst, const float* src, std::size_t count, cudaStream_t stream) {
  planted_copy(dst, src, count, stream, false, true, false, false);
}
void planted_copy_writes_one_past(float* dst, const float* src, std::size_t count, cudaStream_t stream) {
  planted_copy(dst, src, count, stream, false, false, true, false);
}
void planted_copy_vector_index_mixup(float* dst, const float* src, std::size_t count, cudaStream_t stream) {
  planted_copy(dst, src, count, stream, false, false, false, true);
}
void planted_copy_nothing(float* dst, const float* src, std::size_t count, cudaStream_t stream) {
  (void)dst, (void)src, (void)count, (void)stream;
}

// ---- 6.05 ------------------------------------------------------------------------------------------------

#include "phase2_elementwise/harness/activations.cuh"

std::vector<p6::bf16> planted_shard_w1_columns(const std::vector<p6::bf16>& w1, const p6::MlpShape& shape, int rank,
                                               int ranks) {
  const std::size_t part = shape.hidden / static_cast<std::size_t>(ranks),
                    first = part * static_cast<std::size_t>(rank);
  std::vector<p6::bf16> shard(shape.model * part);
  for (std::size_t k = 0; k < shape.model; ++k)
    for (std::size_t j = 0; j < part; ++j) shard[k * part + j] = w1[k * shape.hidden + first + j];
  return shard;
}

std::vector<p6::bf16> planted_shard_w2_rows(const std::vector<p6::bf16>& w2, const p6::MlpShape& shape, int rank,
                                            int ranks) {
  const std::size_t part = shape.hidden / static_cast<std::size_t>(ranks),
                    first = part * static_cast<std::size_t>(rank);
  return std::vector<p6::bf16>(w2.begin() + static_cast<std::ptrdiff_t>(first * shape.model),
                               w2.begin() + static_cast<std::ptrdiff_t>((first + part) * shape.model));
}

std::vector<p6::bf16> planted_shard_w1_rows(const std::vector<p6::bf16>& w1, const p6::MlpShape& shape, int rank,
                                            int ranks) {
  const std::size_t size = shape.model * (shape.hidden / static_cast<std::size_t>(ranks));
  return std::vector<p6::bf16>(w1.begin() + static_cast<std::ptrdiff_t>(size * static_cast<std::size_t>(rank)),
                               w1.begin() + static_cast<std::ptrdiff_t>(size * static_cast<std::size_t>(rank + 1)));
}

std::vector<p6::bf16> planted_shard_w2_rank1_offset(const std::vector<p6::bf16>& w2, const p6::MlpShape& shape,
                                                    int rank, int ranks) {
  return planted_shard_w2_rows(w2, shape, rank == 1 ? 0 : rank, ranks);
}

namespace {

enum class MlpBug { None, NoAllreduce, GeluAfterAllreduce };

__global__ void planted_to_bf16_kernel(const float* in, p6::bf16* out, std::size_t count) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = __float2bfloat16_rn(in[i]);
}

__global__ void planted_gelu_kernel(float* y, std::size_t count) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    y[i] = gelu_tanh_device(y[i]);
}

void planted_mlp(const p6::bf16* const* x, const p6::bf16* const* w1, const p6::bf16* const* w2,
                 p6::bf16* const* hidden, float* const* y, const p6::MlpShape& shape, p6::MlpEngine& engine,
                 const p6::NcclComms& comms, MlpBug bug) {
  const p6::RankGroup& group = engine.group();
  const int n = group.size();
  const std::size_t part = shape.hidden / static_cast<std::size_t>(n), th = shape.tokens * part;
  for (int r = 0; r < n; ++r) engine.scratch(r, th);
  for (int r = 0; r < n; ++r) {
    float* z = engine.scratch(r, th);
    engine.gemm(r, x[r], w1[r], z, shape.tokens, part, shape.model);
    if (bug == MlpBug::GeluAfterAllreduce) {
      p6::DeviceScope scope(group.device(r));
      planted_to_bf16_kernel<<<256, 256, 0, group.stream(r)>>>(z, hidden[r], th);
      CUDA_CHECK_KERNEL();
    } else {
      engine.gelu_to_bf16(r, z, hidden[r], th);
    }
    engine.gemm(r, hidden[r], w2[r], y[r], shape.tokens, shape.model, part);
  }
  if (bug == MlpBug::NoAllreduce) return;
  NCCL_CHECK(ncclGroupStart());
  for (int r = 0; r < n; ++r)
    NCCL_CHECK(
        ncclAllReduce(y[r], y[r], shape.tokens * shape.model, ncclFloat, ncclSum, comms.comm(r), group.stream(r)));
  NCCL_CHECK(ncclGroupEnd());
  if (bug == MlpBug::GeluAfterAllreduce)
    for (int r = 0; r < n; ++r) {
      p6::DeviceScope scope(group.device(r));
      planted_gelu_kernel<<<256, 256, 0, group.stream(r)>>>(y[r], shape.tokens * shape.model);
      CUDA_CHECK_KERNEL();
    }
}

}  // namespace

void planted_mlp_correct(const p6::bf16* const* x, const p6::bf16* const* w1, const p6::bf16* const* w2,
                         p6::bf16* const* hidden, float* const* y, const p6::MlpShape& shape, p6::MlpEngine& engine,
                         const p6::NcclComms& comms) {
  planted_mlp(x, w1, w2, hidden, y, shape, engine, comms, MlpBug::None);
}
void planted_mlp_no_allreduce(const p6::bf16* const* x, const p6::bf16* const* w1, const p6::bf16* const* w2,
                              p6::bf16* const* hidden, float* const* y, const p6::MlpShape& shape,
                              p6::MlpEngine& engine, const p6::NcclComms& comms) {
  planted_mlp(x, w1, w2, hidden, y, shape, engine, comms, MlpBug::NoAllreduce);
}
void planted_mlp_gelu_after_allreduce(const p6::bf16* const* x, const p6::bf16* const* w1, const p6::bf16* const* w2,
                                      p6::bf16* const* hidden, float* const* y, const p6::MlpShape& shape,
                                      p6::MlpEngine& engine, const p6::NcclComms& comms) {
  planted_mlp(x, w1, w2, hidden, y, shape, engine, comms, MlpBug::GeluAfterAllreduce);
}
