// Descriptor encoders and the swizzle, against values worked out by hand from the PTX ISA tables.
#include <gtest/gtest.h>

#include <set>

#include "device/descriptors.hpp"

using namespace ladder;

TEST(Swizzle128, RowZeroIsIdentity) {
  for (uint32_t b = 0; b < 128; ++b) EXPECT_EQ(sw128_offset(0, b), b);
}

TEST(Swizzle128, ChunkXorRowWithinAtom) {
  EXPECT_EQ(sw128_offset(1, 0), 128u + 16u);          // chunk 0 ^ 1 = 1
  EXPECT_EQ(sw128_offset(7, 16), 7u * 128 + 6 * 16);  // chunk 1 ^ 7 = 6
  EXPECT_EQ(sw128_offset(3, 5 * 16 + 7), 3u * 128 + (5 ^ 3) * 16 + 7);
  EXPECT_EQ(sw128_offset(8, 0), 1024u);               // next atom starts unswizzled
  EXPECT_EQ(sw128_offset(9, 32), 1024u + 128 + (2 ^ 1) * 16);
}

TEST(Swizzle128, EachRowPermutesItsChunks) {
  for (uint32_t row = 0; row < 16; ++row) {
    std::set<uint32_t> seen;
    for (uint32_t c = 0; c < 8; ++c) seen.insert(sw128_offset(row, c * 16));
    EXPECT_EQ(seen.size(), 8u);
    EXPECT_EQ(*seen.begin(), row * 128);
    EXPECT_EQ(*seen.rbegin(), row * 128 + 112);
  }
}

// PTX ISA "Matrix Descriptor Format" (wgmma): start>>4 @0, LBO>>4 @16, SBO>>4 @32, swizzle @62 (1 = 128B).
TEST(Sm90Descriptor, KMajorSw128) {
  // start 0x400 → 0x40; LBO 16 → 1 << 16; SBO 1024 → 64 << 32; 128B → 1 << 62.
  EXPECT_EQ(sm90::kmajor_sw128_descriptor(0x400), 0x4000004000010040ull);
  EXPECT_EQ(sm90::kmajor_sw128_descriptor(0), 0x4000004000010000ull);
}

TEST(Sm90Descriptor, FieldsAndMasking) {
  EXPECT_EQ(sm90::matrix_descriptor(0x3FFF0, 0, 0, sm90::Swizzle::none), 0x3FFFull);
  EXPECT_EQ(sm90::matrix_descriptor(0x40000, 0, 0, sm90::Swizzle::none), 0ull);  // 18-bit address window
  EXPECT_EQ(sm90::matrix_descriptor(0, 0, 0, sm90::Swizzle::b64), 2ull << 62);
  EXPECT_EQ(sm90::matrix_descriptor(0, 0, 0, sm90::Swizzle::b32), 3ull << 62);
  EXPECT_EQ(sm90::matrix_descriptor(0, 256, 0, sm90::Swizzle::none), 16ull << 16);
}

TEST(Sm90Descriptor, KAdvanceIsTwoPerK16) {
  // +32 B of start address per k16 slice = +2 in the encoded field, no change elsewhere.
  EXPECT_EQ(sm90::kmajor_sw128_descriptor(0x400 + 32) - sm90::kmajor_sw128_descriptor(0x400), 2ull);
}

// The kernels' descriptor arithmetic (a low word built once, advanced per stage and k16 slice by 32-bit adds, over
// the constant high word) equals rebuilding the descriptor at the new address: every 1 KB-aligned base and every
// 32-byte offset that stays inside a CTA's 228 KB, with cluster-rank bits above the 18-bit window in the base.
TEST(Sm90Descriptor, AdvancingEqualsRebuilding) {
  constexpr uint32_t kSmem = 228 * 1024;
  for (uint32_t rank_bits : {0u, 1u << 24, 3u << 24})
    for (uint32_t base = 0; base < kSmem; base += 1024)
      for (uint32_t off = 0; base + off < kSmem; off += 32)
        ASSERT_EQ(sm90::kmajor_sw128_from_lo(sm90::desc_lo_advance(sm90::kmajor_sw128_lo(rank_bits | base), off)),
                  sm90::kmajor_sw128_descriptor(rank_bits | (base + off)))
            << "base " << base << " offset " << off;
}

// PTX ISA "Shared Memory Descriptor" (tcgen05): as above plus version 0b001 at bit 46, swizzle @61 (2 = 128B).
TEST(Sm100Descriptor, KMajorSw128) {
  EXPECT_EQ(sm100::kmajor_sw128_descriptor(0), 0x4000404000010000ull);
  EXPECT_EQ(sm100::kmajor_sw128_descriptor(0x1000), 0x4000404000010100ull);
  EXPECT_NE(sm100::kmajor_sw128_descriptor(0) & (1ull << 46), 0ull);
  EXPECT_EQ(sm100::kmajor_sw128_descriptor(0) >> 61, 2ull);
  EXPECT_EQ((sm100::kmajor_sw128_descriptor(0) >> 32) & 0x3FFF, 1024u >> 4);
}

// PTX ISA "Instruction descriptor" (kind::f16): D f32 @4, A/B f16 = 0, N>>3 @17, M>>4 @24.
TEST(Sm100InstrDescriptor, F16F32KMajor) {
  EXPECT_EQ(sm100::instr_descriptor_f16_f32(128, 128), 0x08200010u);
  EXPECT_EQ(sm100::instr_descriptor_f16_f32(128, 256), 0x08400010u);
  EXPECT_EQ(sm100::instr_descriptor_f16_f32(256, 256), 0x10400010u);
  EXPECT_EQ(sm100::instr_descriptor_f16_f32(128, 128) & (1u << 23), 0u);  // bit 23 reserved
}

// The dtype-aware form: A/B type at bits 7 and 10 (bf16 = 1), D type at bit 4, transpose bits 15/16.
TEST(Sm100InstrDescriptor, TypesAndMajorness) {
  using sm100::AccumType, sm100::InputType, sm100::Major;
  EXPECT_EQ(sm100::instr_descriptor_f16(128, 128, InputType::f16, InputType::f16),
            sm100::instr_descriptor_f16_f32(128, 128));
  EXPECT_EQ(sm100::instr_descriptor_f16(128, 128, InputType::bf16, InputType::bf16), 0x08200490u);  // + 0x480
  EXPECT_EQ(sm100::instr_descriptor_f16(256, 256, InputType::bf16, InputType::bf16), 0x10400490u);
  EXPECT_EQ(sm100::instr_descriptor_f16(256, 128, InputType::f16, InputType::f16), 0x10200010u);   // b10
  EXPECT_EQ(sm100::instr_descriptor_f16(128, 256, InputType::f16, InputType::f16, AccumType::f16), 0x08400000u);
  EXPECT_EQ(sm100::instr_descriptor_f16(128, 128, InputType::f16, InputType::f16, AccumType::f32, Major::mn, Major::k),
            0x08200010u | (1u << 15));
  EXPECT_EQ(sm100::instr_descriptor_f16(128, 128, InputType::f16, InputType::f16, AccumType::f32, Major::k, Major::mn),
            0x08200010u | (1u << 16));
}
