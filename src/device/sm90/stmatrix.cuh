// stmatrix (sm_90) and its inverse ldmatrix: a warp stores (loads) 8×8 b16 matrices from (into) registers,
// one row address per lane. CCCL's cuda::ptx has no wrapper, so these are ours. PTX ISA 9.7.14.5.15 ldmatrix,
// 9.7.14.5.16 stmatrix.
#pragma once
#include <cstdint>

namespace ladder::sm90 {

// stmatrix.sync.aligned.m8n8.x4: lane 8i + r gives the address of row r of matrix i; register i of lane l holds
// (row l/4, columns 2(l%4), +1) of matrix i — the layout of a wgmma accumulator fragment's pairs.
__device__ __forceinline__ void stmatrix_x4(uint32_t smem_row_addr, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(smem_row_addr), "r"(r0),
               "r"(r1), "r"(r2), "r"(r3)
               : "memory");
}

// ldmatrix.sync.aligned.m8n8.x4: stmatrix_x4's inverse: the same row addresses fill the same registers, so a
// thread gets back exactly the elements stmatrix_x4 took from it.
__device__ __forceinline__ void ldmatrix_x4(uint32_t smem_row_addr, uint32_t& r0, uint32_t& r1, uint32_t& r2,
                                            uint32_t& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(smem_row_addr)
               : "memory");
}

}  // namespace ladder::sm90
