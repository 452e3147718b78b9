// The Hopper ladder's shared vocabulary for one 128x128 output tile with K-tiles of 64:
// the cooperative GMEM→SMEM copy, the k-tile of wgmmas, and the register→GMEM writeback.
// Steps h01–h03 use all three; later steps replace one hop at a time.
#pragma once
#include <cuda_fp16.h>

#include <cstdint>

#include "device/copy.cuh"
#include "device/descriptors.hpp"
#include "device/sm90/wgmma.cuh"

namespace ladder::hopper {

inline constexpr int BLK_M = 128;
inline constexpr int BLK_N = 128;
inline constexpr int BLK_K = 64;                 // 64 fp16 = 128 B = one swizzle row
inline constexpr int WGMMA_M = 64, WGMMA_K = 16;
inline constexpr int kWarpgroupThreads = 128;
inline constexpr int kAccRegs = BLK_N / 2;        // fp32 accumulators per thread per m64n128 wgmma
inline constexpr int kMHalves = BLK_M / WGMMA_M;  // one warpgroup covers 128 rows as two 64-row wgmmas

// Register budgets (setmaxnreg) of the warp-specialized CTAs, h07 on: a producer and two consumer warpgroups,
// launched with __launch_bounds__(384, 1), i.e. 168 registers per thread. The producer only issues TMA and gives
// registers back; the consumers take them for a 64×256 fp32 fragment (128 registers) plus addressing. Both must
// be multiples of 8, and the three warpgroups must fit in what the CTA was launched with, 384 · 168 = 64 512 (not
// the SM's 65 536: a setmaxnreg.inc that asks for more waits forever): 128·(40 + 2·232) = 64 512.
inline constexpr int kLaunchRegisters = (64 * 1024 / (3 * kWarpgroupThreads)) / 8 * 8;  // 168
inline constexpr int kProducerRegisters = 40;
inline constexpr int kConsumerRegisters = 232;
static_assert(kProducerRegisters + 2 * kConsumerRegisters <= 3 * kLaunchRegisters, "registers the CTA holds");

// All 128 threads copy a (rows, BLK_K) tile from row-major GMEM (leading dimension ld) into SW128 SMEM,
// 16 bytes per access (device/copy.cuh, shared with the Blackwell ladder). Rows 16-byte aligned: ld % 8 == 0.
template <int ROWS>
__device__ __forceinline__ void cooperative_copy(__half* smem, const __half* gmem, int64_t ld) {
  cooperative_copy_sw128<ROWS, kWarpgroupThreads>(smem, gmem, ld);
}

// One K-tile (BLK_K = 64 = four k16 slices) of the 128x128 tile: two 64-row wgmmas per slice.
// accumulate == false makes the first slice overwrite the accumulators: no zeroing needed.
__device__ __forceinline__ void mma_k_tile(float (&acc)[kMHalves][kAccRegs], const __half* a_smem,
                                           const __half* b_smem, bool accumulate) {
  const uint32_t a = sm90::smem_addr(a_smem), b = sm90::smem_addr(b_smem);
#pragma unroll
  for (int k = 0; k < BLK_K / WGMMA_K; ++k) {
    const uint64_t desc_b = sm90::kmajor_sw128_descriptor(b + k * WGMMA_K * 2);  // +32 B per k16
#pragma unroll
    for (int h = 0; h < kMHalves; ++h) {
      const uint64_t desc_a = sm90::kmajor_sw128_descriptor(a + h * WGMMA_M * 128 + k * WGMMA_K * 2);
      sm90::wgmma_m64n128k16(acc[h], desc_a, desc_b, (accumulate || k > 0) ? 1 : 0);
    }
  }
}

// One K-tile for a 64-row × N_FRAG accumulator fragment: `a_smem` points at the fragment's 64 rows of the
// SW128 A tile (1024-B aligned: rows come in 8-row atoms), `b_smem` at the N_FRAG-row B tile.
// T: the operands' type (fp16, or bf16 from h09 on; the SMEM is typed __half either way: 2-byte elements).
template <int N_FRAG, class T = __half>
__device__ __forceinline__ void mma_k_tile_64xN(float (&acc)[N_FRAG / 2], const __half* a_smem, const __half* b_smem,
                                                bool accumulate) {
  const uint32_t a = sm90::smem_addr(a_smem), b = sm90::smem_addr(b_smem);
#pragma unroll
  for (int k = 0; k < BLK_K / WGMMA_K; ++k)
    sm90::wgmma_m64k16<N_FRAG, T>(acc, sm90::kmajor_sw128_descriptor(a + k * WGMMA_K * 2),
                               sm90::kmajor_sw128_descriptor(b + k * WGMMA_K * 2), (accumulate || k > 0) ? 1 : 0);
}

// The same K-tile from the descriptors' low words of its A fragment and B tile (sm90::kmajor_sw128_lo; a ring's,
// built once and advanced to the stage by 32-bit adds: RingDescriptor). The kernel families (h09 on) use this form:
// rebuilt from SMEM pointers each K-tile, the descriptors cost a re-read of the CTA's shared window base (an S2UR of
// SR_CgaCtaId) and 64-bit arithmetic in the loop.
template <int N_FRAG, class T = __half>
__device__ __forceinline__ void mma_k_tile_64xN(float (&acc)[N_FRAG / 2], uint32_t a_lo, uint32_t b_lo,
                                                bool accumulate) {
#pragma unroll
  for (int k = 0; k < BLK_K / WGMMA_K; ++k)
    sm90::wgmma_m64k16<N_FRAG, T>(acc, sm90::kmajor_sw128_from_lo(sm90::desc_lo_advance(a_lo, k * WGMMA_K * 2)),
                                  sm90::kmajor_sw128_from_lo(sm90::desc_lo_advance(b_lo, k * WGMMA_K * 2)),
                                  (accumulate || k > 0) ? 1 : 0);
}

// A ring of SW128 K-major stages, `stage_bytes` apart from `first_stage`, as its first descriptor's low word plus
// offsets. NOTE: the low word is computed once and hidden from the optimizer (an empty asm): otherwise the compiler
// re-derived it from the SMEM window inside the K-tile loop.
struct RingDescriptor {
  uint32_t first;
  uint32_t stage_bytes;
  __device__ __forceinline__ RingDescriptor(const void* first_stage, uint32_t bytes)
      : first(sm90::kmajor_sw128_lo(sm90::smem_addr(first_stage))), stage_bytes(bytes) {
    asm volatile("" : "+r"(first));
  }
  // The low word of the stage's tile, `offset` bytes in (a 64-row fragment: 64 · 128 B per fragment).
  __device__ __forceinline__ uint32_t at(uint32_t stage, uint32_t offset = 0) const {
    return sm90::desc_lo_advance(first, stage * stage_bytes + offset);
  }
};

// Register → GMEM for one 64×N wgmma accumulator fragment whose first row is `row0`.
// Layout (PTX ISA 9.7.15.5.1, "Matrix D fragment" for m64nNk16): thread t = 32w + l holds, for register
// i = v0 + 2·v1 + 4·j, row 16w + l/4 + 8·v1, column 8j + 2(l%4) + v0. Cast to fp16 once, here.
// Rows/columns outside [M, N) are not written (tails).
template <int N_FRAG>
__device__ __forceinline__ void store_fragment(const float (&acc)[N_FRAG / 2], __half* D, int64_t ldd, int64_t row0,
                                               int64_t col0, int64_t M, int64_t N) {
  const int w = threadIdx.x / 32 % 4, l = threadIdx.x % 32;
  const bool pairs_aligned = ldd % 2 == 0 && reinterpret_cast<uintptr_t>(D) % 4 == 0;  // half2 stores
#pragma unroll
  for (int j = 0; j < N_FRAG / 8; ++j)
#pragma unroll
    for (int v1 = 0; v1 < 2; ++v1) {
      const int64_t row = row0 + 16 * w + l / 4 + 8 * v1;
      const int64_t col = col0 + 8 * j + 2 * (l % 4);
      if (row >= M) continue;
      const float x = acc[4 * j + 2 * v1], y = acc[4 * j + 2 * v1 + 1];
      __half* out = D + row * ldd + col;
      if (pairs_aligned && col + 1 < N) {
        *reinterpret_cast<__half2*>(out) = __floats2half2_rn(x, y);
      } else {
        if (col < N) out[0] = __float2half_rn(x);
        if (col + 1 < N) out[1] = __float2half_rn(y);
      }
    }
}

// The whole 128×128 tile: two 64-row fragments.
__device__ __forceinline__ void store_tile(const float (&acc)[kMHalves][kAccRegs], __half* D, int64_t ldd,
                                           int64_t m0, int64_t n0, int64_t M, int64_t N) {
#pragma unroll
  for (int h = 0; h < kMHalves; ++h) store_fragment<BLK_N>(acc[h], D, ldd, m0 + h * WGMMA_M, n0, M, N);
}

}  // namespace ladder::hopper
