// The synchronous GMEM → SMEM copy of steps 01–03 (both ladders): every thread of the CTA copies its
// share of a (ROWS, 64) fp16 tile into the 128B-swizzled K-major layout the tensor core reads.
#pragma once
#include <cuda_fp16.h>

#include <cstdint>

#include "device/descriptors.hpp"

namespace ladder {

// Rows of 64 fp16 = 128 B = one swizzle row, 16 bytes per access. GMEM rows must be 16-byte aligned:
// ld % 8 == 0. THREADS is the number of threads that share the copy (all of them call it).
template <int ROWS, int THREADS>
__device__ __forceinline__ void cooperative_copy_sw128(__half* smem, const __half* gmem, int64_t ld) {
  constexpr int kChunksPerRow = kSwizzleBytes / 16;  // 8
  uint8_t* dst = reinterpret_cast<uint8_t*>(smem);
#pragma unroll
  for (int i = threadIdx.x; i < ROWS * kChunksPerRow; i += THREADS) {
    const int row = i / kChunksPerRow, chunk = i % kChunksPerRow;
    const uint4 v = *reinterpret_cast<const uint4*>(gmem + row * ld + chunk * 8);
    *reinterpret_cast<uint4*>(dst + sw128_offset(row, chunk * 16)) = v;
  }
}

}  // namespace ladder
