// TMA tensor maps (host side): a 2D view of a row-major fp16 matrix for cp.async.bulk.tensor.
#pragma once
#include <cuda.h>  // CUtensorMap and its enums (types only; the driver entry point is fetched at run time)

#include <cstdint>

namespace ladder {

// rows × cols fp16 matrix, leading dimension `ld` elements (ld·2 must be a multiple of 16: ld % 8 == 0),
// base 16-byte aligned. One TMA box is box_rows × box_cols; with SWIZZLE_128B, box_cols·2 must be 128 B
// (64 fp16), the swizzle span. Out-of-bounds box elements read as zero: M, N and K tails cost nothing.
// Throws ladder::Error when the driver rejects the map.
// `promotion`: the L2 fill a TMA read of the map rounds its sectors up to.
CUtensorMap make_tensor_map_2d(const void* base, int64_t rows, int64_t cols, int64_t ld, uint32_t box_rows,
                               uint32_t box_cols, CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B,
                               CUtensorMapL2promotion promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B);

// The promotion of `bytes` (0, 64, 128 or 256) as the driver's enum.
inline CUtensorMapL2promotion l2_promotion(int bytes) {
  return bytes == 0     ? CU_TENSOR_MAP_L2_PROMOTION_NONE
         : bytes == 64  ? CU_TENSOR_MAP_L2_PROMOTION_L2_64B
         : bytes == 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_128B
                        : CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
}

}  // namespace ladder
