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

// Copies `bytes` (a multiple of 16, both ends 16-byte aligned) of this CTA's SMEM at `src` to the shared::cluster
// address `dst` (another CTA's SMEM, from shared_cluster_addr) by the bulk-copy engine; completion is signalled on the
// mbarrier at shared::cluster address `bar` (in the destination CTA) as tx-bytes (PTX ISA, cp.async.bulk).
// CCCL's wrapper takes generic pointers and converts them with cvta.to.shared, whose result the ISA defines only for
// this CTA's window: hence the mapa addresses and the inline PTX.
__device__ __forceinline__ void bulk_copy_to_cluster(uint32_t dst, const void* src, uint32_t bytes, uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
               ::"r"(dst), "r"(static_cast<uint32_t>(__cvta_generic_to_shared(src))), "r"(bytes), "r"(bar)
               : "memory");
}

}  // namespace ladder
