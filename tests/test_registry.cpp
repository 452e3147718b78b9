// The registry, argument validation and the C ABI: all of it runs without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/harness.hpp"
#include "ladder/ladder.h"
#include "ladder/ladder.hpp"
#include "runtime/runtime.hpp"
#include "runtime/tuning.hpp"
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
  EXPECT_EQ(detail::find_step("nope"), nullptr);
}

// The registry's order is the ladder's: h01, h02, … without gaps, then best (which picks among them), then b01,
// b02, …; ladder::steps() and the C ABI list the same steps in the same order.
TEST(Registry, OrderIsTheLadders) {
  const auto reg = detail::registry();
  auto numbered = [](char arch, int n) {
    char id[8];
    std::snprintf(id, sizeof id, "%c%02d", arch, n);
    return std::string(id);
  };
  size_t i = 0;
  int hopper = 0, blackwell = 0;
  for (; i < reg.size() && reg[i]->id != "best"; ++i) {
    EXPECT_EQ(reg[i]->arch, detail::Arch::hopper) << reg[i]->id;
    EXPECT_EQ(reg[i]->id, numbered('h', ++hopper));
  }
  ASSERT_LT(i, reg.size()) << "no best";
  EXPECT_EQ(reg[i++]->arch, detail::Arch::hopper);
  for (; i < reg.size(); ++i) {
    EXPECT_EQ(reg[i]->arch, detail::Arch::blackwell) << reg[i]->id;
    EXPECT_EQ(reg[i]->id, numbered('b', ++blackwell));
  }
  EXPECT_GE(hopper, 10);  // the book's ten steps on each ladder
  EXPECT_GE(blackwell, 10);

  const std::vector<StepInfo> infos = steps();
  ASSERT_EQ(infos.size(), reg.size());
  ASSERT_EQ(ladder_step_count(), static_cast<int>(reg.size()));
  for (size_t j = 0; j < reg.size(); ++j) {
    EXPECT_EQ(infos[j].id, reg[j]->id);
    EXPECT_EQ(infos[j].arch, detail::arch_name(reg[j]->arch));
    EXPECT_EQ(infos[j].target, detail::arch_target(reg[j]->arch));
    EXPECT_EQ(infos[j].shapes, reg[j]->shapes);
    EXPECT_STREQ(ladder_step_id(static_cast<int>(j)), reg[j]->id.data());
  }
}

// Each step's `shapes` text (what `ladder list` and ladder::steps() show) is read as rules and held against its
// check() on a grid of problems: both must accept the same ones. The text's grammar: clauses separated by ';' or
// ',', remarks in parentheses; "any …" and "… aligned pointers" constrain nothing checked here (validation and
// the pointer check do); "X == v" and "X % m == 0", where names listed before share the rule ("lda, ldb % 8 ==
// 0"); and "dense rows".
namespace {
using Rule = std::function<bool(const detail::Problem&)>;

int64_t field(const detail::Problem& p, const std::string& name) {
  if (name == "M") return p.M;
  if (name == "N") return p.N;
  if (name == "K") return p.K;
  if (name == "lda") return p.lda;
  if (name == "ldb") return p.ldb;
  if (name == "ldd") return p.ldd;
  throw std::invalid_argument("unknown name '" + name + "'");
}

// The rules of a shapes text; throws std::invalid_argument on text outside the grammar.
std::vector<Rule> read_shapes(std::string text) {
  text = std::regex_replace(text, std::regex("\\([^)]*\\)"), "");
  std::vector<Rule> rules;
  const std::regex equal("^(\\w+) *== *(\\d+)$"), multiple("^(\\w+) *% *(\\d+) *== *0$"), name("^\\w+$");
  std::stringstream clauses(text);
  for (std::string clause; std::getline(clauses, clause, ';');) {
    clause = std::regex_replace(clause, std::regex("^ +| +$"), "");
    if (clause.rfind("any ", 0) == 0 || clause.find("aligned pointers") != std::string::npos) continue;
    if (clause == "dense rows") {
      rules.push_back([](const detail::Problem& p) { return p.lda == p.K && p.ldb == p.K && p.ldd == p.N; });
      continue;
    }
    std::vector<std::string> names;
    std::stringstream tokens(clause);
    for (std::string t; std::getline(tokens, t, ',');) {
      t = std::regex_replace(t, std::regex("^ +| +$"), "");
      std::smatch m;
      if (std::regex_match(t, name)) {
        names.push_back(t);
        continue;
      }
      const bool eq = std::regex_match(t, m, equal);
      if (!eq && !std::regex_match(t, m, multiple)) throw std::invalid_argument("cannot read '" + t + "'");
      names.push_back(m[1]);
      const int64_t v = std::stoll(m[2]);
      for (const std::string& n : names) {
        field({}, n);  // a known name
        rules.push_back([n, v, eq](const detail::Problem& p) { return eq ? field(p, n) == v : field(p, n) % v == 0; });
      }
      names.clear();
    }
    if (!names.empty()) throw std::invalid_argument("no rule for '" + names.front() + "' in '" + clause + "'");
  }
  return rules;
}
}  // namespace

TEST(Registry, ShapesTextAgreesWithCheck) {
  for (const detail::Step* s : detail::registry()) {
    SCOPED_TRACE(std::string(s->id) + ": \"" + std::string(s->shapes) + "\"");
    std::vector<Rule> rules;
    ASSERT_NO_THROW(rules = read_shapes(std::string(s->shapes)));
    int disagreements = 0, accepted = 0;
    for (int64_t M : {1, 64, 128, 200, 256})
      for (int64_t N : {8, 64, 128, 130, 256})
        for (int64_t K : {7, 8, 64, 96, 128})
          for (int v = 0; v < 7; ++v) {
            // dense; one of lda, ldb, ldd longer by 8 (rows stay 16-byte aligned); or by 1 (they do not)
            const int64_t pad = v == 0 ? 0 : v <= 3 ? 8 : 1, which = (v + 2) % 3;
            const int64_t lda = K + (which == 0) * pad, ldb = K + (which == 1) * pad, ldd = N + (which == 2) * pad;
            const detail::Problem p{nullptr, nullptr, nullptr, M, N, K, lda, ldb, ldd};
            const bool by_text = std::all_of(rules.begin(), rules.end(), [&](const Rule& r) { return r(p); });
            const std::string why = s->check(p);
            accepted += why.empty();
            if (by_text != why.empty() && ++disagreements <= 3)
              ADD_FAILURE() << M << "x" << N << "x" << K << " lda " << lda << " ldb " << ldb << " ldd " << ldd
                            << ": the text " << (by_text ? "accepts" : "rejects") << " it, check() "
                            << (why.empty() ? "accepts it" : "says: " + why);
          }
    EXPECT_EQ(disagreements, 0);
    EXPECT_GT(accepted, 0);
  }
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
  // The grid's y dimension holds at most 65535 tiles of N (steps 03-05 of both ladders).
  for (const char* step : {"h03", "h04", "h05", "b03", "b04", "b05"})
    EXPECT_NE(why_not(step, 128, 128 * 65536, 64).find("N must be at most 65535*128 (grid y limit)"), std::string::npos)
        << step;
  EXPECT_EQ(why_not("h04", 128, 128 * 65535, 64).find("grid y"), std::string::npos);
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

// The steps that write D with TMA stores (h09-h11) need its base on 16 bytes, as the tensor map does: refused before
// anything launches as misaligned, not by the driver's map encoding. Found by the launch contract (tools/host_path).
TEST(CApi, TmaStoreStepsRefuseAnUnalignedD) {
  for (const char* step : {"h09", "h10", "h11"}) {
    ladder_gemm_desc d;
    ladder_gemm_desc_init(&d);
    d.M = 128, d.N = 256, d.K = 64, d.A = kFake, d.B = kFake, d.step = step;
    d.D = static_cast<char*>(kFakeOut) + 2;  // element-aligned, not 16-byte aligned
    EXPECT_EQ(ladder_gemm_v2(&d, nullptr), LADDER_ERROR_MISALIGNED) << step;
    EXPECT_NE(std::string(ladder_last_error()).find("A, B and D must be 16-byte aligned"), std::string::npos) << step;
  }
}

TEST(CApi, StepEnumeration) {
  ASSERT_EQ(ladder_step_count(), static_cast<int>(detail::registry().size()));
  EXPECT_STREQ(ladder_step_id(0), "h01");  // the whole order: Registry.OrderIsTheLadders
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

// LADDER_TUNE: every key parses into its field; a bad key or value is an error, not a silent default.
TEST(Tuning, ParsesEveryKeyAndRejectsBadValues) {
  const detail::Tuning t = detail::parse_tuning(
      "kernel=coop,split=4,fixup=3,cps=2,stages=8,wg=1,width=112,fitcl=1,xbox=1,post=0,defer=0,wb=0,pdl=0,l2promo=128,wbox=1,l2evict=1,relax=0,mc=2,resc=1,bstatic=1,trace=1");
  EXPECT_EQ(t.kernel, "coop");
  EXPECT_EQ(t.split, 4);
  EXPECT_EQ(t.fixup, 3);
  EXPECT_EQ(t.ctas_per_sm, 2);
  EXPECT_EQ(t.stages, 8);
  EXPECT_EQ(t.consumers, 1);
  EXPECT_EQ(t.width, 112);
  EXPECT_EQ(t.fit_cluster, 1);
  EXPECT_EQ(t.xbox, 1);
  EXPECT_EQ(t.post, 0);
  EXPECT_EQ(t.defer, 0);
  EXPECT_EQ(t.wb, 0);
  EXPECT_EQ(t.pdl, 0);
  EXPECT_EQ(t.l2promo, 128);
  EXPECT_EQ(t.wbox, 1);
  EXPECT_EQ(t.relax, 0);  // not the default
  EXPECT_EQ(t.mcast, 2);
  EXPECT_EQ(t.resc, 1);
  EXPECT_EQ(t.bstatic, 1);
  EXPECT_EQ(t.l2evict, 1);
  EXPECT_TRUE(t.trace);
  const detail::Tuning d = detail::parse_tuning("");
  EXPECT_EQ(d.l2promo, -1);  // auto
  EXPECT_EQ(d.l2evict, -1);
  EXPECT_EQ(d.wbox, 0);
  EXPECT_EQ(d.relax, 1);  // small-M's last cluster barrier relaxed (twenty-sixth session)
  EXPECT_EQ(d.mcast, 0);  // small-M's weights multicast where every cluster is resident (twenty-ninth session)
  EXPECT_EQ(detail::parse_tuning("mc=1").mcast, 1);
  EXPECT_EQ(d.resc, 0);
  EXPECT_EQ(d.bstatic, 0);
  EXPECT_EQ(d.split, 0);
  EXPECT_EQ(d.post, 4);  // small-M's partials pushed with token tiles of <= 16
  EXPECT_EQ(d.wb, 1);
  EXPECT_EQ(d.defer, 2);  // the cooperative tile's activation and residual in epilogue warps unless defer=0
  EXPECT_EQ(detail::parse_tuning("defer=1").defer, 1);  // the activation only (the residual in the consumers)
  EXPECT_EQ(d.pdl, 1);  // best's kernels are programmatic dependent launches unless pdl=0
  EXPECT_EQ(detail::parse_tuning("post=2").post, 2);  // the plain copy with cluster barriers (racecheck's probe)
  EXPECT_EQ(detail::parse_tuning("post=3").post, 3);  // small-M's partials pushed to their owners
  EXPECT_EQ(detail::parse_tuning("post=1").post, 1);  // pulled at every tile (post=4, pushed at <= 16 tokens, is the default)
  for (const char* bad : {"split=0", "split=17", "cps=9", "l2promo=100", "l2promo=512", "wbox=0", "wbox=3", "relax=2", "relax=-1", "mc=0", "mc=3", "resc=2", "bstatic=2", "l2evict=2", "stages=1", "width=8", "width=100", "width=272", "xbox=2", "post=5", "defer=3", "wb=2", "pdl=2", "fitcl=0", "fitcl=3", "wg=0", "wg=3", "foo=1", "split",
                          "split=abc", "kernel="})
    EXPECT_THROW(detail::parse_tuning(bad), ladder::Error) << bad;
}
