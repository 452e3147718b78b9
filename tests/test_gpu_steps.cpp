// Every step against cuBLAS (fp32 output) and, at small sizes, a CPU double reference; fresh random data,
// two seeds, poisoned output, and a second run that must give identical bits. Without a suitable GPU the
// cases skip with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness/harness.hpp"
#include "harness/runner.hpp"
#include "ladder/ladder.hpp"
#include "runtime/runtime.hpp"
#include "step.hpp"
#include "runtime/tuning.hpp"

using namespace ladder;

namespace {

struct Case {
  std::string step;
  int64_t M, N, K;
  uint64_t seed;
};
void PrintTo(const Case& c, std::ostream* os) {
  *os << c.step << " " << c.M << "x" << c.N << "x" << c.K << " seed " << c.seed;
}

// Skips the test unless a Hopper GPU is present; leaves `dev` (the device's facts) in scope. `what` prefixes the
// reason (the step the test needs), as in "h12 needs an sm_90a GPU".
#define LADDER_REQUIRE_HOPPER_GPU(what)                                                        \
  const detail::DeviceInfo dev = detail::current_device();                                     \
  if (!dev.present) GTEST_SKIP() << "no GPU: " << dev.error;                                   \
  if (std::string why = detail::arch_support(detail::Arch::hopper); !why.empty()) GTEST_SKIP() << what << why

// check_step under `tuning` with the launch trace on: the check's result and the trace (the tuning is restored).
struct TracedCheck {
  harness::CheckResult r;
  std::string trace;
};
TracedCheck traced_check(const char* step, int64_t M, int64_t N, int64_t K, uint64_t seed, detail::Tuning tuning) {
  const detail::Tuning saved = detail::tuning();
  tuning.trace = true;
  detail::set_tuning(tuning);
  ::testing::internal::CaptureStderr();
  harness::CheckResult r = harness::check_step(step, M, N, K, seed);
  std::string trace = ::testing::internal::GetCapturedStderr();
  detail::set_tuning(saved);
  return {std::move(r), std::move(trace)};
}

// The tiles a traced stream-K launch split ("stream-K tiles N" in the cooperative kernel's trace); -1 if none is traced.
int split_tiles(const std::string& trace) {
  const size_t at = trace.find("stream-K tiles ");
  return at == std::string::npos ? -1 : std::atoi(trace.c_str() + at + 15);
}

// Square and not; every step gets at least one accepted shape.
const std::vector<std::array<int64_t, 3>> kShapes = {
    {128, 128, 64}, {128, 128, 1024}, {256, 384, 512}, {384, 256, 192}, {1024, 1024, 1024}, {1920, 640, 320},
    {2048, 1024, 4096}, {1000, 1000, 1000}, {257, 129, 72}, {4095, 4097, 4099},
};

std::vector<Case> cases() {
  std::vector<Case> out;
  std::vector<std::string> ids;
  for (const detail::Step* s : detail::registry()) ids.emplace_back(s->id);
  for (const std::string& id : ids)
    for (const auto& sh : kShapes) {
      // Only shapes the step accepts (the shape rules are tested in test_registry).
      const detail::Step* s = detail::find_step(id);
      const detail::Problem p{nullptr, nullptr, nullptr, sh[0], sh[1], sh[2], sh[2], sh[2], sh[1]};
      if (!s->check(p).empty()) continue;
      for (uint64_t seed : {1u, 2u}) out.push_back({id, sh[0], sh[1], sh[2], seed});
    }
  return out;
}

class StepCheck : public ::testing::TestWithParam<Case> {};

// Runs without a GPU: the case list itself covers the registry (a step whose rules accept none of kShapes would
// otherwise go untested without anyone noticing).
TEST(GpuCases, EveryRegisteredStepHasOne) {
  const std::vector<Case> all = cases();
  for (const detail::Step* s : detail::registry()) {
    const auto n = std::count_if(all.begin(), all.end(), [&](const Case& c) { return c.step == s->id; });
    EXPECT_GE(n, 1) << s->id << " accepts none of the GPU test shapes";
  }
}

TEST_P(StepCheck, MatchesReferences) {
  const Case& c = GetParam();
  const detail::Step* s = detail::find_step(c.step);
  const detail::DeviceInfo dev = detail::current_device();
  if (!dev.present) GTEST_SKIP() << "no GPU: " << dev.error;
  if (std::string why = detail::arch_support(s->arch); !why.empty()) GTEST_SKIP() << c.step << " " << why;
  const harness::CheckResult r = harness::check_step(c.step, c.M, c.N, c.K, c.seed);
  ASSERT_EQ(r.status, harness::Status::pass) << r.reason;
  EXPECT_TRUE(r.vs_cublas.pass) << r.vs_cublas.detail();
  EXPECT_EQ(r.vs_cublas.nonfinite, 0);
  EXPECT_TRUE(r.deterministic);
  if (c.M * c.N * c.K <= harness::kCpuReferenceMaxMNK) {
    EXPECT_TRUE(r.cpu_checked);
    EXPECT_TRUE(r.step_vs_cpu.pass) << r.step_vs_cpu.detail();
    EXPECT_TRUE(r.cublas_vs_cpu.pass) << r.cublas_vs_cpu.detail();
  }
}

INSTANTIATE_TEST_SUITE_P(AllSteps, StepCheck, ::testing::ValuesIn(cases()), [](const auto& info) {
  const Case& c = info.param;
  return c.step + "_" + std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K) + "_s" +
         std::to_string(c.seed);
});

// The verifier itself on the GPU: a correct result passes, one corrupted element or an unwritten (NaN)
// element fails.
TEST(GpuVerifier, CatchesCorruptionAndPoison) {
  const detail::DeviceInfo dev = detail::current_device();
  if (!dev.present) GTEST_SKIP() << "no GPU: " << dev.error;
  const int64_t M = 256, N = 256, K = 512;
  harness::DeviceBuffer<__half> A(M * K), B(N * K), D(M * N);
  harness::DeviceBuffer<float> ref(M * N);
  harness::fill_random(A.get(), A.size(), 7, nullptr);
  harness::fill_random(B.get(), B.size(), 8, nullptr);
  harness::Cublas cublas;
  cublas.gemm_f16(A.get(), B.get(), D.get(), M, N, K, nullptr);
  cublas.gemm_f32_out(A.get(), B.get(), ref.get(), M, N, K, nullptr);
  EXPECT_TRUE(harness::compare(D.get(), N, ref.get(), M, N, K, nullptr).pass);
  const __half big = __float2half(100.0f);
  ASSERT_EQ(cudaMemcpy(D.get() + 77 * N + 5, &big, 2, cudaMemcpyHostToDevice), cudaSuccess);
  harness::Verdict v = harness::compare(D.get(), N, ref.get(), M, N, K, nullptr);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.over_bound, 1);
  EXPECT_EQ(v.worst_row, 77);
  EXPECT_EQ(v.worst_col, 5);
  harness::fill_poison(D.get() + 1000, 1, nullptr);
  v = harness::compare(D.get(), N, ref.get(), M, N, K, nullptr);
  EXPECT_FALSE(v.pass);
  EXPECT_EQ(v.nonfinite, 1);
}

// best with leading dimensions, K % 8 != 0 and pointers that are only fp16-aligned: against a CPU double
// reference computed with the same strides.
TEST(Best, StridedUnalignedAnyK) {
  LADDER_REQUIRE_HOPPER_GPU("best ");
  struct S { int64_t M, N, K, lda, ldb, ldd, off; };
  for (const S& c : {S{257, 131, 77, 80, 83, 133, 1}, S{64, 512, 1000, 1000, 1003, 520, 0}, S{300, 17, 5, 7, 9, 17, 3},
                     S{1, 1, 1, 1, 1, 1, 1}, S{128, 256, 520, 528, 520, 264, 8}}) {
    harness::DeviceBuffer<__half> A(c.M * c.lda + c.off), B(c.N * c.ldb + c.off), D(c.M * c.ldd + c.off);
    harness::fill_random(A.get(), A.size(), 11, nullptr);
    harness::fill_random(B.get(), B.size(), 12, nullptr);
    harness::fill_poison(D.get(), D.size(), nullptr);
    gemm(A.get() + c.off, B.get() + c.off, D.get() + c.off, c.M, c.N, c.K, "best", nullptr, {c.lda, c.ldb, c.ldd});
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<__half> a(A.size()), b(B.size()), d(D.size());
    cudaMemcpy(a.data(), A.get(), a.size() * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(b.data(), B.get(), b.size() * 2, cudaMemcpyDeviceToHost);
    cudaMemcpy(d.data(), D.get(), d.size() * 2, cudaMemcpyDeviceToHost);
    std::vector<double> got(c.M * c.N), ref(c.M * c.N);
    for (int64_t m = 0; m < c.M; ++m)
      for (int64_t n = 0; n < c.N; ++n) {
        double acc = 0;
        for (int64_t k = 0; k < c.K; ++k)
          acc += double(__half2float(a[c.off + m * c.lda + k])) * double(__half2float(b[c.off + n * c.ldb + k]));
        ref[m * c.N + n] = acc;
        got[m * c.N + n] = __half2float(d[c.off + m * c.ldd + n]);
      }
    const harness::Verdict v = harness::compare_host(got, ref, c.M, c.N, c.K);
    EXPECT_TRUE(v.pass) << c.M << "x" << c.N << "x" << c.K << ": " << v.detail();
    // Padding between rows of D stays untouched (still poison).
    if (c.ldd > c.N) EXPECT_TRUE(__hisnan(d[c.off + c.N]));
  }
}

// The small-M family's split reduction (partial tiles summed across the cluster in rank order) gives the same
// bits on every run and on two streams at once, for every split the cost model or a tuning run may pick.
TEST(SmallM, SplitReductionIsBitIdenticalAcrossRunsAndStreams) {
  LADDER_REQUIRE_HOPPER_GPU("h12 ");
  const detail::Tuning saved = detail::tuning();
  for (int split : {2, 3, 7, 8, 16})  // 3 and 7: best's busiest-SM rule takes any split up to 8
    for (const auto& [M, N, K] : std::vector<std::array<int64_t, 3>>{{1, 4096, 4096}, {16, 1000, 4104}, {64, 2048, 8192}}) {
      detail::Tuning t = saved;
      t.split = split;
      detail::set_tuning(t);
      harness::DeviceBuffer<__half> A(M * K), B(N * K), D1(M * N), D2(M * N);
      harness::fill_random(A.get(), A.size(), 21, nullptr);
      harness::fill_random(B.get(), B.size(), 22, nullptr);
      cudaStream_t s1 = nullptr, s2 = nullptr;
      ASSERT_EQ(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking), cudaSuccess);
      ASSERT_EQ(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      std::vector<__half> first;
      for (int run = 0; run < 10; ++run) {
        harness::fill_poison(D1.get(), D1.size(), s1);
        harness::fill_poison(D2.get(), D2.size(), s2);
        gemm(A.get(), B.get(), D1.get(), M, N, K, "h12", s1);  // the two run concurrently
        gemm(A.get(), B.get(), D2.get(), M, N, K, "h13", s2);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        std::vector<__half> d1(M * N), d2(M * N);
        cudaMemcpy(d1.data(), D1.get(), d1.size() * 2, cudaMemcpyDeviceToHost);
        cudaMemcpy(d2.data(), D2.get(), d2.size() * 2, cudaMemcpyDeviceToHost);
        ASSERT_EQ(std::memcmp(d1.data(), d2.data(), d1.size() * 2), 0) << "split " << split << " run " << run;
        if (run == 0) first = d1;
        ASSERT_EQ(std::memcmp(d1.data(), first.data(), d1.size() * 2), 0) << "split " << split << " run " << run;
      }
      cudaStreamDestroy(s1);
      cudaStreamDestroy(s2);
      const harness::CheckResult r = harness::check_step("h12", M, N, K, 23);  // and right, under this split
      EXPECT_EQ(r.status, harness::Status::pass) << "split " << split << ": " << r.reason;
    }
  detail::set_tuning(saved);
}

// Runs `d` once under tuning `t` with the launch trace on (D poisoned first unless `keep_d`): D's 2-byte elements and
// the trace.
std::pair<std::vector<uint16_t>, std::string> traced_run(detail::Tuning t, const ladder_gemm_desc& d, size_t d_elems,
                                                         bool keep_d = false) {
  t.trace = true;
  detail::set_tuning(t);
  if (!keep_d) harness::fill_poison(static_cast<__half*>(d.D), d_elems, nullptr);
  ::testing::internal::CaptureStderr();
  gemm(d, nullptr);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::string trace = ::testing::internal::GetCapturedStderr();
  std::vector<uint16_t> out(d_elems);
  EXPECT_EQ(cudaMemcpy(out.data(), d.D, d_elems * 2, cudaMemcpyDeviceToHost), cudaSuccess);
  return {out, trace};
}

// Any NaN or Inf (all exponent bits set) among fp16 or bf16 elements, or fill_poison's bits (fp16's quiet NaN 0x7E00,
// a large finite number as bf16): the poison left unwritten, or an overflow.
bool any_nan_or_inf(const std::vector<uint16_t>& v, bool bf16) {
  const uint16_t exponent = bf16 ? 0x7f80 : 0x7c00;
  return std::any_of(v.begin(), v.end(), [&](uint16_t h) { return (h & exponent) == exponent || h == 0x7E00; });
}

// A descriptor for D = A·Bᵀ over dense device buffers, fp16 or bf16 operands and D.
ladder_gemm_desc dense_desc(int64_t M, int64_t N, int64_t K, const void* A, const void* B, void* D, bool bf16) {
  ladder_gemm_desc d;
  ladder_gemm_desc_init(&d);
  d.M = M, d.N = N, d.K = K, d.A = A, d.B = B, d.D = D;
  d.ab_dtype = d.d_dtype = bf16 ? LADDER_DTYPE_BF16 : LADDER_DTYPE_F16;
  return d;
}

// A small-M bit-identity case's operands: random A, B and bias (seeds seed, seed + 1, seed + 2; bf16 reads fp16's
// random bits), D of M × out_cols, and the descriptor over them, SwiGLU with the bias where asked. Not movable: the
// descriptor points into the buffers.
struct SmallMOperands {
  harness::DeviceBuffer<__half> A, B, D, bias;
  ladder_gemm_desc d;
  SmallMOperands(int64_t M, int64_t N, int64_t K, bool swiglu, bool bf16, uint64_t seed)
      : A(M * K), B(N * K), D(M * (swiglu ? N / 2 : N)), bias(N) {
    harness::fill_random(A.get(), A.size(), seed, nullptr);
    harness::fill_random(B.get(), B.size(), seed + 1, nullptr);
    harness::fill_random(bias.get(), bias.size(), seed + 2, nullptr);
    d = dense_desc(M, N, K, A.get(), B.get(), D.get(), bf16);
    if (swiglu) d.epilogue = LADDER_EPILOGUE_SWIGLU, d.bias = bias.get(), d.bias_dtype = d.ab_dtype;
  }
  SmallMOperands(const SmallMOperands&) = delete;
  SmallMOperands& operator=(const SmallMOperands&) = delete;
};

// LADDER_TUNE post=3: the small-M kernel pushes each owner's groups of its partial tile into the owner's SMEM by bulk
// copy instead of the owners pulling them. The sums are the same additions in the same rank order, so D must be the
// pulled path's bits exactly: plain and SwiGLU (with a bias: the up columns' slots), fp16 and bf16, the 8- to
// 128-token tiles, a last token tile of fewer rows, splits 2-16. The trace shows the push ran; `check` that it is right.
TEST(SmallM, PushedPartialsGiveThePulledBits) {
  LADDER_REQUIRE_HOPPER_GPU("h13 ");
  const detail::Tuning saved = detail::tuning();
  struct PushCase {
    int64_t M, N, K;
    int split;
    bool swiglu, bf16;
  };
  const std::vector<PushCase> cases = {{1, 1024, 4096, 8, false, false},  {16, 1000, 4104, 3, false, false},
                                       {40, 2048, 4096, 4, false, true},  {100, 1024, 8192, 2, false, false},
                                       {200, 512, 4096, 3, false, false}, {1, 1024, 8192, 16, false, false},
                                       {16, 2048, 4096, 4, true, false},  {100, 2048, 4096, 2, true, true}};
  for (const PushCase& c : cases) {
    const SmallMOperands op(c.M, c.N, c.K, c.swiglu, c.bf16, 31);
    auto run = [&](int post) {
      detail::Tuning t = saved;
      t.kernel = "small_m", t.split = c.split, t.post = post;
      return traced_run(t, op.d, op.D.size());
    };
    const auto [pulled, pull_trace] = run(1);
    const auto [pushed, push_trace] = run(3);
    const std::string what = std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K) + " split " +
                             std::to_string(c.split) + (c.swiglu ? " swiglu" : "") + (c.bf16 ? " bf16" : "");
    EXPECT_EQ(pull_trace.find(" push"), std::string::npos) << what << ": " << pull_trace;
    EXPECT_NE(push_trace.find(" push"), std::string::npos) << what << ": the push did not run: " << push_trace;
    EXPECT_EQ(pulled, pushed) << what << ": the pushed partials' sums differ from the pulled ones";
    EXPECT_FALSE(any_nan_or_inf(pushed, c.bf16)) << what << ": NaN or Inf in D (the poison left unwritten?)";
    if (!c.swiglu && !c.bf16) {
      detail::Tuning t = saved;
      t.kernel = "small_m", t.split = c.split, t.post = 3;
      detail::set_tuning(t);
      const harness::CheckResult r = harness::check_step("best", c.M, c.N, c.K, 34);
      EXPECT_EQ(r.status, harness::Status::pass) << what << ": " << r.reason;
    }
  }
  detail::set_tuning(saved);
}

// LADDER_TUNE mc=2: the small-M kernel's two-consumer tiles with two token tiles a cluster, each CTA loading half of a
// weight stage into both (TMA multicast), against mc=1 (each its own). The same bytes reach the same SMEM in the same
// K order, so D must be the unicast bits: plain and SwiGLU (its gate and up boxes are the two halves), fp16 and bf16,
// the 64-, 96- and 128-token tiles and the one-consumer 64×64 tile (two 32-row weight boxes), splits 1-4, a last
// token tile of fewer rows; best's own picks (multicast where every cluster is resident, which depends on the GPU's
// GPCs; the launch contract checks the plan against the launch).
// The trace shows which ran; `check` that it is right.
TEST(SmallM, MulticastWeightsGiveTheUnicastBits) {
  LADDER_REQUIRE_HOPPER_GPU("h13 ");
  const detail::Tuning saved = detail::tuning();
  struct McCase {
    int64_t M, N, K;
    int tok, split;  // tok 0, split 0: best's own pick
    bool swiglu, bf16;
    int wg = 0;  // 1: the 64×64 tile (one consumer, its weights in two 32-row boxes)
  };
  const std::vector<McCase> cases = {{512, 1024, 8192, 0, 0, false, false},  {500, 1000, 4000, 0, 0, false, false},
                                     {256, 2048, 4096, 64, 2, false, true},  {250, 1024, 2056, 64, 1, false, false},
                                     {400, 1536, 8192, 128, 4, false, false}, {190, 2048, 4096, 96, 3, true, false},
                                     {512, 2048, 3072, 64, 2, true, true},   {512, 1024, 4096, 64, 1, false, false, 1},
                                     {250, 2048, 2056, 64, 2, true, true, 1}, {250, 1000, 4104, 64, 3, false, false, 1}};
  for (const McCase& c : cases) {
    const SmallMOperands op(c.M, c.N, c.K, c.swiglu, c.bf16, 61);
    auto tuned = [&](int mc) {
      detail::Tuning t = saved;
      t.mcast = mc;
      if (c.tok != 0) t.kernel = "small_m", t.tokens = c.tok, t.split = c.split, t.consumers = c.wg;
      return t;
    };
    const auto [uni, uni_trace] = traced_run(tuned(1), op.d, op.D.size());
    const auto [multi, multi_trace] = traced_run(tuned(c.tok != 0 ? 2 : 0), op.d, op.D.size());
    const std::string what = std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K) +
                             (c.tok ? " tok " + std::to_string(c.tok) + " split " + std::to_string(c.split) : " best") +
                             (c.swiglu ? " swiglu" : "") + (c.bf16 ? " bf16" : "");
    EXPECT_EQ(uni_trace.find(" mcast"), std::string::npos) << what << ": " << uni_trace;
    if (c.tok != 0)
      EXPECT_NE(multi_trace.find(" mcast 2"), std::string::npos) << what << ": the multicast did not run: " << multi_trace;
    EXPECT_EQ(uni, multi) << what << ": the multicast weights' products differ from the unicast ones";
    EXPECT_FALSE(any_nan_or_inf(multi, c.bf16)) << what << ": NaN or Inf in D (the poison left unwritten?)";
    if (!c.swiglu && !c.bf16) {
      const auto [r, trace] = traced_check("best", c.M, c.N, c.K, 64, tuned(c.tok != 0 ? 2 : 0));
      EXPECT_EQ(r.status, harness::Status::pass) << what << ": " << r.reason;
      EXPECT_TRUE(r.deterministic) << what;
    }
  }
  detail::set_tuning(saved);
}

// The cooperative residual GEMM's cases: several tiles a CTA (2048×4096×2048) and a ragged shape (1000×5000×1032),
// fp16 and bf16, C apart and C = D (accumulating in place).
struct ResidualCase {
  int64_t M, N, K;
  bool bf16, in_place;
};
const std::vector<ResidualCase> kResidualCases = {
    {2048, 4096, 2048, false, false}, {2048, 4096, 2048, true, true}, {1000, 5000, 1032, false, true}, {1000, 5000, 1032, true, false}};

// LADDER_TUNE resc=1: best's cooperative residual GEMM (beta·C, no activation) runs a 3-stage copy that loads the whole
// tile's C before the mainloop, where the 4-stage copy loads its second half after the first half's stores. The
// epilogue's arithmetic is the same element by element, so D must be the 4-stage copy's bits: fp16 and bf16, C apart
// and C = D (accumulating in place), several tiles a CTA and a ragged shape. The trace shows which copy ran.
TEST(Cooperative, WholeResidualEarlyGivesTheSameBits) {
  LADDER_REQUIRE_HOPPER_GPU("best ");
  const detail::Tuning saved = detail::tuning();
  for (const ResidualCase& c : kResidualCases) {
    harness::DeviceBuffer<__half> A(c.M * c.K), B(c.N * c.K), C(c.M * c.N), D(c.M * c.N);
    harness::fill_random(A.get(), A.size(), 41, nullptr);
    harness::fill_random(B.get(), B.size(), 42, nullptr);
    harness::fill_random(C.get(), C.size(), 43, nullptr);
    ladder_gemm_desc d = dense_desc(c.M, c.N, c.K, A.get(), B.get(), D.get(), c.bf16);
    d.alpha = 0.5f, d.beta = 1.0f, d.C = c.in_place ? D.get() : C.get();
    auto run = [&](int resc) {
      detail::Tuning t = saved;
      t.kernel = "coop", t.resc = resc, t.defer = 1;  // defer=2 defers the residual instead
      if (c.in_place) EXPECT_EQ(cudaMemcpy(D.get(), C.get(), C.size() * 2, cudaMemcpyDeviceToDevice), cudaSuccess);
      return traced_run(t, d, D.size(), /*keep_d=*/c.in_place);
    };
    const auto [four, four_trace] = run(0);
    const auto [three, three_trace] = run(1);
    const std::string what = std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K) +
                             (c.bf16 ? " bf16" : " fp16") + (c.in_place ? " C = D" : "");
    EXPECT_NE(four_trace.find("cooperative 128x256 cluster 2 stages 4 tma-store"), std::string::npos) << what << ": " << four_trace;
    EXPECT_NE(three_trace.find("cooperative 128x256 cluster 2 stages 3 tma-store"), std::string::npos) << what << ": " << three_trace;
    EXPECT_EQ(four, three) << what << ": the residual added from the whole early C differs from the chunked one";
    EXPECT_FALSE(any_nan_or_inf(three, c.bf16)) << what << ": NaN or Inf in D";
  }
  detail::set_tuning(saved);
}

// LADDER_TUNE defer=2 (the default): best's cooperative residual GEMM (beta·C, no activation) leaves alpha·acc + bias in SMEM in D's
// dtype and the epilogue warps add beta·C (by TMA, two 64×64 blocks) and store the tile. D is rounded twice there,
// once where the consumers' own epilogue (defer=1) rounds, so the two agree bit for bit wherever one addend is exact:
// alpha = 0 (y = ±0: every element of C must land on its own element of D, every tile) and C = −0 (y alone, its sign
// kept even where it rounds to zero: the stash, the bias and the store). fp16 and bf16, C apart and C = D
// (accumulating in place), several tiles a CTA (the stash, then the last tile in the consumers) and a ragged shape;
// each also with every tile split by stream-K (fixup=0: the owners' stash, N's tail in the epilogue warps). The trace
// shows which copy ran and that tiles were split.
TEST(Cooperative, DeferredResidualPlacesEveryElement) {
  LADDER_REQUIRE_HOPPER_GPU("best ");
  const detail::Tuning saved = detail::tuning();
  for (const ResidualCase& c : kResidualCases) {
    harness::DeviceBuffer<__half> A(c.M * c.K), B(c.N * c.K), C(c.M * c.N), Z(c.M * c.N), D(c.M * c.N), bias(c.N);
    harness::fill_random(A.get(), A.size(), 41, nullptr);
    harness::fill_random(B.get(), B.size(), 42, nullptr);
    harness::fill_random(C.get(), C.size(), 43, nullptr);
    harness::fill_random(bias.get(), bias.size(), 44, nullptr);
    const std::vector<uint16_t> minus_zero(Z.size(), 0x8000);  // −0 in fp16 and bf16
    ASSERT_EQ(cudaMemcpy(Z.get(), minus_zero.data(), Z.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
    for (const auto& [zero_alpha, fixup] : std::vector<std::pair<bool, int>>{{true, -1}, {false, -1}, {true, 0}, {false, 0}}) {
      ladder_gemm_desc d = dense_desc(c.M, c.N, c.K, A.get(), B.get(), D.get(), c.bf16);
      const void* src = zero_alpha ? C.get() : Z.get();  // C = −0 where alpha is not 0
      d.alpha = zero_alpha ? 0.0f : 0.5f, d.beta = zero_alpha ? 0.75f : 1.0f, d.C = c.in_place ? D.get() : src;
      if (!zero_alpha) d.bias = bias.get(), d.bias_dtype = d.ab_dtype;
      auto run = [&](int defer) {
        detail::Tuning t = saved;
        t.kernel = "coop", t.defer = defer, t.fixup = fixup;
        if (c.in_place) EXPECT_EQ(cudaMemcpy(D.get(), src, C.size() * 2, cudaMemcpyDeviceToDevice), cudaSuccess);
        return traced_run(t, d, D.size(), /*keep_d=*/c.in_place);
      };
      const auto [own, own_trace] = run(1);
      const auto [deferred, deferred_trace] = run(2);
      const std::string what = std::to_string(c.M) + "x" + std::to_string(c.N) + "x" + std::to_string(c.K) +
                               (c.bf16 ? " bf16" : " fp16") + (c.in_place ? " C = D" : "") +
                               (zero_alpha ? " alpha 0" : " C -0, bias") + (fixup == 0 ? " fixup 0" : "");
      EXPECT_EQ(own_trace.find("deferred"), std::string::npos) << what << ": " << own_trace;
      EXPECT_NE(deferred_trace.find("stages 3 tma-store deferred-residual"), std::string::npos) << what << ": " << deferred_trace;
      if (fixup == 0) {
        EXPECT_GT(split_tiles(deferred_trace), 0) << what << ": no tile was split: " << deferred_trace;
      }
      EXPECT_EQ(own, deferred) << what << ": the deferred residual differs from the consumers' own";
      EXPECT_FALSE(any_nan_or_inf(deferred, c.bf16)) << what << ": NaN or Inf in D (the poison left unwritten?)";
      if (zero_alpha) {  // D = round(0.75·C): not zero where C is a normal number above twice the least one
        std::vector<uint16_t> host(C.size());
        EXPECT_EQ(cudaMemcpy(host.data(), C.get(), host.size() * 2, cudaMemcpyDeviceToHost), cudaSuccess);
        const uint16_t exponent = c.bf16 ? 0x7f80 : 0x7c00, two_least = c.bf16 ? 0x0100 : 0x0800;
        size_t nonzero_c_zero_d = 0;
        for (size_t i = 0; i < host.size(); ++i)
          nonzero_c_zero_d += (host[i] & exponent) >= two_least && (deferred[i] & 0x7fff) == 0;
        EXPECT_EQ(nonzero_c_zero_d, 0u) << what << ": elements of C that D lost";
      }
    }
  }
  detail::set_tuning(saved);
}

// best's tiles fitted to the waves (coop_fit): every compiled width and cluster, checked (poisoned D, cuBLAS and
// CPU references, a bit-identical rerun) on shapes with partial tiles in every dimension, and a width that is not
// compiled for the problem's cluster refused before launch.
TEST(CoopFit, EveryFittedTileMatchesTheReferences) {
  LADDER_REQUIRE_HOPPER_GPU("best ");
  const detail::Tuning saved = detail::tuning();
  struct FitCase {
    int width, cluster;
  };
  // The (width, cluster) pairs of src/hopper/families.hpp's kFitTiles, listed here so that a pair dropped there fails.
  for (const FitCase c : std::vector<FitCase>{{64, 1}, {112, 1}, {224, 1}, {64, 2}, {144, 2}, {208, 2}, {224, 2}}) {
    detail::Tuning t = saved;
    t.kernel = "coop_fit";
    t.width = c.width;
    detail::set_tuning(t);
    // Partial tiles everywhere; one row of A (the idle consumer, M <= 64) with a ring that wraps (17 K-tiles) and
    // more tiles than CTAs (each CTA's second tile: the phases carried across tiles); likewise for 2-CTA clusters.
    const int64_t w = c.width;
    const std::vector<std::array<int64_t, 3>> shapes =
        c.cluster == 1 ? std::vector<std::array<int64_t, 3>>{{128, 1000, 520}, {77, 3 * w + 8, 1032}, {1, 256, 64},
                                                             {48, 133 * w + 8, 1032}}
                       : std::vector<std::array<int64_t, 3>>{{256, 1000, 520}, {300, 3 * w + 8, 1032}, {129, 512, 64},
                                                             {300, 34 * w + 8, 1032}};
    for (const auto& [M, N, K] : shapes) {
      const harness::CheckResult r = harness::check_step("best", M, N, K, 41);
      EXPECT_EQ(r.status, harness::Status::pass) << "width " << c.width << " cluster " << c.cluster << " " << M << "x" << N
                                                 << "x" << K << ": " << r.reason;
    }
    if (c.cluster == 1) {  // the 1-CTA tiles above 128 rows (LADDER_TUNE fitcl=1): several tile rows, the last partial
      t.fit_cluster = 1;
      detail::set_tuning(t);
      for (const auto& [M, N, K] : std::vector<std::array<int64_t, 3>>{{300, 3 * w + 8, 1032}, {385, 1000, 520}}) {
        const harness::CheckResult r = harness::check_step("best", M, N, K, 44);
        EXPECT_EQ(r.status, harness::Status::pass) << "width " << c.width << " fitcl=1 " << M << "x" << N << "x" << K << ": "
                                                   << r.reason;
      }
      t.fit_cluster = 0;  // the refusal below is of the problem's own cluster size
      detail::set_tuning(t);
    }
    // The other cluster size has no tile of some widths: 112 at M > 128, 144 at M <= 128.
    if (c.width == 112 || c.width == 144) {
      const int64_t M = c.width == 112 ? 256 : 64, N = 512, K = 128;
      harness::DeviceBuffer<__half> A(M * K), B(N * K), D(M * N);
      harness::fill_random(A.get(), A.size(), 42, nullptr);
      harness::fill_random(B.get(), B.size(), 43, nullptr);
      harness::fill_poison(D.get(), D.size(), nullptr);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      try {
        gemm(A.get(), B.get(), D.get(), M, N, K, "best", nullptr);
        ADD_FAILURE() << "width " << c.width << ": ran";
      } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("no fitted tile of that width"), std::string::npos) << e.what();
      }
      std::vector<__half> d(M * N);
      cudaMemcpy(d.data(), D.get(), d.size() * 2, cudaMemcpyDeviceToHost);
      EXPECT_TRUE(std::all_of(d.begin(), d.end(), [](__half h) { return __hisnan(h); })) << "width " << c.width;
    }
  }
  detail::set_tuning(saved);
}

// `ladder bench --tune`'s candidates, timed in one interleaved run: each verified and timed under its own tuning (the
// trace shows both kernels launched many times, so the timed launches switch tunings, not only the verification), a
// tuning refused at launch fails its row only, and the tuning in force before is back afterwards.
TEST(Bench, CandidatesRunInterleavedUnderTheirOwnTuning) {
  LADDER_REQUIRE_HOPPER_GPU("best ");
  const detail::Tuning saved = detail::tuning();
  const std::vector<detail::Tuning> tunings = {detail::parse_tuning("kernel=small_m,trace=1"),
                                               detail::parse_tuning("kernel=pingpong,trace=1"),
                                               detail::parse_tuning("kernel=small_m,stages=32")};
  harness::TimingOptions opt;
  opt.target_ms = 5, opt.warmup_ms = 2;
  testing::internal::CaptureStderr();
  const std::vector<harness::BenchResult> r = harness::bench_candidates("best", 16, 4096, 4096, 7, tunings, opt);
  const std::string trace = testing::internal::GetCapturedStderr();
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].status, harness::Status::pass) << r[0].reason;
  EXPECT_EQ(r[1].status, harness::Status::pass) << r[1].reason;
  EXPECT_NE(r[0].kernel.find("small-M"), std::string::npos) << r[0].kernel;
  EXPECT_NE(r[1].kernel.find("pingpong"), std::string::npos) << r[1].kernel;
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t at = trace.find(what); at != std::string::npos; at = trace.find(what, at + 1)) ++n;
    return n;
  };
  EXPECT_GT(count("small-M 64x16"), 20u);       // candidate 0's timed launches (LADDER_TRACE lines)
  EXPECT_GT(count("tile 128x128"), 20u);        // candidate 1's: the ping-pong's 128×128 tiles
  EXPECT_GT(r[0].step_ms.median_ms, 0.0);
  EXPECT_GT(r[1].step_ms.median_ms, 0.0);
  EXPECT_GT(r[0].cublas_ms.median_ms, 0.0);     // timed once for the shape, shared by its rows
  EXPECT_EQ(r[2].status, harness::Status::fail);  // the ring does not fit: refused before launch
  EXPECT_NE(r[2].reason.find("stages=32"), std::string::npos) << r[2].reason;
  EXPECT_EQ(detail::tuning().kernel, saved.kernel);
  EXPECT_EQ(detail::tuning().stages, saved.stages);
  EXPECT_EQ(detail::tuning().trace, saved.trace);
}

// A tuning that cannot run (a ring deeper than the SMEM holds) is refused with a clear
// error before anything launches: D keeps its poison, and the next call with the model's plan runs.
TEST(SmallM, TuningThatCannotRunIsRefusedBeforeLaunch) {
  LADDER_REQUIRE_HOPPER_GPU("h12 ");
  const detail::Tuning saved = detail::tuning();
  const int64_t M = 128, N = 4096, K = 4096;
  harness::DeviceBuffer<__half> A(M * K), B(N * K), D(M * N);
  harness::fill_random(A.get(), A.size(), 31, nullptr);
  harness::fill_random(B.get(), B.size(), 32, nullptr);
  // 16 stages: deeper than the SMEM holds for the 64×64 tile best now takes here (16 KB a stage) and the 128×128 one.
  for (const char* spec : {"cps=1,stages=16", "stages=32"}) {
    detail::set_tuning(detail::parse_tuning(spec));
    harness::fill_poison(D.get(), D.size(), nullptr);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    try {
      gemm(A.get(), B.get(), D.get(), M, N, K, "h12", nullptr);
      ADD_FAILURE() << spec << ": ran";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), LADDER_ERROR_INVALID_ARGUMENT) << spec << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("LADDER_TUNE"), std::string::npos) << e.what();
    }
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << spec;
    std::vector<__half> d(M * N);
    cudaMemcpy(d.data(), D.get(), d.size() * 2, cudaMemcpyDeviceToHost);
    EXPECT_TRUE(std::all_of(d.begin(), d.end(), [](__half h) { return __hisnan(h); })) << spec << ": D was written";
  }
  detail::set_tuning(saved);
  const harness::CheckResult r = harness::check_step("h12", M, N, K, 33);
  EXPECT_EQ(r.status, harness::Status::pass) << r.reason;
}

// A step built for another architecture is refused with a clear error and launches nothing.
TEST(Device, OtherArchitectureIsRefused) {
  const detail::DeviceInfo dev = detail::current_device();
  if (!dev.present) GTEST_SKIP() << "no GPU: " << dev.error;
  const char* other = dev.cc == 90 ? "b03" : "h03";
  harness::DeviceBuffer<__half> A(128 * 64), B(128 * 64), D(128 * 128);
  EXPECT_EQ(ladder_gemm(A.get(), B.get(), D.get(), 128, 128, 64, other, nullptr), LADDER_ERROR_UNSUPPORTED_DEVICE);
  EXPECT_NE(std::string(ladder_last_error()).find("needs a"), std::string::npos) << ladder_last_error();
}

// best's choice of the 2-CTA fitted tile from K = 3072 at an even count of 128-row blocks (one or two waves it
// fills), of the 1-CTA 128×224 tile at an odd count (3 blocks), and of the 1-CTA tiles at 33-64 tokens for a plain
// GEMM with K >= 4096 where one wave fills the SMs (not at 32 tokens, nor with a shorter K): checked, and on the
// H200's 132 SMs the trace shows the pick.
TEST(CoopFit, BestPicksTheFittedTile) {
  LADDER_REQUIRE_HOPPER_GPU("");
  const detail::Tuning saved = detail::tuning();
  struct Case {
    int64_t M, N, K;
    const char* pick;
  };
  for (const Case& c : std::vector<Case>{{192, 9216, 3072, "cooperative 128x144 cluster 2"},
                                         {512, 9216, 3072, "cooperative 128x144 cluster 2"},
                                         {384, 9216, 3072, "cooperative 128x224 cluster 1"},
                                         {64, 14336, 4096, "cooperative 128x112 cluster 1"},
                                         {40, 28672, 4096, "cooperative 128x224 cluster 1"},
                                         {40, 28672, 1032, "small-M 128x64"},
                                         {32, 14336, 1032, "small-M 64x32"}}) {
    const auto [r, trace] = traced_check("best", c.M, c.N, c.K, 23, saved);
    EXPECT_EQ(r.status, harness::Status::pass) << c.M << "x" << c.N << "x" << c.K << ": " << r.reason;
    if (dev.sms == 132) EXPECT_NE(trace.find(c.pick), std::string::npos) << trace;
  }
}

// The small-M kernel's fitted token tiles above 64 tokens (small_m::fitted_tokens): 128×96 and 128×64, as best picks
// them on the H200's 132 SMs and forced (LADDER_TUNE tok=) on ragged shapes (a short last token tile, odd N, K % 8 ≠ 0
// through best's padding), each checked (poisoned D, cuBLAS and CPU references, a bit-identical rerun). A layer of at
// most 1/16 of the SMs in 128-row tiles keeps its 64×64 tiles at 65-128 tokens whatever tok says (tile_for); up to 512
// tokens, 64×64 tiles that fit one wave with K ≤ 4096 are best's own pick unless tok is set, but for 128×64 where they
// fill >= 80 % of it, the tokens are at least half the weight rows and K > 3072.
TEST(SmallM, FittedTokenTilesMatchReferences) {
  LADDER_REQUIRE_HOPPER_GPU("");
  const detail::Tuning saved = detail::tuning();
  struct Case {
    int64_t M, N, K;
    int tok;           // 0: best's own pick (checked on 132 SMs), else forced with kernel=small_m
    const char* tile;  // in the launch trace
  };
  const std::vector<Case> cases = {{96, 5120, 5120, 0, "small-M 128x96"},  {192, 3584, 3584, 0, "small-M 128x96"},
                                   {192, 5120, 5120, 0, "small-M 128x64"},  {97, 4096, 4104, 96, "small-M 128x96"},
                                   {200, 777, 2056, 96, "small-M 128x96"},  {288, 3584, 3584, 96, "small-M 128x96"},
                                   {385, 3072, 8192, 96, "small-M 128x96"}, {130, 2000, 4100, 64, "small-M 128x64"},
                                   {500, 1000, 1000, 64, "small-M 128x64"}, {70, 2056, 520, 96, "small-M 128x96"},
                                   {512, 1024, 4096, 0, "small-M 128x64"},  {500, 1000, 4000, 0, "small-M 128x64"},
                                   {300, 1000, 4000, 0, "small-M 64x64"},   {512, 1024, 2048, 0, "small-M 64x64"}};
  for (const Case& c : cases) {
    detail::Tuning t = saved;
    if (c.tok != 0) t.kernel = "small_m", t.tokens = c.tok;
    const auto [r, trace] = traced_check("best", c.M, c.N, c.K, 19, t);
    EXPECT_EQ(r.status, harness::Status::pass) << c.M << "x" << c.N << "x" << c.K << ": " << r.reason;
    EXPECT_TRUE(r.deterministic) << c.M << "x" << c.N << "x" << c.K;
    if (c.tok != 0 || dev.sms == 132) EXPECT_NE(trace.find(c.tile), std::string::npos) << c.M << "x" << c.N << "x" << c.K << ": " << trace;
  }
}

// A kernel of best's compiled as a plain copy only, forced (LADDER_TUNE kernel=) on an M×256×256 GEMM with a bias:
// refused with its message (before anything launches: the launch contract's --forced run checks that part).
void expect_plain_only(const char* kernel, int64_t M) {
  const detail::Tuning saved = detail::tuning();
  detail::Tuning t = saved;
  t.kernel = kernel;
  detail::set_tuning(t);
  harness::DeviceBuffer<__half> A(M * 256), B(256 * 256), D(M * 256), bias(256);
  ladder_gemm_desc d;
  ladder_gemm_desc_init(&d);
  d.M = M, d.N = 256, d.K = 256, d.A = A.get(), d.B = B.get(), d.D = D.get(), d.bias = bias.get();
  try {
    gemm(d, nullptr);
    ADD_FAILURE() << "a forced " << kernel << " with a bias launched";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), LADDER_ERROR_INVALID_ARGUMENT) << e.what();
    EXPECT_NE(std::string(e.what()).find("plain GEMM"), std::string::npos) << e.what();
  }
  detail::set_tuning(saved);
}

// best's 1-CTA 128×256 cooperative tile with stream-K (coop1), forced: one row of A with an idle consumer, ragged
// edges, fewer tiles than SMs (every tile cut into pieces, up to StreamKScheduler::kMaxPieces) and more (whole tiles
// after a split wave), each checked (poisoned D, cuBLAS and CPU references, a bit-identical rerun); the trace shows
// the 1-CTA tile and, where K is long enough to pay for the fix-up, the split. Unforced, best takes it for a plain GEMM
// at 65-128 tokens with a wave of its tiles and at 3 or 5 blocks of 128 rows with 9/10 of one or K > 8192 (on the
// H200's 132 SMs).
TEST(StreamK, OneCtaTileMatchesReferences) {
  LADDER_REQUIRE_HOPPER_GPU("");
  const detail::Tuning saved = detail::tuning();
  struct Case {
    int64_t M, N, K;
    bool forced, split;  // forced: LADDER_TUNE kernel=coop1; split: a stream-K split is expected (132 SMs)
  };
  // With a split: K long enough that the idle tail outweighs the fix-up (StreamKScheduler::make); 2048×4608×8192:
  // 156 split tiles, then a wave of 132 whole ones.
  const std::vector<Case> cases = {{50, 1000, 8192, true, true},   {200, 1000, 6000, true, true},
                                   {640, 2056, 8192, true, true},  {1000, 2000, 8192, true, true},
                                   {2048, 4608, 8192, true, true}, {2000, 4096, 520, true, false},
                                   {100, 34000, 1024, false, false}, {600, 6144, 1032, false, false}};
  for (const Case& c : cases) {
    detail::Tuning t = saved;
    if (c.forced) t.kernel = "coop1";
    const auto [r, trace] = traced_check("best", c.M, c.N, c.K, 17, t);
    EXPECT_EQ(r.status, harness::Status::pass) << c.M << "x" << c.N << "x" << c.K << ": " << r.reason;
    EXPECT_TRUE(r.deterministic) << c.M << "x" << c.N << "x" << c.K;
    if (c.forced || dev.sms == 132) EXPECT_NE(trace.find("cooperative 128x256 cluster 1"), std::string::npos) << trace;
    if (c.split && dev.sms == 132) EXPECT_GT(split_tiles(trace), 0) << "no tile was split: " << trace;
  }
  // Only its plain copy is compiled: forced with a fused epilogue it is refused before anything launches.
  expect_plain_only("coop1", 640);
}

// best's 6-stage ping-pong (kernel=pingpong_deep): its two consumers take one writeback tile in turn. One tile a CTA
// (512×4096×2048), several (2048×2048×1024: ~4 a CTA, the Dtile handed over each time), short K (K = 64: each
// writeback follows the other's at once, the hand-over's tightest case), an odd tile count and ragged edges (N a
// multiple of 8: D is stored by TMA; K % 8 != 0 through best's padding).
// The 64×64 copy (kernel=pingpong_deep64, 13 stages) the same way.
TEST(Pingpong, SharedWritebackTileMatchesReferences) {
  LADDER_REQUIRE_HOPPER_GPU("");
  const detail::Tuning saved = detail::tuning();
  detail::Tuning t = saved;
  const std::vector<std::array<int64_t, 3>> shapes = {
      {512, 4096, 2048}, {2048, 2048, 1024}, {2048, 4096, 64}, {1000, 1000, 520}, {257, 136, 72}, {4095, 4096, 4099}};
  for (const auto& [kernel, launch] : {std::pair{"pingpong_deep", "stages 6 tile 128x128"},
                                       std::pair{"pingpong_deep64", "stages 13 tile 64x64"}}) {
    t.kernel = kernel;
    for (const auto& sh : shapes) {
      const auto [r, trace] = traced_check("best", sh[0], sh[1], sh[2], 29, t);
      EXPECT_EQ(r.status, harness::Status::pass) << kernel << " " << sh[0] << "x" << sh[1] << "x" << sh[2] << ": " << r.reason;
      EXPECT_TRUE(r.deterministic) << kernel << " " << sh[0] << "x" << sh[1] << "x" << sh[2];
      EXPECT_NE(trace.find(launch), std::string::npos) << trace;
    }
  }
  detail::set_tuning(saved);
  // Only their plain copies are compiled: with a bias they are refused before anything launches.
  expect_plain_only("pingpong_deep", 256);
  expect_plain_only("pingpong_deep64", 256);
}

// Regression: h09 and h10 once shared one kernel instantiation across translation units, so whichever ran
// second launched a copy whose SMEM limit had not been raised. Run the cluster steps in reverse order.
TEST(Regression, ClusterStepsRunInAnyOrder) {
  LADDER_REQUIRE_HOPPER_GPU("");
  for (const char* step : {"best", "h10", "h09", "h08"}) {
    const harness::CheckResult r = harness::check_step(step, 1024, 1024, 1024, 5);
    EXPECT_EQ(r.status, harness::Status::pass) << step << ": " << r.reason;
  }
}

// Stream-K (h10's cooperative kernel, also reached through best): shapes whose waves h10 splits on an H200
// (66 clusters). 8192³: 1024 tiles of 256×256, the last 34 split; 1536²×16384 and 1504×1544×16000: fewer tiles
// than clusters, all split. h11 alone, one row of cluster tiles: 256×4096×14336 and
// 256×1024×8192, 16 and 4 tiles cut into 5 and 8 pieces (StreamKScheduler::kMaxPieces), and 200×1000×6000
// (ragged edges, 4 tiles). The trace proves a split was taken; the check proves the partials were summed once each, in a fixed order
// (bit-identical reruns). Through best, 1536²×16384 and 1504×1544×16000 take the 2-CTA fitted 128×144 tile instead
// (one full wave of 66 clusters, since bbe6fed): the trace shows that pick, the check its sums.
TEST(StreamK, SplitTilesMatchReferences) {
  LADDER_REQUIRE_HOPPER_GPU("");
  using Shapes = std::vector<std::array<int64_t, 3>>;
  const Shapes both{{8192, 8192, 8192}, {1536, 1536, 16384}, {1504, 1544, 16000}};
  const Shapes few{{256, 4096, 14336}, {256, 1024, 8192}, {200, 1000, 6000}};
  for (const char* step : {"h11", "best"}) {
    Shapes shapes = both;
    if (std::string(step) == "h11") shapes.insert(shapes.end(), few.begin(), few.end());
    for (const auto& [M, N, K] : shapes) {
      const auto [r, trace] = traced_check(step, M, N, K, 11, detail::tuning());
      EXPECT_EQ(r.status, harness::Status::pass) << step << " " << M << "x" << N << "x" << K << ": " << r.reason;
      EXPECT_TRUE(r.deterministic);
      if (dev.sms == 132) {
        if (std::string(step) == "best" && M < 8192) {  // best's fitted tile: one full wave, no split
          EXPECT_NE(trace.find("cooperative 128x144 cluster 2"), std::string::npos) << trace;
          continue;
        }
        EXPECT_GT(split_tiles(trace), 0) << "no tile was split: " << trace;
      }
    }
  }
}

// Stream-K's owners spin on flags other CTAs of their grid set, which is safe while the whole grid is resident. Two
// stream-K GEMMs on two streams at once (each grid sized to fill the GPU alone) with a third stream's small-M GEMMs
// taking SMs between them must still finish, with the bits of a serial run: a grid that got only part of the GPU
// must not wait on CTAs that cannot be placed while the other grid spins. A hang here cannot be recovered in the
// process (the GPU keeps spinning), so after the deadline the test reports it and aborts the binary.
TEST(StreamK, ConcurrentStreamsFinish) {
  LADDER_REQUIRE_HOPPER_GPU("h11 ");
  constexpr int64_t M = 256, N = 4096, K = 14336;  // 16 tiles of 256×256 cut into pieces (SplitTilesMatchReferences)
  constexpr int64_t m = 16, n = 4096, k = 4096;     // small-M, on the third stream
  if (dev.sms == 132) {  // the grids under test spin on stream-K's flags
    ASSERT_GT(split_tiles(traced_check("h11", M, N, K, 30, detail::tuning()).trace), 0) << "h11 did not split " << M
                                                                                       << "x" << N << "x" << K;
  }
  harness::DeviceBuffer<__half> A(M * K), B(N * K), Dref(M * N), a(m * k), b(n * k), d(m * n);
  harness::fill_random(A.get(), A.size(), 31, nullptr);
  harness::fill_random(B.get(), B.size(), 32, nullptr);
  harness::fill_random(a.get(), a.size(), 33, nullptr);
  harness::fill_random(b.get(), b.size(), 34, nullptr);
  gemm(A.get(), B.get(), Dref.get(), M, N, K, "h11", nullptr);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<__half> ref(M * N);
  cudaMemcpy(ref.data(), Dref.get(), ref.size() * 2, cudaMemcpyDeviceToHost);

  constexpr int kStreams = 2, kRuns = 40;
  std::vector<harness::DeviceBuffer<__half>> D;
  std::array<cudaStream_t, kStreams + 1> st{};
  for (int i = 0; i < kStreams; ++i) D.emplace_back(M * N);
  for (cudaStream_t& x : st) ASSERT_EQ(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking), cudaSuccess);
  for (int run = 0; run < kRuns; ++run) {
    for (int i = 0; i < kStreams; ++i) {
      gemm(a.get(), b.get(), d.get(), m, n, k, "best", st[kStreams]);  // SMs taken between the two grids
      gemm(A.get(), B.get(), D[i].get(), M, N, K, "h11", st[i]);
    }
  }
  std::array<cudaEvent_t, kStreams + 1> done{};
  for (int i = 0; i <= kStreams; ++i) {
    ASSERT_EQ(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming), cudaSuccess);
    ASSERT_EQ(cudaEventRecord(done[i], st[i]), cudaSuccess);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (int i = 0; i <= kStreams; ++i)
    while (cudaEventQuery(done[i]) == cudaErrorNotReady) {
      if (std::chrono::steady_clock::now() > deadline) {
        std::fprintf(stderr, "StreamK.ConcurrentStreamsFinish: stream %d not done after 60 s: a hang; aborting\n", i);
        std::abort();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  for (int i = 0; i < kStreams; ++i) {
    std::vector<__half> got(M * N);
    cudaMemcpy(got.data(), D[i].get(), got.size() * 2, cudaMemcpyDeviceToHost);
    EXPECT_EQ(std::memcmp(got.data(), ref.data(), got.size() * 2), 0) << "stream " << i;
  }
  for (int i = 0; i <= kStreams; ++i) cudaEventDestroy(done[i]), cudaStreamDestroy(st[i]);
}

// best launches every kernel as a programmatic dependent launch: it may start while the previous kernel on the
// stream runs and must wait for it before touching memory. A chain of GEMMs where each reads the D the previous
// one wrote (read after write) and writes over the A the previous one read (write after read), queued back to back
// on one stream and replayed from a CUDA graph, gives the bits of the same chain with PDL off and a sync after
// every GEMM, for each kernel family best runs (forced; the trace shows each launched with PDL).
TEST(Pdl, BackToBackChainsMatchSerialRuns) {
  LADDER_REQUIRE_HOPPER_GPU("best ");
  const detail::Tuning saved = detail::tuning();
  struct ChainCase {
    const char* kernel;
    int64_t M, K;  // N = K: each D is the next GEMM's A
    int links = 6;
    bool plain = false;  // alpha = 1 (coop1 takes plain GEMMs only): two links, so the values stay within fp16
    int relax = 1;       // small-M: LADDER_TUNE relax (1, the default: the last cluster barrier without its release fence)
    int post = 4;        // small-M: LADDER_TUNE post (4, the default: pushed with token tiles <= 16; 1: pulled; 3: pushed)
  };
  // small-M: its lane-0 producer (8- and 16-token tiles) and its whole-warp producer (the 64-token tiles at 64 and
  // 256 tokens), each with the weights' first stages loaded before the wait (LADDER_FLAG_B_STATIC), under the
  // defaults: the last cluster barrier relaxed, where a CTA leaving early would let the next kernel's loads overwrite
  // SMEM that a peer still reads, and the partials pushed at the 8- and 16-token tiles, whose copies must land before
  // their sources go (the trace shows the push ran wherever the plan splits); the 32-token tile, pulled with the
  // barrier relaxed; then the fenced barrier and the pull (relax=0, post=1) and the push at a 64-token tile (post=3).
  const std::vector<ChainCase> chains = {{"small_m", 16, 2048},    {"small_m", 1, 4096},         {"small_m", 64, 2048},
                                         {"small_m", 256, 1024},   {"pingpong", 512, 2048},
                                         {"pingpong_narrow", 512, 1024}, {"pingpong_deep", 1024, 2048, 2, true},
                                         {"coop", 1536, 4096},  {"coop_dp", 1024, 2048},
                                         {"coop192", 1024, 1536},  {"coop_regs", 1536, 4096},    {"coop_fit", 256, 1536},
                                         {"coop_fit", 128, 1536},  {"coop1", 640, 4096, 2, true}, {"coop1", 100, 2048, 2, true},
                                         {"small_m", 32, 2048},  // the 32-token tile: lane-0 producer, pull, relaxed
                                         {"small_m", 16, 2048, 6, false, 0, 1}, {"small_m", 64, 2048, 6, false, 0, 1},
                                         {"small_m", 1, 4096, 6, false, 0, 1}, {"small_m", 200, 1024, 6, false, 0, 3}};
  for (const ChainCase& c : chains) {
    const int64_t M = c.M, K = c.K, N = K;
    harness::DeviceBuffer<__half> X0(M * K), X1(M * K), W(N * K);
    harness::fill_random(W.get(), W.size(), 51, nullptr);
    __half* X[2] = {X0.get(), X1.get()};
    const int kLinks = c.links;
    // X[(i+1)%2] = alpha · X[i%2] · Wᵀ, alpha keeping the values' spread (uniform [-1, 1] operands), or 1.
    auto chain = [&](cudaStream_t stream, bool sync_each) {
      for (int i = 0; i < kLinks; ++i) {
        ladder_gemm_desc d;
        ladder_gemm_desc_init(&d);
        d.M = M, d.N = N, d.K = K, d.A = X[i % 2], d.B = W.get(), d.D = X[(i + 1) % 2];
        d.alpha = c.plain ? 1.0f : static_cast<float>(std::sqrt(3.0 / static_cast<double>(K)));
        d.flags = LADDER_FLAG_B_STATIC;  // W is never written: small-M loads its first stages before the wait
        gemm(d, stream);
        if (sync_each) ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      }
    };
    auto result = [&](cudaStream_t stream, bool sync_each) {
      harness::fill_random(X0.get(), X0.size(), 52, stream);
      harness::fill_poison(X1.get(), X1.size(), stream);
      chain(stream, sync_each);
      EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      std::vector<__half> out(M * K);
      cudaMemcpy(out.data(), X[kLinks % 2], out.size() * 2, cudaMemcpyDeviceToHost);
      return out;
    };
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    detail::Tuning serial = saved;
    serial.kernel = c.kernel;
    serial.pdl = 0;
    serial.relax = c.relax;
    serial.post = c.post;
    detail::set_tuning(serial);
    const std::vector<__half> want = result(stream, true);
    ASSERT_TRUE(std::none_of(want.begin(), want.end(), [](__half h) { return __hisnan(h) || __hisinf(h); }))
        << c.kernel << ": the serial chain overflowed or was never written";
    detail::Tuning pdl = serial;
    pdl.pdl = 1;
    pdl.trace = true;
    detail::set_tuning(pdl);
    ::testing::internal::CaptureStderr();
    for (int run = 0; run < 3; ++run)
      EXPECT_EQ(std::memcmp(result(stream, false).data(), want.data(), want.size() * 2), 0)
          << c.kernel << " " << M << "x" << N << "x" << K << " back to back, run " << run;
    const std::string trace = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(trace.find(" pdl"), std::string::npos) << c.kernel << ": not launched with PDL: " << trace;
    // The default push (post=4 at <= 16 tokens, whose slots always fit the ring) wherever the plan splits K: not a
    // silent pull.
    if (std::string(c.kernel) == "small_m" && c.post == 4 && M <= 16)
      EXPECT_TRUE(trace.find(" push") != std::string::npos || trace.find(" split 1 ") != std::string::npos)
          << M << "x" << N << "x" << K << " post=" << c.post << ": split, yet pulled: " << trace;
    pdl.trace = false;
    detail::set_tuning(pdl);
    // The same chain captured into a graph (PDL's launches become programmatic edges), replayed twice.
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), cudaSuccess);
    chain(stream, false);
    ASSERT_EQ(cudaStreamEndCapture(stream, &graph), cudaSuccess) << c.kernel;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess) << c.kernel;
    for (int run = 0; run < 2; ++run) {
      harness::fill_random(X0.get(), X0.size(), 52, stream);
      harness::fill_poison(X1.get(), X1.size(), stream);
      ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
      std::vector<__half> got(M * K);
      cudaMemcpy(got.data(), X[kLinks % 2], got.size() * 2, cudaMemcpyDeviceToHost);
      EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * 2), 0) << c.kernel << " graph replay " << run;
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
  }
  detail::set_tuning(saved);
}

// The seed's phase bug on real hardware: h04 built without `phase ^= 1` must fail verification.
TEST(FaultInjection, ForgottenPhaseToggleIsCaught) {
  LADDER_REQUIRE_HOPPER_GPU("h04 ");
  const int64_t M = 512, N = 512, K = 4096;  // 64 K-tiles: plenty of early returns
  const harness::CheckResult good = harness::check_step("h04", M, N, K, 3);
  EXPECT_EQ(good.status, harness::Status::pass) << good.reason;
  const harness::CheckResult bad = harness::check_step("h04", M, N, K, 3, "forget-phase-toggle");
  EXPECT_EQ(bad.status, harness::Status::fail) << "the verifier missed the injected phase bug";
  EXPECT_FALSE(bad.vs_cublas.pass);
  EXPECT_THROW(harness::check_step("h04", M, N, K, 3, "no-such-fault"), Error);
}

// One element a quarter off at 4096³: far inside the normwise bound (which would let ~100 through), over the
// elementwise one.
TEST(FaultInjection, OneWrongElementIsCaughtElementwise) {
  LADDER_REQUIRE_HOPPER_GPU("h04 ");
  const int64_t M = 4096, N = 4096, K = 4096;
  const harness::CheckResult bad = harness::check_step("h04", M, N, K, 3, "corrupt-one-element");
  EXPECT_EQ(bad.status, harness::Status::fail) << "the verifier missed one wrong element";
  EXPECT_LE(bad.vs_cublas.rel_err, bad.vs_cublas.bound) << "normwise alone, it would pass";
  EXPECT_EQ(bad.vs_cublas.nonfinite, 0);
  EXPECT_EQ(bad.vs_cublas.over_bound, 1) << bad.vs_cublas.detail();
  EXPECT_EQ(bad.vs_cublas.worst_row, M / 2);
  EXPECT_EQ(bad.vs_cublas.worst_col, N / 2);
  EXPECT_NE(bad.reason.find("1 over"), std::string::npos) << bad.reason;
}

// One 8×8 block of D left unwritten: the poison (NaN) is still there, and only there.
TEST(FaultInjection, SkippedFragmentIsCaught) {
  LADDER_REQUIRE_HOPPER_GPU("h04 ");
  const harness::CheckResult bad = harness::check_step("h04", 512, 384, 512, 3, "skip-fragment");
  EXPECT_EQ(bad.status, harness::Status::fail) << "the verifier missed an unwritten fragment";
  EXPECT_EQ(bad.vs_cublas.nonfinite, 64) << bad.vs_cublas.detail();
  EXPECT_EQ(bad.vs_cublas.over_bound, 0);
  EXPECT_NE(bad.reason.find("non-finite 64"), std::string::npos) << bad.reason;
}

}  // namespace
