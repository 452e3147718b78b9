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

// The same rounding as a byte pointer computed from `smem_raw` itself, so the compiler still knows it points into
// shared memory (LDS/STS rather than generic loads and stores; align_smem's integer round trip loses that).
__device__ __forceinline__ uint8_t* align_smem_bytes(uint8_t* smem_raw) {
  const uint32_t base = static_cast<uint32_t>(__cvta_generic_to_shared(smem_raw));
  return smem_raw + ((1024u - (base & 1023u)) & 1023u);
}

}  // namespace ladder
