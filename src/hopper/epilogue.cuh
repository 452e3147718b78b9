// The Hopper ladder's asynchronous writeback: wgmma fragment → (cast) → stmatrix → SW128 SMEM tile →
// one TMA store per 64-column block. Used from h09 on.
#pragma once
#include <cuda/ptx>

#include "device/descriptors.hpp"
#include "device/named_barrier.cuh"
#include "device/sm90/stmatrix.cuh"
#include "device/tma.cuh"
#include "hopper/tile.cuh"

namespace ladder::hopper {

__device__ __forceinline__ uint32_t pack_half2(float x, float y) {
  const __half2 h = __floats2half2_rn(x, y);
  return *reinterpret_cast<const uint32_t*>(&h);
}

// The SMEM image of a 64 × N_FRAG fp16 tile: N_FRAG/64 column blocks of (64 rows × 128 B), each SW128
// swizzled exactly as a SWIZZLE_128B tensor map with box {64, 64} expects.
template <int N_FRAG>
inline constexpr uint32_t kEpilogueTileBytes = 64 * N_FRAG * 2;

// All 128 threads of a warpgroup: cast the fragment and write it into the SMEM image (conflict-free:
// the swizzle spreads each 8-row stmatrix phase over all banks).
template <int N_FRAG>
__device__ __forceinline__ void fragment_to_smem(const float (&acc)[N_FRAG / 2], __half* tile) {
  const int w = threadIdx.x / 32 % 4, l = threadIdx.x % 32;
  const uint32_t base = sm90::smem_addr(tile);
  const int i = l / 8, r = l % 8;  // this lane addresses row r of matrix i
  const int row = 16 * w + r + 8 * (i % 2);
#pragma unroll
  for (int j = 0; j < N_FRAG / 8; j += 2) {
    const int col = 8 * (j + i / 2);  // matrices 0,1: column block j; 2,3: block j+1
    const uint32_t addr = base + (col / 64) * (64 * 128) + sw128_offset(row, (col % 64) * 2);
    sm90::stmatrix_x4(addr, pack_half2(acc[4 * j + 0], acc[4 * j + 1]), pack_half2(acc[4 * j + 2], acc[4 * j + 3]),
                      pack_half2(acc[4 * j + 4], acc[4 * j + 5]), pack_half2(acc[4 * j + 6], acc[4 * j + 7]));
  }
}

// Named barrier over one warpgroup (ids 1.. : 0 is __syncthreads).
__device__ __forceinline__ void warpgroup_sync(int id) { named_barrier_sync(id, kWarpgroupThreads); }

// Writes FRAGS stacked 64 × N_FRAG fragments (rows row0 + 64f) through `tile` in SMEM with TMA stores;
// the stores stay in flight when this returns. The calling warpgroup owns `tile` and named barrier `bar_id`.
template <int N_FRAG, int FRAGS>
__device__ __forceinline__ void store_tile_tma(const float (&acc)[FRAGS][N_FRAG / 2], __half* tile,
                                               const CUtensorMap* tmap_d, int row0, int col0, int bar_id) {
  const bool leader = threadIdx.x % kWarpgroupThreads == 0;
  if (leader) tma_store_wait_read<0>();  // the previous tile's stores have finished reading `tile`
  warpgroup_sync(bar_id);
#pragma unroll
  for (int f = 0; f < FRAGS; ++f) fragment_to_smem<N_FRAG>(acc[f], tile + f * 64 * N_FRAG);
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // stmatrix (generic proxy) → TMA (async proxy)
  warpgroup_sync(bar_id);
  if (leader) {
#pragma unroll
    for (int f = 0; f < FRAGS; ++f)
#pragma unroll
      for (int b = 0; b < N_FRAG / 64; ++b)
        tma_store_2d(tmap_d, col0 + 64 * b, row0 + 64 * f, tile + f * 64 * N_FRAG + b * 64 * 64);
    tma_store_commit();
  }
}

// Before the CTA exits: every store issued by this thread has completed.
__device__ __forceinline__ void tma_store_drain() { cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{}); }

}  // namespace ladder::hopper
