// Tensor Memory (TMEM) arithmetic and the per-CTA budgets of sm_100a: plain constexpr, so the CPU tests
// and the kernels' static_asserts use the same rules. PTX ISA 9.7.16.7 "Tensor Memory".
#pragma once
#include <cstdint>

#include "device/descriptors.hpp"  // LADDER_HD

namespace ladder::sm100 {

inline constexpr uint32_t kTmemLanes = 128;    // one lane per accumulator row (M = 128, cta_group::1)
inline constexpr uint32_t kTmemColumns = 512;  // 32-bit cells per lane: 128 × 512 × 4 B = 256 KB per SM
inline constexpr uint32_t kMaxSmemPerCta = 227 * 1024;  // 228 KB per SM minus 1 KB reserved

// tcgen05.alloc takes a power of two in [32, 512] columns.
LADDER_HD constexpr bool valid_tmem_columns(uint32_t n) {
  return n >= 32 && n <= kTmemColumns && (n & (n - 1)) == 0;
}

// A TMEM address: lane in bits [16, 32), column in bits [0, 16). tcgen05.alloc returns lane 0 and a
// column base; a warp reading with tcgen05.ld.32x32b addresses its own 32-lane quarter (warp % 4).
LADDER_HD constexpr uint32_t tmem_addr(uint32_t base, uint32_t lane, uint32_t column) {
  return base + (lane << 16) + column;
}

// The TMEM lane quarter a warp may access: warp w reads lanes 32·(w % 4) … 32·(w % 4) + 31
// (PTX ISA 9.7.16.8.1). Epilogue warps must therefore cover all four values of w % 4.
LADDER_HD constexpr uint32_t warp_lane_base(uint32_t warp) { return 32 * (warp % 4); }

}  // namespace ladder::sm100
