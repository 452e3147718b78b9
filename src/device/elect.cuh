// elect.sync (PTX ISA 9.7.13.11, sm_90+): CCCL's cuda::ptx has no wrapper, so this is ours.
#pragma once
#include <cstdint>

namespace ladder {

// True in exactly one lane of the calling warp (all 32 lanes must execute it). NOTE: one lane *per warp*:
// to get one thread per CTA, narrow to one warp first (`warp == 0 && elect_one_sync()`).
__device__ __forceinline__ bool elect_one_sync() {
  uint32_t elected = 0;
  asm volatile(
      "{\n\t.reg .pred P;\n\t"
      "elect.sync _|P, 0xffffffff;\n\t"
      "selp.u32 %0, 1, 0, P;\n\t}"
      : "=r"(elected));
  return elected != 0;
}

}  // namespace ladder
