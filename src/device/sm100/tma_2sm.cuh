// TMA for a CTA pair (cta_group::2, sm_100a). CCCL's cuda::ptx::cp_async_bulk_tensor(…, cta_group_2, …)
// takes the mbarrier as a local pointer; in a pair both CTAs must signal the LEADER's barrier, so these
// wrappers take its shared::cluster address (shared_cluster_addr, device/cluster.cuh) instead.
// PTX ISA 9.7.9.25 cp.async.bulk.tensor.
#pragma once
#include <cuda.h>

#include <cstdint>

#include "device/cluster.cuh"

namespace ladder::sm100 {

// Loads one box of `map` at (col = innermost coordinate, row) into this CTA's SMEM; the tx-bytes are
// signalled on the barrier at shared::cluster address `bar` — the pair leader's, for both CTAs.
__device__ __forceinline__ void tma_load_2d_2sm(void* smem_dst, const CUtensorMap* map, int32_t col, int32_t row,
                                                uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.cta_group::2"
      " [%0], [%1, {%2, %3}], [%4];"
      :
      : "r"(static_cast<uint32_t>(__cvta_generic_to_shared(smem_dst))), "l"(map), "r"(col), "r"(row), "r"(bar)
      : "memory");
}

}  // namespace ladder::sm100
