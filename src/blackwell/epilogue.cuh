// The Blackwell ladder's asynchronous writeback (b10): TMEM → registers → (cast) → SW128 SMEM block →
// TMA store. One 64-column block at a time, so a block is exactly one SWIZZLE_128B box (64 fp16 = 128 B
// per row) of 128 rows; two staging buffers let block j's store overlap block j+1's TMEM reads.
#pragma once
#include <cuda/ptx>

#include "blackwell/tile.cuh"
#include "device/named_barrier.cuh"
#include "device/tma.cuh"

namespace ladder::blackwell {

inline constexpr int kStoreCols = 64;                                    // one SW128 box wide
inline constexpr uint32_t kStagingBytes = BLK_M * kStoreCols * sizeof(__half);  // 16 KB: (BLK_M, 64)

// Thread (warp w, lane l) of the epilogue warpgroup reads TMEM lane 32·(w % 4) + l, columns
// [col, col + 64), casts to fp16 and writes that row of the (BLK_M, 64) block into `block` (SW128, 1024-B
// aligned: the layout a SWIZZLE_128B tensor map with box {64, BLK_M} reads).
__device__ __forceinline__ void tmem_block_to_smem(uint32_t acc, int col, __half* block) {
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const uint32_t row = sm100::warp_lane_base(warp) + lane;
  uint32_t v[2][32];
  cuda::ptx::tcgen05_ld_32x32b(v[0], sm100::tmem_addr(acc, sm100::warp_lane_base(warp), col));
  cuda::ptx::tcgen05_ld_32x32b(v[1], sm100::tmem_addr(acc, sm100::warp_lane_base(warp), col + 32));
  cuda::ptx::tcgen05_wait_ld();  // one wait for both loads
  sm100::fence_registers(v[0]);
  sm100::fence_registers(v[1]);
  uint8_t* out = reinterpret_cast<uint8_t*>(block);
#pragma unroll
  for (int g = 0; g < 8; ++g) {  // eight 16-byte chunks of 8 columns
    const uint32_t* x = &v[g / 4][8 * (g % 4)];
    uint4 chunk;
    uint32_t* h = reinterpret_cast<uint32_t*>(&chunk);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const __half2 pair = __floats2half2_rn(__uint_as_float(x[2 * j]), __uint_as_float(x[2 * j + 1]));
      h[j] = *reinterpret_cast<const uint32_t*>(&pair);
    }
    *reinterpret_cast<uint4*>(out + sw128_offset(row, g * 16)) = chunk;
  }
}

}  // namespace ladder::blackwell
