// wgmma vocabulary (sm_90a): CCCL's cuda::ptx has no wgmma wrappers, so these are ours.
// One PTX instruction per function. PTX ISA 9.7.15 "Asynchronous Warpgroup Level Matrix Multiply".
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "device/descriptors.hpp"
#include "device/sm90/wgmma_ops.cuh"

namespace ladder::sm90 {

// Orders register accesses to the accumulators before the wgmma that reads them (required before the
// first wgmma and whenever other instructions touched the accumulator registers).
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

// Batches every uncommitted wgmma of this warpgroup into one group.
__device__ __forceinline__ void wgmma_commit_group() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

// Waits until at most N groups are pending; the accumulators (and the SMEM read) of the others are done.
template <int N>
__device__ __forceinline__ void wgmma_wait_group() {
  static_assert(N >= 0 && N <= 7, "wgmma.wait_group takes 0..7");
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// NOTE: keeps the compiler from moving accumulator reads/writes across the async wgmma window.
template <int R>
__device__ __forceinline__ void fence_operand(float (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(acc[i])::"memory");
}

// m64nNk16 by N and operand type T (__half or __nv_bfloat16; the shapes tools/gen_wgmma.py generates).
template <int N, class T = __half>
__device__ __forceinline__ void wgmma_m64k16(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b, int scale_d) {
  constexpr bool bf16 = std::is_same_v<T, __nv_bfloat16>;
  static_assert(bf16 || std::is_same_v<T, __half>, "wgmma operands here are fp16 or bf16");
#define LADDER_WGMMA_CASE(n)                                              \
  if constexpr (N == n) {                                                 \
    if constexpr (bf16) wgmma_m64n##n##k16_bf16(d, desc_a, desc_b, scale_d); \
    else wgmma_m64n##n##k16(d, desc_a, desc_b, scale_d);                  \
  }
  LADDER_WGMMA_CASE(8)
  LADDER_WGMMA_CASE(16)
  LADDER_WGMMA_CASE(32)
  LADDER_WGMMA_CASE(64)
  LADDER_WGMMA_CASE(96)
  LADDER_WGMMA_CASE(112)
  LADDER_WGMMA_CASE(128)
  LADDER_WGMMA_CASE(144)
  LADDER_WGMMA_CASE(192)
  LADDER_WGMMA_CASE(208)
  LADDER_WGMMA_CASE(224)
  LADDER_WGMMA_CASE(256)
#undef LADDER_WGMMA_CASE
  static_assert(N == 8 || N == 16 || N == 32 || N == 64 || N == 96 || N == 112 || N == 128 || N == 144 || N == 192 ||
                    N == 208 || N == 224 || N == 256,
                "no wgmma wrapper generated for this N");
}

// setmaxnreg (PTX ISA 9.7.19.5): hand registers between warpgroups of a warp-specialized CTA. Every warp
// of the warpgroup executes it; the kernel needs a register cap at launch (__launch_bounds__(threads, 1)).
template <int R>
__device__ __forceinline__ void setmaxnreg_dec() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0);
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(R));
}
template <int R>
__device__ __forceinline__ void setmaxnreg_inc() {
  static_assert(R >= 24 && R <= 256 && R % 8 == 0);
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(R));
}

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

}  // namespace ladder::sm90
