// The registry, argument validation and the C ABI: all of it runs without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "harness/harness.hpp"
#include "ladder/ladder.h"
#include "ladder/ladder.hpp"
#include "runtime/runtime.hpp"
#include "step.hpp"

using namespace ladder;

namespace {
// A 16-byte aligned address that is never dereferenced: validation rejects these calls first.
const void* kFake = reinterpret_cast<const void*>(0x10000);
void* kFakeOut = reinterpret_cast<void*>(0x20000);
bool has_gpu() { return detail::current_device().present; }
}  // namespace

TEST(Registry, IdsUniqueOrderedAndDescribed) {
  std::set<std::string_view> ids;
  for (const detail::Step* s : detail::registry()) {
    EXPECT_TRUE(ids.insert(s->id).second) << s->id;
    if (s->id != "best") {
      EXPECT_EQ(s->id.size(), 3u);
      EXPECT_EQ(s->id[0], s->arch == detail::Arch::hopper ? 'h' : 'b');
    }
    EXPECT_FALSE(s->title.empty());
    EXPECT_FALSE(s->change.empty());
    EXPECT_FALSE(s->shapes.empty());
    EXPECT_NE(s->check, nullptr);
    EXPECT_NE(s->launch, nullptr);
    EXPECT_EQ(detail::find_step(s->id), s);
  }
  EXPECT_EQ(detail::registry().front()->id, "h01");
  EXPECT_EQ(detail::find_step("nope"), nullptr);
  EXPECT_EQ(steps().size(), detail::registry().size());
}

TEST(Registry, ShapeConstraintsNameTheRule) {
  EXPECT_EQ(why_not("h01", 128, 128, 64).find("M must"), std::string::npos);
  EXPECT_NE(why_not("h01", 256, 128, 64).find("M must be exactly 128"), std::string::npos);
  EXPECT_NE(why_not("h01", 128, 128, 128).find("K must be exactly 64"), std::string::npos);
  EXPECT_NE(why_not("h02", 128, 128, 96).find("K must be a multiple of 64"), std::string::npos);
  EXPECT_NE(why_not("h02", 128, 256, 128).find("N must be exactly 128"), std::string::npos);
  EXPECT_NE(why_not("h03", 200, 128, 64).find("M must be a multiple of 128"), std::string::npos);
  EXPECT_NE(why_not("h03", 128, 130, 64).find("N must be a multiple of 128"), std::string::npos);
  EXPECT_NE(why_not("h03", 128, 128, 100).find("K must be a multiple of 64"), std::string::npos);
  EXPECT_NE(why_not("h03", 256, 256, 64, {.lda = 128}).find("dense rows"), std::string::npos);
}

TEST(Registry, BestAcceptsAnyShape) {
  EXPECT_EQ(resolve("best", 128, 128, 64), "best");
  EXPECT_EQ(resolve("", 1, 1, 1), "best");  // the default
  EXPECT_EQ(why_not("best", 8191, 8191, 8191).find("does not accept"), std::string::npos);
  EXPECT_EQ(why_not("best", 3, 5, 7, {.lda = 9, .ldb = 11, .ldd = 13}).find("does not accept"), std::string::npos);
  EXPECT_NE(why_not("h04", 64, 64, 7).find("K must be a multiple of 8"), std::string::npos);
}

TEST(CApi, BestTakesFp16AlignedPointersOnly) {
  // 2-byte aligned is fine for best (the failure is then the missing GPU or nothing); odd addresses are not.
  EXPECT_EQ(ladder_gemm(reinterpret_cast<const void*>(0x10001), kFake, kFakeOut, 64, 64, 64, "best", nullptr),
            LADDER_ERROR_MISALIGNED);
  EXPECT_NE(std::string(ladder_last_error()).find("2-byte aligned"), std::string::npos);
}

TEST(CApi, StepEnumeration) {
  ASSERT_EQ(ladder_step_count(), static_cast<int>(detail::registry().size()));
  EXPECT_STREQ(ladder_step_id(0), "h01");
  EXPECT_EQ(ladder_step_id(-1), nullptr);
  EXPECT_EQ(ladder_step_id(ladder_step_count()), nullptr);
}

TEST(CApi, RejectsBadArgumentsWithMessages) {
  EXPECT_EQ(ladder_gemm(nullptr, kFake, kFakeOut, 128, 128, 64, "h01", nullptr), LADDER_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ladder_last_error()).find("non-null"), std::string::npos);
  EXPECT_EQ(ladder_gemm(kFake, kFake, kFakeOut, 0, 128, 64, "h01", nullptr), LADDER_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ladder_last_error()).find("positive"), std::string::npos);
  EXPECT_EQ(ladder_gemm(kFake, kFake, kFakeOut, 128, -1, 64, nullptr, nullptr), LADDER_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(ladder_gemm(kFake, kFake, kFakeOut, int64_t{1} << 40, 128, int64_t{1} << 40, "h03", nullptr),
            LADDER_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ladder_last_error()).find("overflow"), std::string::npos);
  EXPECT_EQ(ladder_gemm(kFake, kFake, kFakeOut, 128, 128, 64, "h99", nullptr), LADDER_ERROR_UNKNOWN_STEP);
  EXPECT_NE(std::string(ladder_last_error()).find("unknown step 'h99'"), std::string::npos);
  EXPECT_EQ(ladder_gemm(reinterpret_cast<const void*>(0x10008), kFake, kFakeOut, 128, 128, 64, "h01", nullptr),
            LADDER_ERROR_MISALIGNED);
  EXPECT_NE(std::string(ladder_last_error()).find("16-byte aligned"), std::string::npos);
  EXPECT_EQ(ladder_gemm(kFake, kFake, kFakeOut, 256, 128, 64, "h01", nullptr), LADDER_ERROR_UNSUPPORTED_SHAPE);
  EXPECT_NE(std::string(ladder_last_error()).find("h01 does not accept"), std::string::npos);
  EXPECT_EQ(ladder_gemm_ld(kFake, 32, kFake, 64, kFakeOut, 128, 128, 128, 64, "h01", nullptr),
            LADDER_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(ladder_last_error()).find("lda must be >= K"), std::string::npos);
  EXPECT_EQ(ladder_gemm_ld(kFake, 0, kFake, 64, kFakeOut, 128, 128, 128, 64, "h01", nullptr),
            LADDER_ERROR_INVALID_ARGUMENT);
}

TEST(CApi, NoDeviceIsAnErrorNotACrash) {
  if (has_gpu()) GTEST_SKIP() << "a GPU is present: the no-device path is exercised on machines without one";
  EXPECT_EQ(ladder_gemm(kFake, kFake, kFakeOut, 128, 128, 64, "h01", nullptr), LADDER_ERROR_NO_DEVICE);
  EXPECT_NE(std::string(ladder_last_error()).find("GPU"), std::string::npos);
}

TEST(CppApi, ThrowsErrorWithTheSameCode) {
  try {
    gemm(nullptr, nullptr, nullptr, 128, 128, 64, "h01");
    FAIL() << "expected ladder::Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), LADDER_ERROR_INVALID_ARGUMENT);
  }
  EXPECT_THROW(resolve("zz", 128, 128, 64), Error);
}

TEST(Verification, BoundsScaleWithKAndTheOutputFormat) {
  EXPECT_LT(harness::error_bound(64), harness::error_bound(16384));
  EXPECT_NEAR(harness::error_bound(0), 2.0 / 2048, 1e-12);
  EXPECT_LT(harness::element_bound(64, 1.0).abs, harness::element_bound(16384, 1.0).abs);
  // One rounding of the result, doubled, relative to |ref|: fp16 2·2⁻¹¹, bf16 2·2⁻⁸, fp32 2·2⁻²⁴.
  EXPECT_EQ(harness::element_bound(1024, 1.0).rel, 0x1p-10);
  EXPECT_EQ(harness::element_bound(1024, 1.0, harness::kUnitRoundoffBF16).rel, 0x1p-7);
  EXPECT_EQ(harness::element_bound(1024, 1.0, harness::kUnitRoundoffF32).rel, 0x1p-23);
  // The absolute term scales with the typical magnitude of an element.
  EXPECT_DOUBLE_EQ(harness::element_bound(1024, 8.0).abs, 8 * harness::element_bound(1024, 1.0).abs);
  // Inputs uniform in [-1, 1) (rms √K/3): never tighter than 2⁻¹⁰·|ref| + 10⁻⁴·√K, which best meets everywhere.
  for (int64_t K : {1, 8, 64, 777, 1111, 4096, 16384, 65536})
    EXPECT_GE(harness::element_bound(K, std::sqrt(double(K)) / 3).abs, 1e-4 * std::sqrt(double(K))) << K;
}

TEST(Verification, HostCompareCatchesNaNAndWrongElements) {
  const int64_t M = 8, N = 8, K = 64;
  std::vector<double> ref(M * N), got(M * N);
  for (int i = 0; i < M * N; ++i) ref[i] = got[i] = 1.0 + 0.25 * (i % 7);
  EXPECT_TRUE(harness::compare_host(got, ref, M, N, K).pass);
  got[13] += 0.5;  // one wrong element
  harness::Verdict v = harness::compare_host(got, ref, M, N, K);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.over_bound, 1);
  EXPECT_EQ(v.worst_row, 1);
  EXPECT_EQ(v.worst_col, 5);
  got[13] = std::nan("");
  v = harness::compare_host(got, ref, M, N, K);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.nonfinite, 1);
  EXPECT_EQ(v.over_bound, 0);
}

// The issue this bound was made for: at 4096³ sizes one element a quarter off hides in the norm.
TEST(Verification, ElementwiseBoundCatchesOneElementTheNormMisses) {
  const int64_t M = 512, N = 512, K = 4096;
  const double sigma = std::sqrt(double(K)) / 3;  // the rms of a dot product of inputs uniform in [-1, 1)
  std::vector<double> ref(M * N), got(M * N);
  uint64_t x = 12345;
  for (int64_t i = 0; i < M * N; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    ref[i] = (static_cast<double>(x >> 11) * 0x1p-53 * 6 - 3) * sigma;  // uniform in ±3σ
    got[i] = __half2float(__float2half_rn(static_cast<float>(ref[i])));  // one correct fp16 rounding
  }
  harness::Verdict v = harness::compare_host(got, ref, M, N, K);
  ASSERT_TRUE(v.pass) << v.detail();
  EXPECT_LE(v.worst_ratio, 0.5) << "one fp16 rounding uses at most half of the elementwise bound";

  const int64_t at = 300 * N + 77;
  got[at] = __half2float(__float2half_rn(static_cast<float>(got[at] + 0.25)));
  v = harness::compare_host(got, ref, M, N, K);
  EXPECT_LE(v.rel_err, v.bound) << "normwise, the wrong element passes";
  EXPECT_FALSE(v.pass) << v.detail();
  EXPECT_EQ(v.over_bound, 1);
  EXPECT_EQ(v.worst_row, 300);
  EXPECT_EQ(v.worst_col, 77);
  EXPECT_GT(v.worst_ratio, 1.5);
  EXPECT_NE(v.detail().find("1 over"), std::string::npos) << v.detail();
}
