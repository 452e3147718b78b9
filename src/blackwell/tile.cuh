// The Blackwell ladder's shared vocabulary for one 128x128 output tile with K-tiles of 64: the cooperative
// GMEM→SMEM copy, the k-tile of tcgen05.mma, the TMEM allocation, and the TMEM→register→GMEM writeback.
// Steps b01–b03 use all of it; later steps replace one hop at a time. Compiled for sm_100a only.
#pragma once
#include <cuda/ptx>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "device/copy.cuh"
#include "device/descriptors.hpp"
#include "device/sm100/tcgen05.cuh"
#include "device/sm100/tmem.hpp"
#include "step.hpp"

namespace ladder::blackwell {

inline constexpr int BLK_M = 128;
inline constexpr int BLK_N = 128;
inline constexpr int BLK_K = 64;                 // 64 fp16 = 128 B = one swizzle row
inline constexpr int MMA_K = 16;                 // kind::f16: every tcgen05.mma consumes 32 bytes of K
inline constexpr int kWarpgroupThreads = 128;
inline constexpr uint32_t kTmemCols = BLK_N;     // fp32 accumulator: row m → TMEM lane m, column n → column n
inline constexpr uint32_t kIdesc = sm100::instr_descriptor_f16_f32(BLK_M, BLK_N);  // 0x08200010
static_assert(sm100::valid_tmem_columns(kTmemCols), "tcgen05.alloc takes a power of two in [32, 512]");

// All 128 threads copy a (ROWS, BLK_K) tile into SW128 SMEM (the shared copy of steps 01–03).
template <int ROWS>
__device__ __forceinline__ void cooperative_copy(__half* smem, const __half* gmem, int64_t ld) {
  cooperative_copy_sw128<ROWS, kWarpgroupThreads>(smem, gmem, ld);
}

// cta_group::1 (one CTA) or cta_group::2 (a CTA pair, from b08 on). Every cta_group-qualified tcgen05
// instruction of a kernel must use the same one.
template <int CTA_GROUP>
inline constexpr auto cta_group = cuda::ptx::cta_group_1;
template <>
inline constexpr auto cta_group<2> = cuda::ptx::cta_group_2;

// Warp-collective (the whole warp, no lane guard): allocates COLS TMEM columns and writes their base
// address to `*slot` in SMEM. Then gives up the right to allocate again, so that other CTAs waiting on
// this SM's TMEM are not held back by us (we never allocate twice). With CTA_GROUP == 2 one warp of
// EACH CTA of the pair executes it.
template <uint32_t COLS, int CTA_GROUP = 1>
__device__ __forceinline__ void tmem_allocate(uint32_t* slot) {
  static_assert(sm100::valid_tmem_columns(COLS));
  cuda::ptx::tcgen05_alloc(cta_group<CTA_GROUP>, slot, COLS);
  cuda::ptx::tcgen05_relinquish_alloc_permit(cta_group<CTA_GROUP>);
}

// Warp-collective, by the allocating warp, after every TMEM read has been fenced and synchronized.
template <uint32_t COLS, int CTA_GROUP = 1>
__device__ __forceinline__ void tmem_free(uint32_t tmem_base) {
  cuda::ptx::tcgen05_dealloc(cta_group<CTA_GROUP>, tmem_base, COLS);
}

// The end of a one-CTA kernel (b01–b07): every tcgen05.ld has completed (wait::ld) and is fenced before
// the thread sync; then the allocating warp deallocates.
template <uint32_t COLS>
__device__ __forceinline__ void tmem_release(bool allocating_warp, uint32_t tmem_base) {
  cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  if (allocating_warp) {
    __syncwarp();
    cuda::ptx::tcgen05_fence_after_thread_sync();
    tmem_free<COLS>(tmem_base);
  }
}

// The end of a CTA-pair kernel (b08 on): no CTA deallocates or leaves while its peer may still read its SMEM
// (the leader's MMAs) or signal its barriers; then the allocating warp of each CTA frees the pair's TMEM.
template <uint32_t COLS, class Cluster>
__device__ __forceinline__ void tmem_release_pair(const Cluster& cluster, bool allocating_warp, uint32_t tmem_base) {
  cuda::ptx::tcgen05_fence_before_thread_sync();
  cluster.sync();
  if (allocating_warp) {
    __syncwarp();
    cuda::ptx::tcgen05_fence_after_thread_sync();
    tmem_free<COLS, 2>(tmem_base);
  }
}

// What the TMA-fed steps (b04 on) accept: rows TMA can read, and D rows written 16 bytes at a time.
inline std::string require_tma_rows_and_16b_stores(const detail::Problem& p,
                                                   std::string_view why = " (16-byte stores from TMEM rows)") {
  if (auto e = detail::require_tma_rows(p); !e.empty()) return e;
  if (auto e = detail::require_multiple("N", p.N, 8); !e.empty()) return e + std::string(why);
  return detail::require_multiple("ldd", p.ldd, 8);
}

// The smem descriptors of one (rows, BLK_K) SW128 K-major tile, advanced to k16 slice k: +32 B of start
// address inside the 128-B swizzle atom (PTX ISA 9.7.16.4.1; the hardware applies the XOR on absolute
// address bits, so the tile base stays 1024-B aligned and base_offset stays 0).
__device__ __forceinline__ uint64_t smem_desc(const __half* tile, int k) {
  return sm100::kmajor_sw128_descriptor(static_cast<uint32_t>(__cvta_generic_to_shared(tile)) + k * MMA_K * 2);
}

// One K-tile of the 128x128 tile: four tcgen05.mma m128n128k16. Issued by ONE thread: each instruction is
// a full-tile operation. accumulate == false makes the first slice overwrite TMEM (it holds garbage).
// With CTA_GROUP == 2 (issued by the pair's leader) the same SMEM offsets are read in both CTAs: A rows
// 0–127 from the leader and 128–255 from its peer, B rows likewise split; `idesc` names M = 256.
template <int CTA_GROUP = 1>
__device__ __forceinline__ void mma_k_tile(uint32_t acc, const __half* a_smem, const __half* b_smem,
                                           bool accumulate, uint32_t idesc = kIdesc) {
#pragma unroll
  for (int k = 0; k < BLK_K / MMA_K; ++k)
    cuda::ptx::tcgen05_mma(cuda::ptx::kind_f16, cta_group<CTA_GROUP>, acc, smem_desc(a_smem, k),
                           smem_desc(b_smem, k), idesc, accumulate || k > 0);
}

// TMEM → registers → GMEM for COLS accumulator columns. Thread (warp w, lane l) owns TMEM lane
// 32·(w % 4) + l, i.e. output row m0 + 32·(w % 4) + l, and reads it 32 columns at a time
// (tcgen05.ld.32x32b.x32: 32 registers = 32 consecutive columns of its lane). Cast to fp16 once, here.
// Rows ≥ M are not written; columns are written in 16-byte groups of 8, so N % 8 == 0 and ldd % 8 == 0.
// Every warp executes every tcgen05.ld (warp-collective) even where its rows are out of range.
template <int COLS>
__device__ __forceinline__ void store_tile(uint32_t acc, __half* D, int64_t ldd, int64_t m0, int64_t n0,
                                           int64_t M, int64_t N) {
  const uint32_t warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t row = m0 + sm100::warp_lane_base(warp) + lane;
#pragma unroll 1
  for (int c = 0; c < COLS; c += 32) {
    uint32_t v[32];
    cuda::ptx::tcgen05_ld_32x32b(v, sm100::tmem_addr(acc, sm100::warp_lane_base(warp), c));
    cuda::ptx::tcgen05_wait_ld();
    sm100::fence_registers(v);
    if (row >= M) continue;
#pragma unroll
    for (int g = 0; g < 4; ++g) {  // four 16-byte groups of 8 columns
      const int64_t col = n0 + c + 8 * g;
      if (col >= N) break;
      uint4 out;
      uint32_t* h = reinterpret_cast<uint32_t*>(&out);
#pragma unroll
      for (int j = 0; j < 4; ++j) {
        const __half2 pair = __floats2half2_rn(__uint_as_float(v[8 * g + 2 * j]), __uint_as_float(v[8 * g + 2 * j + 1]));
        h[j] = *reinterpret_cast<const uint32_t*>(&pair);
      }
      *reinterpret_cast<uint4*>(D + row * ldd + col) = out;
    }
  }
}

}  // namespace ladder::blackwell
