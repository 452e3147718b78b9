// Addressing another CTA's shared memory in a thread-block cluster (sm_90+, both ladders): CCCL's cuda::ptx
// has no mapa wrapper, so this is ours. PTX ISA 9.7.9.4 mapa.
#pragma once
#include <cstdint>

namespace ladder {

// The shared::cluster address of the object at the same offset as `local` in CTA `rank` of the cluster.
__device__ __forceinline__ uint32_t shared_cluster_addr(const void* local, uint32_t rank) {
  uint32_t out;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(out)
               : "r"(static_cast<uint32_t>(__cvta_generic_to_shared(local))), "r"(rank));
  return out;
}

}  // namespace ladder
