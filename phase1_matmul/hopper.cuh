// SPDX-License-Identifier: MIT
// The Hopper (sm_90a) toolkit of rungs 1.11-1.14 and of 5.08 (FlashAttention-3's forward pass): one
// inline-PTX instruction per function, each with what it needs from its caller. Nothing here chooses
// for the rungs: what to load where, when to wait and in which order are theirs; what each instruction
// guarantees is stated beside it, as the PTX ISA states it.
//   wgmma    warpgroup MMA: 128 threads (4 consecutive warps, the first a multiple of 4) issue one
//            m64nNk16 product together; it runs asynchronously, reading A and B straight from
//            shared memory through 64-bit matrix descriptors, accumulating in registers.
//   TMA      the tensor memory accelerator: one thread asks for a whole 2D box of a tensor; the copy
//            engine writes it (swizzled) into shared memory and reports the bytes to an mbarrier.
//   mbarrier a barrier object in shared memory with a phase bit: threads (or the TMA's byte count)
//            complete a phase, and waiters spin on the parity of the phase they expect.
// Compiled only for sm_90a (the wgmma and setmaxnreg instructions exist on no other target).
#pragma once

#include <cuda.h>  // CUtensorMap and its enums (types only: the encode function is fetched at run time)
#include <cudaTypedefs.h>
#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "phase1_matmul/mma_sm80.cuh"

namespace wb::hopper {

using wb::mma::shared_address;

// The dynamic shared-memory window is only 16-byte aligned by contract; the 128-byte swizzle (TMA,
// wgmma descriptors) needs 1024-byte aligned tiles, so kernels round their start up with this and
// their launchers ask for 1 KB more.
__device__ inline unsigned char* align_1024(unsigned char* p) {
  return p + ((1024 - (shared_address(p) & 1023)) & 1023);
}

// ---- wgmma -------------------------------------------------------------------------------------

// A shared-memory matrix descriptor for a K-major BF16 tile stored with the 128-byte swizzle
// (rows of 64 elements, 8-row groups of 1024 bytes, tile start 1024-byte aligned):
//   bits  0-13  start address >> 4
//   bits 16-29  leading-dimension byte offset >> 4 (unused by K-major swizzled layouts; 1 by convention)
//   bits 32-45  stride-dimension byte offset >> 4: from one 8-row group to the next, 1024 bytes
//   bits 62-63  swizzle mode: 1 = 128-byte
// The hardware applies the swizzle to the addresses it computes from these fields, as TMA did when
// it wrote the tile (PTX ISA, "Matrix Descriptor Format" and "Shared Memory Matrix Layout").
__device__ inline std::uint64_t smem_descriptor_sw128(const void* start) {
  const std::uint64_t address = shared_address(start);
  return ((address & 0x3FFFF) >> 4) | (std::uint64_t(1) << 16) | (std::uint64_t(1024 >> 4) << 32) |
         (std::uint64_t(1) << 62);
}

// The same for an MN-major tile (the operand's M or N dimension contiguous in memory), stored as
// column blocks of 64 n (128-byte rows, 128-byte swizzle), each block [k rows][64]: the 8 k rows of a
// 1024-byte swizzle atom follow each other (stride offset 1024), and the next 64 n start `block_bytes`
// further on (the leading-dimension offset, which an MN-major layout uses). PTX ISA, "Shared Memory
// Matrix Layout": the canonical MN-major 128-byte layout.
__device__ inline std::uint64_t smem_descriptor_sw128_mn(const void* start, std::uint32_t block_bytes) {
  const std::uint64_t address = shared_address(start);
  return ((address & 0x3FFFF) >> 4) | (std::uint64_t((block_bytes >> 4) & 0x3FFF) << 16) |
         (std::uint64_t(1024 >> 4) << 32) | (std::uint64_t(1) << 62);
}

// Orders this thread's register accesses (the accumulators, which the tensor cores own while a wgmma
// is in flight, and A fragments) before the wgmma that follow. Shared memory written by threads or
// cp.async needs fence_proxy_async_shared instead: wgmma reads it through the async proxy.
__device__ inline void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
// Closes the batch of wgmma issued since the last commit into one group.
__device__ inline void wgmma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
// Waits until at most `Pending` of this thread's most recent wgmma-groups are pending; every group
// committed before them is complete. Touching the accumulators of a wgmma whose group is not yet
// complete is undefined behaviour (PTX ISA, "wgmma.wait_group"). A wgmma is one operation of the
// whole warpgroup and commit_group makes one wgmma-group per warpgroup, so when any one thread's wait
// returns, the warpgroup's whole batch is complete, its reads of shared memory included. Like the
// other wgmma instructions it is .sync.aligned: every thread of the warpgroup executes it, never a
// branch of them (PTX ISA 9.1, 9.7.15.7.2 "wgmma.commit_group", 9.7.15.7.3 "wgmma.wait_group").
template <int Pending>
__device__ inline void wgmma_wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
}
// A proxy fence: orders this thread's generic-proxy shared-memory accesses with its later
// async-proxy accesses (wgmma, TMA) to shared memory, which otherwise need not see them (PTX ISA,
// "Memory Consistency Model: Proxies"; "membar/fence": fence.proxy.async).
__device__ inline void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Keeps the compiler from moving accumulator reads or writes across an asynchronous wgmma. No
// instruction: to the compiler a wgmma reads and writes d when issued and wgmma_wait_group touches no
// register, so only this empty asm, which claims to read and write every register of d, pins them.
template <int N>
__device__ inline void wgmma_fence_operands(float (&d)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(d[i])::"memory");
}

// wgmma.mma_async m64nNk16, BF16 x BF16 -> FP32, both operands K-major from shared memory:
// d (+)= A(64 x 16) * B(16 x N), d the warpgroup's 64 x N accumulator, N / 2 floats per thread.
// accumulate = 0 ignores d's old value (D = A B), 1 adds to it. Thread t (warp w = t / 32, lane l)
// holds rows 16 w + l / 4 and 16 w + l / 4 + 8; for each n8 column block j, d[4 j + 0, 1] are row
// 16 w + l / 4, columns 8 j + 2 (l % 4) + {0, 1}, and d[4 j + 2, 3] the same columns 8 rows lower:
// the mma.sync accumulator layout, once per warp and per 8 columns.
template <int N>
struct WgmmaBf16;

template <>
struct WgmmaBf16<64> {
  static constexpr int kRegs = 32;
  __device__ static void mma(float (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b, int accumulate) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, %32, %33, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
  }
};

template <>
struct WgmmaBf16<128> {
  static constexpr int kRegs = 64;
  __device__ static void mma(float (&d)[64], std::uint64_t desc_a, std::uint64_t desc_b, int accumulate) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
          "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
          "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
          "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
  }
};

template <>
struct WgmmaBf16<256> {
  static constexpr int kRegs = 128;
  __device__ static void mma(float (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b, int accumulate) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63,"
        "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79,"
        "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95,"
        "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111,"
        "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, p, 1, 1, 0, 0;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
          "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
          "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
          "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]),
          "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]),
          "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]),
          "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]),
          "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]),
          "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]),
          "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]),
          "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]),
          "+f"(d[126]), "+f"(d[127])
        : "l"(desc_a), "l"(desc_b), "r"(accumulate));
  }
};

// wgmma.mma_async m64nNk16 with A from registers and B from shared memory through a descriptor, the
// instruction's imm-trans-b fixed at 1 (PTX ISA, "wgmma.mma_async": which B layout the transpose flag
// selects): d (+)= A(64 x 16) * B(16 x N). Thread t (warp w, lane l) holds A as four BF16 pairs: a[0]
// row 16 w + l / 4, columns 2 (l % 4) + {0, 1}; a[1] the same columns 8 rows lower; a[2] and a[3] the
// same rows, columns 8 higher (PTX ISA, "Register Fragments": wgmma .m64nNk16). The registers of `a`
// are read asynchronously: they must not change until wgmma_wait_group says the product is done.
template <int N>
struct WgmmaBf16RS;

template <>
struct WgmmaBf16RS<64> {
  static constexpr int kRegs = 32;
  __device__ static void mma(float (&d)[32], const std::uint32_t (&a)[4], std::uint64_t desc_b, int accumulate) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
        "}, {%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
  }
};

template <>
struct WgmmaBf16RS<128> {
  static constexpr int kRegs = 64;
  __device__ static void mma(float (&d)[64], const std::uint32_t (&a)[4], std::uint64_t desc_b, int accumulate) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31,"
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47,"
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
        "}, {%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]),
          "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]),
          "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]),
          "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]),
          "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]),
          "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(accumulate));
  }
};

// Keeps the compiler from reusing the A registers of an asynchronous wgmma before its wait (as
// wgmma_fence_operands does for accumulators).
template <int N>
__device__ inline void wgmma_fence_operands(std::uint32_t (&a)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(a[i])::"memory");
}

// ---- register reallocation ----------------------------------------------------------------------

// setmaxnreg: a warpgroup gives registers back (dec) or takes them from the pool (inc), so a TMA
// producer can run on few and the MMA consumers on many. Needs a register cap at kernel entry
// (__launch_bounds__(threads, 1)); the count is a multiple of 8 from 24 to 256.
template <int Registers>
__device__ inline void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(Registers));
}
template <int Registers>
__device__ inline void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(Registers));
}

// ---- mbarrier -----------------------------------------------------------------------------------

// Initialises a barrier in shared memory for `arrivals` arrivals per phase (one thread, before any use;
// then fence_barrier_init and a __syncthreads).
__device__ inline void mbarrier_init(std::uint64_t* bar, int arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(arrivals) : "memory");
}
// Makes the initialisation visible to the async proxy (the TMA unit completes transactions on it).
__device__ inline void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
// One arrival that also announces `bytes` of transactions (TMA writes) this phase must wait for.
__device__ inline void mbarrier_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}
// One plain arrival.
__device__ inline void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(bar)) : "memory");
}
// Returns once the phase with parity `phase` (0 or 1) has completed. The phases of a barrier
// alternate 0, 1, 0, ...: a waiter that expects the wrong parity either returns at once (the
// previous phase) or waits for ever.
__device__ inline void mbarrier_wait(std::uint64_t* bar, std::uint32_t phase) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n"
      "}\n" ::"r"(shared_address(bar)),
      "r"(phase)
      : "memory");
}

// The same wait, bounded: false instead of waiting for ever when the phase has not completed within
// about `limit_ns` nanoseconds (the global timer; a healthy wait takes microseconds). Kernels whose
// bugs would otherwise hang (a parity that never flips, a byte count that never arrives) use it to
// stop and say so.
__device__ inline bool mbarrier_wait_bounded(std::uint64_t* bar, std::uint32_t phase,
                                             std::uint64_t limit_ns = 2000000000ull) {
  std::uint32_t done = 0;
  std::uint64_t start = 0;
  for (int attempt = 0;; ++attempt) {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(phase)
        : "memory");
    if (done) return true;
    std::uint64_t now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (attempt == 0) start = now;
    if (now - start > limit_ns) return false;
  }
}

// A barrier for `threads` threads (a multiple of 32) of the block, numbered `id` (1 to 15; 0 is
// __syncthreads'): lets one warpgroup synchronise without stopping the others.
__device__ inline void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
// Arrives at barrier `id` without waiting (the other side of a named_barrier_sync).
__device__ inline void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// ---- TMA ------------------------------------------------------------------------------------------

// Loads the box of `map` whose first element is (x = inner coordinate, y = outer coordinate) into
// shared memory at `dst` (1024-byte aligned for the 128-byte swizzle) and completes its bytes on
// `bar`. Elements outside the tensor arrive as zeros. Issued by one thread.
__device__ inline void tma_load_2d(void* dst, const CUtensorMap* map, std::uint64_t* bar, int x, int y) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], "
      "[%2];\n" ::"r"(shared_address(dst)),
      "l"(map), "r"(shared_address(bar)), "r"(x), "r"(y)
      : "memory");
}

// The same for a 3D tensor map (x innermost, then y, then z): a box never crosses a z boundary, so
// rows past the end of a batch arrive as zeros instead of the next batch's rows.
__device__ inline void tma_load_3d(void* dst, const CUtensorMap* map, std::uint64_t* bar, int x, int y, int z) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], "
      "[%2];\n" ::"r"(shared_address(dst)),
      "l"(map), "r"(shared_address(bar)), "r"(x), "r"(y), "r"(z)
      : "memory");
}
// Stores the box of `map` at (x, y, z) from shared memory at `src` (written in the map's swizzled
// layout); elements outside the tensor are not written. Issued by one thread, after the writes of
// every thread that filled `src` were made visible to the async proxy (fence_proxy_async_shared,
// then a barrier). Completes as a bulk group: bulk_commit_group, then bulk_wait_group_read before
// `src` is reused or the block exits.
__device__ inline void tma_store_3d(const CUtensorMap* map, const void* src, int x, int y, int z) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(map),
               "r"(shared_address(src)), "r"(x), "r"(y), "r"(z)
               : "memory");
}
__device__ inline void bulk_commit_group() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
// Waits until the bulk stores committed by this thread have read their shared memory.
__device__ inline void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}

// ---- thread-block clusters (1.14) ----------------------------------------------------------------
// A cluster is a group of blocks launched together on one GPC (cudaLaunchKernelEx with
// cudaLaunchAttributeClusterDimension) that can address each other's shared memory ("distributed
// shared memory": CUDA C++ Programming Guide, "Thread Block Clusters"; PTX ISA, "State Spaces:
// Shared", the .shared::cluster window).

// This block's rank in its cluster, 0 to the cluster size - 1 (PTX ISA, special register %cluster_ctarank).
__device__ inline std::uint32_t cluster_ctarank() {
  std::uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(rank));
  return rank;
}

// The address in the .shared::cluster window of the variable at `local` in the shared memory of the
// block of rank `rank` (PTX ISA, "mapa"): the same offset, another block's memory.
__device__ inline std::uint32_t map_to_rank(const void* local, std::uint32_t rank) {
  std::uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(remote) : "r"(shared_address(local)), "r"(rank));
  return remote;
}

// One arrival on the mbarrier at `cluster_address` (from map_to_rank: this block's or a peer's), with
// the instruction's default semantics, release at CTA scope (PTX ISA, "mbarrier.arrive"). That is
// enough for handing back a stage that holds none of this thread's writes: nothing this thread
// wrote must become visible to the peer. A .release.cluster arrival would also publish this thread's
// earlier writes to the cluster, and ptxas puts memory fences in front of every such arrival, which
// the warpgroup's next wgmma would wait behind at every K step. CUTLASS's
// ClusterBarrier::arrive(cta_id) is this same instruction.
__device__ inline void mbarrier_arrive_cluster(std::uint32_t cluster_address) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(cluster_address) : "memory");
}

// mbarrier_wait_bounded with acquire semantics at cluster scope: for a barrier on which threads of
// other blocks arrive (mbarrier_arrive_cluster). 1.14's arrivals hand back stages and carry no data,
// so the scope matters little there; it is the one waiting thread (the producer) that pays for it.
__device__ inline bool mbarrier_wait_cluster_bounded(std::uint64_t* bar, std::uint32_t phase,
                                                     std::uint64_t limit_ns = 2000000000ull) {
  std::uint32_t done = 0;
  std::uint64_t start = 0;
  for (int attempt = 0;; ++attempt) {
    asm volatile(
        "{\n"
        ".reg .pred p;\n"
        "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n"
        "}\n"
        : "=r"(done)
        : "r"(shared_address(bar)), "r"(phase)
        : "memory");
    if (done) return true;
    std::uint64_t now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (attempt == 0) start = now;
    if (now - start > limit_ns) return false;
  }
}

// The bounded waits as 1.14 uses them: a wait that cannot complete (a phase that never flips, bytes
// or arrivals that never come) stops the kernel after about 2 s (trap: the launch fails) instead of
// hanging the GPU. The _cluster form is for barriers on which other blocks arrive.
__device__ inline void mbarrier_wait_or_stop(std::uint64_t* bar, std::uint32_t phase) {
  if (!mbarrier_wait_bounded(bar, phase)) __trap();
}
__device__ inline void mbarrier_wait_cluster_or_stop(std::uint64_t* bar, std::uint32_t phase) {
  if (!mbarrier_wait_cluster_bounded(bar, phase)) __trap();
}

// The cluster barrier, in two halves (PTX ISA, "barrier.cluster"): every thread of every block of
// the cluster arrives (release: its earlier accesses, the mbarrier initialisations included, become
// visible to the cluster), then waits (acquire) until all have. Not .aligned: threads of a warp may
// reach it apart (a producer warp's one working thread, for one).
__device__ inline void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release;\n" ::: "memory");
}
__device__ inline void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire;\n" ::: "memory");
}

// tma_load_2d, multicast: the box lands at the same shared-memory offset `dst` in every block of the
// cluster whose rank has its bit set in `cta_mask` (bit r = rank r), and each of them receives the
// byte count on its own mbarrier at the offset of `bar` (PTX ISA, "cp.async.bulk.tensor",
// .multicast::cluster). Issued by one thread of one block.
__device__ inline void tma_load_2d_multicast(void* dst, const CUtensorMap* map, std::uint64_t* bar, int x, int y,
                                             std::uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
      "[%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(shared_address(dst)),
      "l"(map), "r"(shared_address(bar)), "r"(x), "r"(y), "h"(cta_mask)
      : "memory");
}

// Stores the box of `map` at (x = inner, y = outer) from shared memory at `src` (in the map's layout,
// swizzle included); elements outside the tensor are not written. The same rules as tma_store_3d.
__device__ inline void tma_store_2d(const CUtensorMap* map, const void* src, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(map),
               "r"(shared_address(src)), "r"(x), "r"(y)
               : "memory");
}
// Waits until at most `Pending` of the bulk groups committed by this thread still read their shared
// memory (the older ones' sources may be rewritten).
template <int Pending>
__device__ inline void bulk_wait_group_read_pending() {
  asm volatile("cp.async.bulk.wait_group.read %0;\n" ::"n"(Pending) : "memory");
}
// Waits until every bulk group committed by this thread is complete, its global writes included.
__device__ inline void bulk_wait_group_all() {
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

// Host: a tensor map for a row-major [rows][K] BF16 matrix read in boxes of box_rows x 64 elements
// (128 bytes, the swizzle span) with the 128-byte swizzle. The driver's encoder is fetched through
// the runtime (cudaGetDriverEntryPointByVersion), so the course links no libcuda. TMA needs the row
// pitch (K * 2 bytes) to be a multiple of 16 and the base 16-byte aligned: the launchers route other
// inputs to the fallback before they get here.
inline CUtensorMap make_tensor_map_bf16(const __nv_bfloat16* base, int rows, int K, int box_rows) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &status) !=
            cudaSuccess ||
        status != cudaDriverEntryPointSuccess || fn == nullptr)
      throw std::runtime_error("cuTensorMapEncodeTiled is not available from this driver");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(K), cuuint64_t(rows)};           // innermost first
  const cuuint64_t strides[1] = {cuuint64_t(K) * sizeof(__nv_bfloat16)};  // bytes between rows
  const cuuint32_t box[2] = {64, cuuint32_t(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult rc = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<__nv_bfloat16*>(base), dims, strides,
                             box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (rc != CUDA_SUCCESS)
    throw std::invalid_argument("cuTensorMapEncodeTiled failed (error " + std::to_string(int(rc)) + ") for a " +
                                std::to_string(rows) + " x " + std::to_string(K) + " BF16 matrix");
  return map;
}

// Host: a 3D tensor map for `batches` row-major [rows][K] BF16 matrices one after the other (z =
// batch, y = row, x = column), boxes of box_rows x 64 x 1 with the 128-byte swizzle. Rows past `rows`
// read as zeros and are not written by stores, whatever batch follows. The same alignment rules as
// above, and the batch pitch (rows * K * 2 bytes) a multiple of 16.
inline CUtensorMap make_tensor_map_bf16_3d(const __nv_bfloat16* base, int batches, int rows, int K, int box_rows) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &status) !=
            cudaSuccess ||
        status != cudaDriverEntryPointSuccess || fn == nullptr)
      throw std::runtime_error("cuTensorMapEncodeTiled is not available from this driver");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  CUtensorMap map;
  const cuuint64_t dims[3] = {cuuint64_t(K), cuuint64_t(rows), cuuint64_t(batches)};
  const cuuint64_t strides[2] = {cuuint64_t(K) * sizeof(__nv_bfloat16),
                                 cuuint64_t(K) * cuuint64_t(rows) * sizeof(__nv_bfloat16)};
  const cuuint32_t box[3] = {64, cuuint32_t(box_rows), 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult rc = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, const_cast<__nv_bfloat16*>(base), dims, strides,
                             box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                             CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (rc != CUDA_SUCCESS)
    throw std::invalid_argument("cuTensorMapEncodeTiled failed (error " + std::to_string(int(rc)) + ") for " +
                                std::to_string(batches) + " BF16 matrices of " + std::to_string(rows) + " x " +
                                std::to_string(K));
  return map;
}

// Host: a tensor map for a row-major [rows][cols] FP32 matrix (C) written in boxes of box_rows x
// box_cols elements with the 128-byte swizzle (box_cols * 4 <= 128 bytes). TMA needs the row pitch
// (cols * 4 bytes) to be a multiple of 16 and the base 16-byte aligned: cols % 4 == 0.
inline CUtensorMap make_tensor_map_f32(const float* base, int rows, int cols, int box_rows, int box_cols) {
  static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult status{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &status) !=
            cudaSuccess ||
        status != cudaDriverEntryPointSuccess || fn == nullptr)
      throw std::runtime_error("cuTensorMapEncodeTiled is not available from this driver");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }();
  CUtensorMap map;
  const cuuint64_t dims[2] = {cuuint64_t(cols), cuuint64_t(rows)};
  const cuuint64_t strides[1] = {cuuint64_t(cols) * sizeof(float)};
  const cuuint32_t box[2] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult rc = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<float*>(base), dims, strides, box,
                             element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                             CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (rc != CUDA_SUCCESS)
    throw std::invalid_argument("cuTensorMapEncodeTiled failed (error " + std::to_string(int(rc)) + ") for a " +
                                std::to_string(rows) + " x " + std::to_string(cols) + " FP32 matrix");
  return map;
}

}  // namespace wb::hopper
