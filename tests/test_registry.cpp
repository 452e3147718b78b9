// The registry, argument validation and the C ABI: all of it runs without a GPU.
#include <gtest/gtest.h>

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

TEST(Verification, BoundScalesWithK) {
  EXPECT_LT(harness::error_bound(64), harness::error_bound(16384));
  EXPECT_NEAR(harness::error_bound(0), 2.0 / 2048, 1e-12);
}

TEST(Verification, HostCompareCatchesNaNAndWrongElements) {
  const int64_t M = 8, N = 8, K = 64;
  std::vector<double> ref(M * N), got(M * N);
  for (int i = 0; i < M * N; ++i) ref[i] = got[i] = 1.0 + 0.25 * (i % 7);
  EXPECT_TRUE(harness::compare_host(got, ref, M, N, K).pass);
  got[13] += 0.5;  // one wrong element
  harness::Verdict v = harness::compare_host(got, ref, M, N, K);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.worst_row, 1);
  EXPECT_EQ(v.worst_col, 5);
  got[13] = std::nan("");
  v = harness::compare_host(got, ref, M, N, K);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.nonfinite, 1);
}
