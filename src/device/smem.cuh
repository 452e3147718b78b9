// Dynamic shared memory as a step's SharedStorage struct.
#pragma once
#include <cstdint>

namespace ladder {

// The base rounded up to 1024 B: SW128 tiles must start on a 1024-B boundary (the swizzle works on absolute
// address bits), and the dynamic SMEM base is only guaranteed 16-B alignment. Launchers allocate
// sizeof(T) + 1024 bytes.
template <class T>
__device__ __forceinline__ T& align_smem(uint8_t* smem_raw) {
  return *reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
}

}  // namespace ladder
