// Named barriers (PTX ISA 9.7.13.1 bar.sync): a thread sync among `threads` threads of the CTA, so one role
// (an epilogue warpgroup) can synchronize without stopping the others. Id 0 is __syncthreads.
#pragma once

namespace ladder {

__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// The whole CTA, counted thread by thread (barrier.sync without .aligned, PTX ISA 9.7.13.1): threads of one warp may
// arrive from different branches (a producer warp whose one lane ran the loads). __syncthreads() is the aligned
// form, defined for converged warps only.
__device__ __forceinline__ void cta_barrier_sync() { asm volatile("barrier.sync 0;" ::: "memory"); }

}  // namespace ladder
