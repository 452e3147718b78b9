// TMA (the copy engine) vocabulary, over CCCL's cuda::ptx wrappers. PTX ISA 9.7.9.25 cp.async.bulk.tensor.
#pragma once
#include <cuda.h>
#include <cuda/ptx>

#include <cstdint>

namespace ladder {

// Loads one box of `map` at (col = innermost coordinate, row) into SMEM; completion is signalled on `bar`
// as tx-bytes (the full box, out-of-bounds zeros included).
__device__ __forceinline__ void tma_load_2d(void* smem_dst, const CUtensorMap* map, int32_t col, int32_t row,
                                            uint64_t* bar) {
  const int32_t coords[2] = {col, row};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, smem_dst, map, coords, bar);
}

// Fetches `map` (a __grid_constant__ kernel parameter) into the cache the TMA unit reads descriptors from, so the
// first load through it does not wait for that fetch (PTX ISA, `prefetch`: .tensormap with the generic address of the
// parameter). Issued before griddepcontrol.wait, the fetch overlaps the previous kernel's tail. CCCL 13.0's cuda::ptx
// has no prefetch.tensormap, hence the inline PTX.
__device__ __forceinline__ void tma_prefetch_map(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<uint64_t>(map)) : "memory");
}

// An L2 eviction policy for a stream read once (PTX ISA 9.7.9.17 createpolicy): evict these lines first.
__device__ __forceinline__ uint64_t l2_evict_first_policy() {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

// tma_load_2d with an L2 cache hint (`policy` from createpolicy). CCCL's cuda::ptx has no .L2::cache_hint form of
// the tensor load, hence the inline PTX (PTX ISA 9.7.9.25.5.2).
__device__ __forceinline__ void tma_load_2d_hint(void* smem_dst, const CUtensorMap* map, int32_t col, int32_t row,
                                                 uint64_t* bar, uint64_t policy) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint"
      " [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(static_cast<uint32_t>(__cvta_generic_to_shared(smem_dst))),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row),
      "r"(static_cast<uint32_t>(__cvta_generic_to_shared(bar))), "l"(policy)
      : "memory");
}

// Loads the same box into the SMEM of every CTA in `cta_mask` (same offsets); each CTA's `bar` gets the tx-bytes.
__device__ __forceinline__ void tma_load_2d_multicast(void* smem_dst, const CUtensorMap* map, int32_t col, int32_t row,
                                                      uint64_t* bar, uint16_t cta_mask) {
  const int32_t coords[2] = {col, row};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global, smem_dst, map, coords, bar,
                                  cta_mask);
}

// Stores one box from SMEM to `map` at (col, row); out-of-bounds parts of the box are not written.
// Completion is tracked per thread with bulk groups (commit, then wait_group_read before reusing the SMEM).
__device__ __forceinline__ void tma_store_2d(const CUtensorMap* map, int32_t col, int32_t row, const void* smem_src) {
  const int32_t coords[2] = {col, row};
  cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, map, coords, smem_src);
}
__device__ __forceinline__ void tma_store_commit() { cuda::ptx::cp_async_bulk_commit_group(); }
template <int N>
__device__ __forceinline__ void tma_store_wait_read() {  // ≤ N store groups may still be reading SMEM
  cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<N>{});
}

}  // namespace ladder
