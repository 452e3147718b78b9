// tcgen05 vocabulary (sm_100a) that CCCL's cuda::ptx does not already provide. Everything else — alloc,
// dealloc, relinquish, mma, commit, ld, wait::ld, the two fences — is used straight from cuda::ptx.
#pragma once
#include <cuda/ptx>

#include <cstdint>

namespace ladder::sm100 {

// NOTE: cuda::ptx::tcgen05_ld_* is not `volatile`: without this, the compiler may move the first use of the
// loaded registers above tcgen05.wait::ld. Passing them through an empty volatile asm after the wait
// pins every use behind it (the same idiom as sm90::fence_operand for wgmma accumulators).
template <int N>
__device__ __forceinline__ void fence_registers(uint32_t (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+r"(r[i])::"memory");
}

}  // namespace ladder::sm100
