// Named barriers (PTX ISA 9.7.13.1 bar.sync): a thread sync among `threads` threads of the CTA, so one role
// (an epilogue warpgroup) can synchronize without stopping the others. Id 0 is __syncthreads.
#pragma once

namespace ladder {

__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

}  // namespace ladder
