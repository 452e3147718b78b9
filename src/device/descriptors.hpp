// Descriptor encoders and the 128-byte swizzle: plain constexpr arithmetic, shared by host and device,
// so the CPU tests check exactly the bits the kernels use.
#pragma once
#include <cstdint>

#if defined(__CUDACC__)
#define LADDER_HD __host__ __device__
#else
#define LADDER_HD
#endif

namespace ladder {

// ---- 128B swizzle (CUTLASS Swizzle<3,4,3>) -------------------------------------------------------
// A K-major fp16 tile with BLK_K = 64 has rows of exactly 128 B. Rows come in 8-row "atoms" of 1024 B;
// inside an atom, the 16-byte chunk c of row r is stored at chunk c ^ (r % 8). The hardware (TMA and
// the tensor core) applies the XOR on absolute address bits [4,7) ^ [7,10), so tiles start 1024-B aligned.
inline constexpr uint32_t kSwizzleBytes = 128;
inline constexpr uint32_t kSwizzleAtomBytes = 8 * kSwizzleBytes;  // 8 rows x 128 B

LADDER_HD constexpr uint32_t sw128_offset(uint32_t row, uint32_t byte_in_row) {
  const uint32_t chunk = (byte_in_row >> 4) ^ (row & 7u);
  return row * kSwizzleBytes + (chunk << 4) + (byte_in_row & 15u);
}

namespace sm90 {
// ---- wgmma shared-memory matrix descriptor (PTX ISA 9.7.15.5.1 "Matrix Descriptor Format") -------
// bits [0,14) start address >> 4 · [16,30) leading byte offset >> 4 · [32,46) stride byte offset >> 4
// bits [49,52) base offset (0: tiles 1024-B aligned) · [62,64) swizzle: 0 none, 1 128B, 2 64B, 3 32B.
enum class Swizzle : uint64_t { none = 0, b128 = 1, b64 = 2, b32 = 3 };

LADDER_HD constexpr uint64_t matrix_descriptor(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes,
                                               Swizzle swizzle) {
  return (uint64_t{(smem_addr & 0x3FFFFu) >> 4}) | (uint64_t{(lbo_bytes >> 4) & 0x3FFFu} << 16) |
         (uint64_t{(sbo_bytes >> 4) & 0x3FFFu} << 32) | (static_cast<uint64_t>(swizzle) << 62);
}

// K-major, SWIZZLE_128B, 16-bit data: SBO = 1024 B between 8-row groups; LBO is unused for swizzled
// K-major layouts (encode 16 B, "assumed 1" in CUTLASS). Advancing k16 inside the atom = +32 B of start.
LADDER_HD constexpr uint64_t kmajor_sw128_descriptor(uint32_t smem_addr) {
  return matrix_descriptor(smem_addr, 16, kSwizzleAtomBytes, Swizzle::b128);
}
// A K-major SW128 descriptor's high word is the same for every tile (SBO 1024 B, swizzle 128B); its low word holds
// the start address (and the unused LBO). Kernels build a ring's first low word once and advance it per stage and
// k16 slice by a 32-bit add of bytes >> 4: exact while the address stays inside the 256 KB the 14-bit field spans (a
// CTA's SMEM is ≤ 228 KB), so no carry reaches the LBO bits; no 64-bit add, no rebuild from an SMEM pointer.
inline constexpr uint32_t kKmajorSw128Hi = static_cast<uint32_t>(kmajor_sw128_descriptor(0) >> 32);
LADDER_HD constexpr uint32_t kmajor_sw128_lo(uint32_t smem_addr) {
  return static_cast<uint32_t>(kmajor_sw128_descriptor(smem_addr));
}
LADDER_HD constexpr uint32_t desc_lo_advance(uint32_t lo, uint32_t bytes) { return lo + (bytes >> 4); }
LADDER_HD constexpr uint64_t kmajor_sw128_from_lo(uint32_t lo) { return (uint64_t{kKmajorSw128Hi} << 32) | lo; }
}  // namespace sm90

namespace sm100 {
// ---- tcgen05 shared-memory descriptor (PTX ISA 9.7.16.4.1 "Shared Memory Descriptor") -------------
// As sm90 for bits [0,46), plus: bits [46,49) fixed 0b001 (version) · [49,52) base offset ·
// bit 52 LBO mode (0 relative) · [61,64) swizzle: 0 none, 1 128B/32B-atom, 2 128B, 4 64B, 6 32B.
enum class Swizzle : uint64_t { none = 0, b128_base32b = 1, b128 = 2, b64 = 4, b32 = 6 };

LADDER_HD constexpr uint64_t smem_descriptor(uint32_t smem_addr, uint32_t lbo_bytes, uint32_t sbo_bytes,
                                             Swizzle swizzle) {
  return (uint64_t{(smem_addr & 0x3FFFFu) >> 4}) | (uint64_t{(lbo_bytes >> 4) & 0x3FFFu} << 16) |
         (uint64_t{(sbo_bytes >> 4) & 0x3FFFu} << 32) | (uint64_t{1} << 46) |
         (static_cast<uint64_t>(swizzle) << 61);
}

LADDER_HD constexpr uint64_t kmajor_sw128_descriptor(uint32_t smem_addr) {
  return smem_descriptor(smem_addr, 16, kSwizzleAtomBytes, Swizzle::b128);
}

// ---- tcgen05.mma instruction descriptor, kind::f16 (PTX ISA 9.7.16.10.2, Table "Instruction descriptor")
// bits [4,6) D type (0 = f16, 1 = f32) · [7,10) A type (0 = f16, 1 = bf16) · [10,13) B type (likewise) ·
// 13/14 negate A/B (0) · 15/16 transpose A/B (0 = K-major, 1 = MN-major) · [17,23) N >> 3 · bit 23 reserved ·
// [24,29) M >> 4. Bits [0,4) (sparsity, saturate) and [30,32) (max shift, .ws only) stay 0.
enum class InputType : uint32_t { f16 = 0, bf16 = 1 };  // A and B of kind::f16
enum class AccumType : uint32_t { f16 = 0, f32 = 1 };   // D
enum class Major : uint32_t { k = 0, mn = 1 };          // which extent of the operand is contiguous

LADDER_HD constexpr uint32_t instr_descriptor_f16(uint32_t M, uint32_t N, InputType a, InputType b,
                                                  AccumType d = AccumType::f32, Major a_major = Major::k,
                                                  Major b_major = Major::k) {
  return (static_cast<uint32_t>(d) << 4) | (static_cast<uint32_t>(a) << 7) | (static_cast<uint32_t>(b) << 10) |
         (static_cast<uint32_t>(a_major) << 15) | (static_cast<uint32_t>(b_major) << 16) | ((N >> 3) << 17) |
         ((M >> 4) << 24);
}

// What every b-step issues: f16 × f16 → f32, both operands K-major.
LADDER_HD constexpr uint32_t instr_descriptor_f16_f32(uint32_t M, uint32_t N) {
  return instr_descriptor_f16(M, N, InputType::f16, InputType::f16);
}
}  // namespace sm100

}  // namespace ladder
