// Our descriptor encoders (src/device/descriptors.hpp) against an independent implementation: CuTe, from the
// CUTLASS 4.2 headers of the pip package nvidia-cutlass==4.2.0.0 (test-only; tests/cute.cmake finds them).
// Compiled by nvcc for the host only: everything below is hidden from the device passes.
//
// Which part comes from CuTe, for every configuration the steps use (the tables below):
//   - the MMA atom: SM100_MMA_F16BF16_SS (cta_group::1), SM100_MMA_F16BF16_2x1SM_SS (cta_group::2),
//     SM90 GMMA 64xNx16 F32{F16,BF16} (picked by GMMA::ss_op_selector), all K-major;
//   - the instruction descriptor its traits carry (MMA_Traits<atom>::idesc_, built by UMMA::make_instr_desc);
//   - the per-CTA SMEM layout: UMMA::tile_to_mma_shape / tile_to_shape of the K-major SW128 layout atom
//     (Layout_K_SW128_Atom<T>) over the operand tile, partitioned by CuTe's TiledMMA (partition_shape_A/B:
//     which rows of A and B each CTA of a pair holds);
//   - the SMEM descriptors CuTe's MMA would issue for each k16 slice of a 64-wide K-tile: make_fragment_A/B,
//     i.e. make_umma_desc / make_gmma_desc plus the DescriptorIterator's advance;
//   - the byte offset of every element in that layout (CuTe's Swizzle<3,4,3> on a 1024-B aligned buffer),
//     against sw128_offset, the layout our cooperative copies and TMA-store epilogues write.
// What does not come from CuTe: the start address (bits [0,14)). CuTe gets it from cast_smem_ptr_to_uint,
// which exists only on the device; on the host it returns 0 and prints "ERROR: cast_smem_ptr_to_uint not
// supported but used." (captured and checked below). So every comparison masks bits [0,14); the k16 advance
// is compared as a difference of start fields, which CuTe computes from the layout on the host.
#if !defined(__CUDA_ARCH__)

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include <cute/arch/mma_sm100_desc.hpp>
#include <cute/arch/mma_sm90_desc.hpp>
#include <cute/atom/mma_traits_sm100.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/tensor.hpp>
#include <cutlass/version.h>

#include "device/descriptors.hpp"

namespace {

using cute::bfloat16_t;
using cute::half_t;
namespace sm100 = ladder::sm100;
namespace sm90 = ladder::sm90;

constexpr uint64_t kStartField = 0x3FFF;  // bits [0,14): start address >> 4, the one field not compared
constexpr int BLK_K = 64;                 // every step's K-tile: 64 x 16 bit = one 128-B swizzle row
constexpr int MMA_K = 16;                 // k16: 32 bytes of K per MMA (tcgen05 kind::f16 and wgmma)
constexpr int kSlices = BLK_K / MMA_K;

// 1024-B aligned tile addresses (the kernels align every tile to the swizzle atom) at which our encoders
// are evaluated; only the start field may depend on them.
constexpr uint32_t kTileAddrs[] = {0x0, 0x400, 0x8000, 0x1C400, 0x3FC00};

template <class T>
constexpr const char* type_name() {
  return std::is_same_v<T, half_t> ? "f16" : "bf16";
}
template <class T>
constexpr sm100::InputType input_type() {
  return std::is_same_v<T, half_t> ? sm100::InputType::f16 : sm100::InputType::bf16;
}

// ---- field-by-field printing, through CuTe's own bitfields ----------------------------------------------
std::string fields_sm100(uint64_t d) {
  cute::UMMA::SmemDescriptor u;
  u.desc_ = d;
  char s[200];
  std::snprintf(s, sizeof s,
                "0x%016llx {start %u, LBO %u B, SBO %u B, version %u, base_offset %u, lbo_mode %u, layout %u}",
                static_cast<unsigned long long>(d), unsigned(u.start_address_), 16u * u.leading_byte_offset_,
                16u * u.stride_byte_offset_, unsigned(u.version_), unsigned(u.base_offset_), unsigned(u.lbo_mode_),
                unsigned(u.layout_type_));
  return s;
}
std::string fields_sm90(uint64_t d) {
  cute::GmmaDescriptor g(d);
  char s[200];
  std::snprintf(s, sizeof s, "0x%016llx {start %u, LBO %u B, SBO %u B, base_offset %u, layout %u}",
                static_cast<unsigned long long>(d), unsigned(g.bitfield.start_address_),
                16u * g.bitfield.leading_byte_offset_, 16u * g.bitfield.stride_byte_offset_,
                unsigned(g.bitfield.base_offset_), unsigned(g.bitfield.layout_type_));
  return s;
}
std::string fields_idesc(uint32_t d) {
  cute::UMMA::InstrDescriptor i;
  i.desc_ = d;
  char s[240];
  std::snprintf(s, sizeof s,
                "0x%08x {sparse %u/%u, saturate %u, D %u, A %u, B %u, negate %u/%u, major A %u B %u, N>>3 %u, M>>4 %u, "
                "max_shift %u}",
                d, unsigned(i.sparse_flag_), unsigned(i.sparse_id2_), unsigned(i.saturate_), unsigned(i.c_format_),
                unsigned(i.a_format_), unsigned(i.b_format_), unsigned(i.a_negate_), unsigned(i.b_negate_),
                unsigned(i.a_major_), unsigned(i.b_major_), unsigned(i.n_dim_), unsigned(i.m_dim_),
                unsigned(i.max_shift_));
  return s;
}

// Every bit but the start field, and the reserved bits, must match.
testing::AssertionResult same_but_start(uint64_t ours, uint64_t cute, std::string (*fields)(uint64_t)) {
  if ((ours & ~kStartField) == (cute & ~kStartField)) return testing::AssertionSuccess();
  char diff[40];
  std::snprintf(diff, sizeof diff, "0x%016llx", static_cast<unsigned long long>((ours ^ cute) & ~kStartField));
  return testing::AssertionFailure() << "\n  ours: " << fields(ours) << "\n  CuTe: " << fields(cute)
                                     << "\n  differing bits (start excluded): " << diff;
}
testing::AssertionResult same_idesc(uint32_t ours, uint32_t cute) {
  if (ours == cute) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "\n  ours: " << fields_idesc(ours) << "\n  CuTe: " << fields_idesc(cute);
}

// CuTe builds its descriptors on the host with start address 0, printing one line per descriptor.
template <class F>
auto capture_cute(F&& build) {
  testing::internal::CaptureStdout();
  auto result = build();
  const std::string out = testing::internal::GetCapturedStdout();
  const std::string line = "ERROR: cast_smem_ptr_to_uint not supported but used.\n";
  std::string rest = out;
  for (size_t at; (at = rest.find(line)) != std::string::npos;) rest.erase(at, line.size());
  EXPECT_NE(out.find(line), std::string::npos) << "CuTe should say the start address is device-only";
  EXPECT_EQ(rest, "") << "unexpected CuTe output";
  return result;
}

// The descriptors of one operand tile, as CuTe's MMA would issue them: slice k of the 64-wide K-tile.
struct OperandDescs {
  int rows = 0;           // the tile's M or N extent in this CTA's SMEM
  uint64_t desc[kSlices]; // slices k = 0..3
};

// An 8-row operand (N = 8 on one CTA, or N = 16 split over a pair) has a single 8-row core-matrix group, so
// its SBO is never applied. CuTe encodes the stride of that size-1 mode, 0; our encoders always write
// 1024 B. This is the one difference allowed, and only there.
uint64_t with_sbo_of(uint64_t d, uint64_t from) {
  constexpr uint64_t sbo = uint64_t{0x3FFF} << 32;
  return (d & ~sbo) | (from & sbo);
}

// Checks our K-major SW128 encoder against CuTe's descriptors of a tile: every field but the start address,
// at several tile addresses, and the start-field advance per k16 slice.
void expect_kmajor_sw128(const OperandDescs& cute, uint64_t (*ours)(uint32_t), std::string (*fields)(uint64_t),
                         const char* what) {
  SCOPED_TRACE(what);
  for (uint32_t tile : kTileAddrs) {
    SCOPED_TRACE(testing::Message() << "tile address 0x" << std::hex << tile);
    for (int k = 0; k < kSlices; ++k) {
      SCOPED_TRACE(testing::Message() << "k16 slice " << k);
      uint64_t mine = ours(tile + k * MMA_K * 2);  // the expression of blackwell/tile.cuh and hopper/tile.cuh
      if (cute.rows == 8) {
        EXPECT_EQ((cute.desc[k] >> 32) & 0x3FFF, 0u) << "CuTe's SBO of an 8-row operand";
        mine = with_sbo_of(mine, cute.desc[k]);
      }
      EXPECT_TRUE(same_but_start(mine, cute.desc[k], fields));
      // The advance: CuTe's DescriptorIterator adds the layout's offset (uint128 units) to the start field.
      EXPECT_EQ((ours(tile + k * MMA_K * 2) & kStartField) - (ours(tile) & kStartField),
                (cute.desc[k] & kStartField) - (cute.desc[0] & kStartField));
    }
  }
}

// Every element (row r, K index c) of slice k of CuTe's MMA-partitioned SMEM tensor lives where our swizzle
// puts it: byte sw128_offset(r, 2·(16k + c)) of the 1024-B aligned tile.
template <class T, class Tensor3>
void expect_sw128_image(const Tensor3& s, const T* base, int rows, const char* what) {
  SCOPED_TRACE(what);
  int bad = 0;
  for (int k = 0; k < kSlices; ++k)
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < MMA_K; ++c) {
        const T* p = &s(cute::make_coord(r, c), 0, k);
        const auto got = static_cast<uint32_t>(reinterpret_cast<const char*>(p) - reinterpret_cast<const char*>(base));
        const uint32_t want = ladder::sw128_offset(r, 2 * (MMA_K * k + c));
        if (got != want && bad++ < 5) ADD_FAILURE() << "row " << r << " k " << MMA_K * k + c << ": CuTe byte " << got
                                                    << ", sw128_offset " << want;
      }
  EXPECT_EQ(bad, 0);
}

// ---- Blackwell: tcgen05.mma kind::f16 -------------------------------------------------------------------
template <class T, int M, int N, int CTA_GROUP>
using UmmaAtom = std::conditional_t<
    CTA_GROUP == 2,
    cute::SM100_MMA_F16BF16_2x1SM_SS<T, T, float, M, N, cute::UMMA::Major::K, cute::UMMA::Major::K>,
    cute::SM100_MMA_F16BF16_SS<T, T, float, M, N, cute::UMMA::Major::K, cute::UMMA::Major::K>>;

struct UmmaCase {
  uint32_t idesc;
  OperandDescs a, b;
};

// CuTe's side of one configuration: its MMA atom, the per-CTA SW128 K-major SMEM tiles of one 64-wide
// K-tile (as CuTe's own tutorials build them), the descriptors it would issue, and the SMEM image.
template <class T, int M, int N, int CTA_GROUP>
UmmaCase cute_umma() {
  using namespace cute;
  using Atom = UmmaAtom<T, M, N, CTA_GROUP>;
  TiledMMA mma = make_tiled_mma(Atom{});
  static_assert(decltype(tile_size<2>(mma))::value == MMA_K, "kind::f16 consumes 32 bytes of K per MMA");
  auto tiler = make_shape(tile_size<0>(mma), tile_size<1>(mma), Int<BLK_K>{});
  auto shape_a = partition_shape_A(mma, make_shape(size<0>(tiler), size<2>(tiler)));  // ((rows,16),1,4) per CTA
  auto shape_b = partition_shape_B(mma, make_shape(size<1>(tiler), size<2>(tiler)));
  auto layout_a = UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<T>{}, shape_a);
  auto layout_b = UMMA::tile_to_mma_shape(UMMA::Layout_K_SW128_Atom<T>{}, shape_b);
  alignas(1024) static T smem_a[cosize_v<decltype(layout_a)>];
  alignas(1024) static T smem_b[cosize_v<decltype(layout_b)>];
  Tensor sA = make_tensor(make_smem_ptr(smem_a), layout_a);
  Tensor sB = make_tensor(make_smem_ptr(smem_b), layout_b);

  UmmaCase c;
  c.idesc = static_cast<uint32_t>(MMA_Traits<Atom>{}.idesc_);
  EXPECT_EQ(static_cast<uint32_t>(UMMA::make_runtime_instr_desc<>(MMA_Traits<Atom>{}.idesc_) >> 32), c.idesc)
      << "the 64-bit idescE carries the descriptor in its upper half";
  c.a.rows = size<0, 0>(shape_a);
  c.b.rows = size<0, 0>(shape_b);
  static_assert(decltype(size<2>(shape_a))::value == kSlices && decltype(size<2>(shape_b))::value == kSlices);
  capture_cute([&] {
    Tensor dA = mma.make_fragment_A(sA);  // (1, 1, k16 slices) of UMMA::SmemDescriptor
    Tensor dB = mma.make_fragment_B(sB);
    for (int k = 0; k < kSlices; ++k) {
      c.a.desc[k] = UMMA::SmemDescriptor(dA(0, 0, k));
      c.b.desc[k] = UMMA::SmemDescriptor(dB(0, 0, k));
    }
    return 0;
  });
  expect_sw128_image(sA, smem_a, c.a.rows, "A: CuTe's SMEM layout vs sw128_offset");
  expect_sw128_image(sB, smem_b, c.b.rows, "B: CuTe's SMEM layout vs sw128_offset");
  return c;
}

// One Blackwell configuration: CuTe's atom for (T, M, N, cta_group) against our encoders, with the per-CTA
// operand tile heights the step's SharedStorage has (A_ROWS, B_ROWS).
template <class T, int M, int N, int CTA_GROUP, int A_ROWS, int B_ROWS>
void expect_umma_config(const char* steps) {
  SCOPED_TRACE(testing::Message() << steps << ": tcgen05.mma.cta_group::" << CTA_GROUP << ".kind::f16 M=" << M
                                  << " N=" << N << " " << type_name<T>() << " x " << type_name<T>()
                                  << " -> f32, K-major A and B, SW128");
  const UmmaCase c = cute_umma<T, M, N, CTA_GROUP>();
  EXPECT_EQ(c.a.rows, A_ROWS) << "CuTe's per-CTA A tile";
  EXPECT_EQ(c.b.rows, B_ROWS) << "CuTe's per-CTA B tile";
  EXPECT_TRUE(same_idesc(sm100::instr_descriptor_f16(M, N, input_type<T>(), input_type<T>()), c.idesc));
  if constexpr (std::is_same_v<T, half_t>)  // the function the b-steps call
    EXPECT_TRUE(same_idesc(sm100::instr_descriptor_f16_f32(M, N), c.idesc));
  expect_kmajor_sw128(c.a, sm100::kmajor_sw128_descriptor, fields_sm100, "A descriptors");
  expect_kmajor_sw128(c.b, sm100::kmajor_sw128_descriptor, fields_sm100, "B descriptors");
}

// The configurations of the b-steps (src/blackwell/*.cu: kIdesc / kIdescPair, SharedStorage tiles):
//   b01-b07  cta_group::1  M=128 N=128  A (128, 64)  B (128, 64)              tile.cuh kIdesc
//   b08      cta_group::2  M=256 N=256  A (128, 64)  B (128, 64) per CTA      08_cta_pair.cu kIdescPair
//   b09      cta_group::2  M=256 N=256  A 2 x (128, 64)  B (128, 64) per CTA  (two consumers, one B)
//   b10      cta_group::2  M=256 N=128  A 2 x (128, 64)  B (64, 64) per CTA   (two consumers x two 128-column
//                                                                              accumulator stages)
// each for f16 (what the steps issue) and bf16 (the dtype-aware encoder, for the bf16 work).
TEST(CuteSm100, B01toB07_M128N128) {
  expect_umma_config<half_t, 128, 128, 1, 128, 128>("b01-b07");
  expect_umma_config<bfloat16_t, 128, 128, 1, 128, 128>("b01-b07 (bf16)");
}
TEST(CuteSm100, B08B09_Pair_M256N256) {
  expect_umma_config<half_t, 256, 256, 2, 128, 128>("b08, b09");
  expect_umma_config<bfloat16_t, 256, 256, 2, 128, 128>("b08, b09 (bf16)");
}
TEST(CuteSm100, B10_Pair_M256N128) {
  expect_umma_config<half_t, 256, 128, 2, 128, 64>("b10");
  expect_umma_config<bfloat16_t, 256, 128, 2, 128, 64>("b10 (bf16)");
}
// Shapes no step uses yet, at the edges of what kind::f16 allows: M = 64 (cta_group::1), N = 8 (one 8-row B
// group), N = 16 over a pair (8 B rows per CTA), M = 128 over a pair (64 A rows per CTA).
TEST(CuteSm100, UnusedEdgeShapes) {
  expect_umma_config<half_t, 64, 128, 1, 64, 128>("M=64");
  expect_umma_config<bfloat16_t, 128, 8, 1, 128, 8>("N=8");
  expect_umma_config<half_t, 256, 16, 2, 128, 8>("pair, N=16");
  expect_umma_config<bfloat16_t, 128, 256, 2, 64, 128>("pair, M=128");
}

// The instruction descriptor for every legal kind::f16 shape (CuTe's static_asserts: cta_group::1 M in
// {64, 128}, N % 8 == 0 in [8, 256]; cta_group::2 M in {128, 256}, N % 16 == 0 in [16, 256]), both input
// types, against UMMA::make_instr_desc.
template <class T, int M, int N>
void expect_idesc_shape() {
  EXPECT_TRUE(same_idesc(sm100::instr_descriptor_f16(M, N, input_type<T>(), input_type<T>()),
                         static_cast<uint32_t>(cute::UMMA::make_instr_desc<T, T, float, M, N, cute::UMMA::Major::K,
                                                                             cute::UMMA::Major::K>())))
      << "M=" << M << " N=" << N << " " << type_name<T>();
}
template <class T, int M, int STEP, int... I>
void expect_idesc_row(std::integer_sequence<int, I...>) {
  (expect_idesc_shape<T, M, (I + 1) * STEP>(), ...);
}
TEST(CuteSm100, InstrDescriptorEveryLegalShape) {
  expect_idesc_row<half_t, 64, 8>(std::make_integer_sequence<int, 32>{});
  expect_idesc_row<half_t, 128, 8>(std::make_integer_sequence<int, 32>{});
  expect_idesc_row<half_t, 256, 16>(std::make_integer_sequence<int, 16>{});
  expect_idesc_row<bfloat16_t, 64, 8>(std::make_integer_sequence<int, 32>{});
  expect_idesc_row<bfloat16_t, 128, 8>(std::make_integer_sequence<int, 32>{});
  expect_idesc_row<bfloat16_t, 256, 16>(std::make_integer_sequence<int, 16>{});
}

// Every input-type pair, accumulator type and majorness our encoder takes, on one shape.
template <class TA, class TB, class TD, cute::UMMA::Major MA, cute::UMMA::Major MB>
void expect_idesc_variant() {
  constexpr auto ours_major = [](cute::UMMA::Major m) {
    return m == cute::UMMA::Major::K ? sm100::Major::k : sm100::Major::mn;
  };
  const uint32_t ours = sm100::instr_descriptor_f16(
      128, 256, input_type<TA>(), input_type<TB>(),
      std::is_same_v<TD, float> ? sm100::AccumType::f32 : sm100::AccumType::f16, ours_major(MA), ours_major(MB));
  EXPECT_TRUE(same_idesc(ours, static_cast<uint32_t>(cute::UMMA::make_instr_desc<TA, TB, TD, 128, 256, MA, MB>())))
      << type_name<TA>() << " x " << type_name<TB>() << " -> " << (std::is_same_v<TD, float> ? "f32" : "f16")
      << ", A " << (MA == cute::UMMA::Major::K ? "K" : "MN") << "-major, B "
      << (MB == cute::UMMA::Major::K ? "K" : "MN") << "-major";
}
template <class TA, class TB, class TD>
void expect_idesc_majors() {
  using cute::UMMA::Major;
  expect_idesc_variant<TA, TB, TD, Major::K, Major::K>();
  expect_idesc_variant<TA, TB, TD, Major::K, Major::MN>();
  expect_idesc_variant<TA, TB, TD, Major::MN, Major::K>();
  expect_idesc_variant<TA, TB, TD, Major::MN, Major::MN>();
}
TEST(CuteSm100, InstrDescriptorTypesAndMajorness) {
  expect_idesc_majors<half_t, half_t, float>();
  expect_idesc_majors<bfloat16_t, bfloat16_t, float>();
  expect_idesc_majors<half_t, bfloat16_t, float>();
  expect_idesc_majors<bfloat16_t, half_t, float>();
  expect_idesc_majors<half_t, half_t, half_t>();
}

// Our general encoder with the other K-major swizzles, against CuTe's SW64 and SW32 atoms (one 8-row
// swizzle group is 512 B, resp. 256 B: that is the SBO).
// The first k16 slice of a (ROWS, atom width) K-major tile of `Atom`, as ((ROWS,16), 1, width/16).
template <class Atom, int ROWS>
auto atom_tile_layout() {
  using namespace cute;
  constexpr int width = decltype(size<1>(Atom{}))::value;  // 64 B / 32 B of fp16: 32 / 16 elements
  return UMMA::tile_to_mma_shape(Atom{}, make_shape(make_shape(Int<ROWS>{}, Int<MMA_K>{}), _1{}, Int<width / MMA_K>{}));
}
template <class Atom>
uint64_t cute_umma_desc_of_atom_tile() {
  using namespace cute;
  auto layout = atom_tile_layout<Atom, 128>();
  alignas(1024) static half_t smem[cosize_v<decltype(layout)>];
  Tensor s = make_tensor(make_smem_ptr(smem), layout);
  return capture_cute([&] { return uint64_t(UMMA::make_umma_desc<UMMA::Major::K>(tensor<0>(s))); });
}
TEST(CuteSm100, OtherSwizzles) {
  EXPECT_TRUE(same_but_start(sm100::smem_descriptor(0x400, 16, 512, sm100::Swizzle::b64),
                             cute_umma_desc_of_atom_tile<cute::UMMA::Layout_K_SW64_Atom<half_t>>(), fields_sm100));
  EXPECT_TRUE(same_but_start(sm100::smem_descriptor(0x400, 16, 256, sm100::Swizzle::b32),
                             cute_umma_desc_of_atom_tile<cute::UMMA::Layout_K_SW32_Atom<half_t>>(), fields_sm100));
}

// ---- Hopper: wgmma.mma_async m64nNk16 ----------------------------------------------------------------
struct GmmaCase {
  OperandDescs a, b;
};

template <class T, int N>
GmmaCase cute_gmma() {
  using namespace cute;
  auto atom = SM90::GMMA::ss_op_selector<T, T, float, Shape<_64, Int<N>, Int<BLK_K>>, GMMA::Major::K, GMMA::Major::K>();
  TiledMMA mma = make_tiled_mma(atom);
  static_assert(decltype(tile_size<0>(mma))::value == 64 && decltype(tile_size<1>(mma))::value == N &&
                    decltype(tile_size<2>(mma))::value == MMA_K,
                "CuTe's selector picks the m64nNk16 atom itself");
  // One warpgroup's operands: a 64-row slice of A (a 128-row tile's second half only moves the start address)
  // and the whole (N, 64) B tile.
  auto layout_a = tile_to_shape(GMMA::Layout_K_SW128_Atom<T>{}, Shape<_64, Int<BLK_K>>{});
  auto layout_b = tile_to_shape(GMMA::Layout_K_SW128_Atom<T>{}, Shape<Int<N>, Int<BLK_K>>{});
  alignas(1024) static T smem_a[cosize_v<decltype(layout_a)>];
  alignas(1024) static T smem_b[cosize_v<decltype(layout_b)>];
  Tensor sA = make_tensor(make_smem_ptr(smem_a), layout_a);
  Tensor sB = make_tensor(make_smem_ptr(smem_b), layout_b);
  auto thr = mma.get_slice(0);
  Tensor tCsA = thr.partition_A(sA);  // ((64,16),1,4)
  Tensor tCsB = thr.partition_B(sB);  // ((N,16),1,4)

  GmmaCase c;
  c.a.rows = 64;
  c.b.rows = N;
  capture_cute([&] {
    Tensor dA = thr.partition_fragment_A(sA);  // (1, 1, k16 slices) of GmmaDescriptor
    Tensor dB = thr.partition_fragment_B(sB);
    static_assert(decltype(size<2>(dA))::value == kSlices);
    for (int k = 0; k < kSlices; ++k) {
      c.a.desc[k] = uint64_t(GmmaDescriptor(dA(0, 0, k)));
      c.b.desc[k] = uint64_t(GmmaDescriptor(dB(0, 0, k)));
    }
    return 0;
  });
  expect_sw128_image(tCsA, smem_a, 64, "A: CuTe's SMEM layout vs sw128_offset");
  expect_sw128_image(tCsB, smem_b, N, "B: CuTe's SMEM layout vs sw128_offset");
  return c;
}

template <class T, int N>
void expect_gmma_config(const char* steps) {
  SCOPED_TRACE(testing::Message() << steps << ": wgmma m64n" << N << "k16 f32." << type_name<T>() << "."
                                  << type_name<T>() << ", K-major A and B, SW128");
  const GmmaCase c = cute_gmma<T, N>();
  expect_kmajor_sw128(c.a, sm90::kmajor_sw128_descriptor, fields_sm90, "A descriptors");
  expect_kmajor_sw128(c.b, sm90::kmajor_sw128_descriptor, fields_sm90, "B descriptors");
}

// The configurations of the h-steps (src/hopper: tile.cuh mma_k_tile / mma_k_tile_64xN, pingpong.cuh,
// cooperative.cuh and small_m.cuh configurations; wgmma_m64k16<N>):
//   h01-h06                 m64n128k16   A 64-row halves of (128, 64), B (128, 64)
//   h07, h08                m64n256k16   A (64, 64) per consumer, B (256, 64)
//   h09, h10 Square         m64n128k16   ping-pong 128 x 128
//   h10 Narrow, NarrowPair  m64n64k16
//   h10 Wide, Coop, Coop4   m64n256k16
//   h10 Coop4N192           m64n192k16
// Hopper has no instruction descriptor (the types are in the opcode); the SMEM descriptor does not depend on
// the type either, but both are built from CuTe's f16 and bf16 atoms. Small N (8, 16, 32, 96: CuTe's
// non-extended wgmma shapes) for the decode work.
TEST(CuteSm90, H01toH06_H09_N128) {
  expect_gmma_config<half_t, 128>("h01-h06, h09, h10 Square");
  expect_gmma_config<bfloat16_t, 128>("h01-h06, h09, h10 Square (bf16)");
}
TEST(CuteSm90, H07H08H10_N256) {
  expect_gmma_config<half_t, 256>("h07, h08, h10 Wide/Coop");
  expect_gmma_config<bfloat16_t, 256>("h07, h08, h10 Wide/Coop (bf16)");
}
TEST(CuteSm90, H10_N192_N64) {
  expect_gmma_config<half_t, 192>("h10 Coop4N192");
  expect_gmma_config<bfloat16_t, 192>("h10 Coop4N192 (bf16)");
  expect_gmma_config<half_t, 64>("h10 Narrow");
  expect_gmma_config<bfloat16_t, 64>("h10 Narrow (bf16)");
}
TEST(CuteSm90, SmallN) {
  expect_gmma_config<half_t, 8>("N=8");
  expect_gmma_config<bfloat16_t, 8>("N=8 (bf16)");
  expect_gmma_config<half_t, 16>("N=16");
  expect_gmma_config<bfloat16_t, 32>("N=32 (bf16)");
  expect_gmma_config<bfloat16_t, 96>("N=96 (bf16)");
}

template <class Atom>
uint64_t cute_gmma_desc_of_atom_tile() {
  using namespace cute;
  auto layout = atom_tile_layout<Atom, 64>();
  alignas(1024) static half_t smem[cosize_v<decltype(layout)>];
  Tensor s = make_tensor(make_smem_ptr(smem), layout);
  return capture_cute([&] { return uint64_t(SM90::GMMA::make_gmma_desc<GMMA::Major::K>(tensor<0>(s))); });
}
TEST(CuteSm90, OtherSwizzles) {
  EXPECT_TRUE(same_but_start(sm90::matrix_descriptor(0x400, 16, 512, sm90::Swizzle::b64),
                             cute_gmma_desc_of_atom_tile<cute::GMMA::Layout_K_SW64_Atom<half_t>>(), fields_sm90));
  EXPECT_TRUE(same_but_start(sm90::matrix_descriptor(0x400, 16, 256, sm90::Swizzle::b32),
                             cute_gmma_desc_of_atom_tile<cute::GMMA::Layout_K_SW32_Atom<half_t>>(), fields_sm90));
}

// ---- The comparison can fail ------------------------------------------------------------------------------
// Deliberately different configurations must be told apart: a different swizzle, a different N or type in
// the instruction descriptor, and each architecture's encoder against the other's descriptor.
TEST(CuteNegative, DifferencesAreDetected) {
  const uint64_t cute_sw64 = cute_umma_desc_of_atom_tile<cute::UMMA::Layout_K_SW64_Atom<half_t>>();
  EXPECT_FALSE(same_but_start(sm100::kmajor_sw128_descriptor(0x400), cute_sw64, fields_sm100)) << "SW128 vs SW64";
  EXPECT_FALSE(same_but_start(sm100::smem_descriptor(0x400, 16, 1024, sm100::Swizzle::b64), cute_sw64, fields_sm100))
      << "same swizzle, wrong SBO";

  const UmmaCase pair = cute_umma<half_t, 256, 256, 2>();
  EXPECT_FALSE(same_idesc(sm100::instr_descriptor_f16_f32(256, 128), pair.idesc)) << "N=128 vs N=256";
  EXPECT_FALSE(same_idesc(sm100::instr_descriptor_f16_f32(128, 256), pair.idesc)) << "M=128 vs M=256";
  EXPECT_FALSE(same_idesc(sm100::instr_descriptor_f16(256, 256, sm100::InputType::bf16, sm100::InputType::bf16),
                          pair.idesc))
      << "bf16 vs f16";
  EXPECT_FALSE(same_but_start(sm90::kmajor_sw128_descriptor(0), pair.a.desc[0], fields_sm100))
      << "the Hopper encoding (no version bits, swizzle at bit 62) is not the Blackwell one";

  const GmmaCase hopper = cute_gmma<half_t, 128>();
  EXPECT_FALSE(same_but_start(sm100::kmajor_sw128_descriptor(0), hopper.b.desc[0], fields_sm90))
      << "the Blackwell encoding is not the Hopper one";
  EXPECT_FALSE(same_but_start(sm90::matrix_descriptor(0, 16, 512, sm90::Swizzle::b128), hopper.b.desc[0], fields_sm90))
      << "wrong SBO";
}

TEST(Cute, Version) {
  // The headers this was written against (scripts/setup.sh pins nvidia-cutlass==4.2.0.0).
  EXPECT_EQ(CUTLASS_MAJOR, 4);
  EXPECT_EQ(CUTLASS_MINOR, 2);
  RecordProperty("cutlass_version", std::to_string(CUTLASS_MAJOR) + "." + std::to_string(CUTLASS_MINOR) + "." +
                                        std::to_string(CUTLASS_PATCH));
}

}  // namespace

#endif  // !defined(__CUDA_ARCH__)
