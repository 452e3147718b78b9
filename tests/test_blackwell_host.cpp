// The Blackwell ladder's host-side rules, checked on the CPU (the b-steps are compiled for sm_100a and
// never run here): TMEM arithmetic and budgets, every b-step's shape rules, that the library refuses to run
// them off Blackwell, and the accumulator hand-over of b07-b10 on the host mbarrier model.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device/mbarrier_model.hpp"
#include "device/pipeline.hpp"
#include "device/sm100/tmem.hpp"
#include "ladder/ladder.h"
#include "ladder/ladder.hpp"
#include "runtime/runtime.hpp"
#include "step.hpp"

using namespace ladder;

TEST(Tmem, AllocationSizes) {
  for (uint32_t n : {32u, 64u, 128u, 256u, 512u}) EXPECT_TRUE(sm100::valid_tmem_columns(n)) << n;
  for (uint32_t n : {0u, 16u, 48u, 96u, 1024u}) EXPECT_FALSE(sm100::valid_tmem_columns(n)) << n;
}

TEST(Tmem, AddressAndLaneQuarters) {
  EXPECT_EQ(sm100::tmem_addr(0x40, 0, 0), 0x40u);
  EXPECT_EQ(sm100::tmem_addr(0x40, 32, 8), (32u << 16) + 0x48u);  // lane in bits 16+, column in bits 0-15
  // warp w reads lanes 32·(w % 4)…: warps 4–7 of a second warpgroup see the same quarters as 0–3.
  EXPECT_EQ(sm100::warp_lane_base(0), 0u);
  EXPECT_EQ(sm100::warp_lane_base(3), 96u);
  EXPECT_EQ(sm100::warp_lane_base(4), 0u);
  EXPECT_EQ(sm100::warp_lane_base(6), 64u);
}

// The b-steps are compiled for sm_100a and not run here. They say so, and the library refuses to launch them
// on anything but a Blackwell GPU, before it touches a pointer: NO_DEVICE without a GPU, UNSUPPORTED_DEVICE on
// the H200.
TEST(BlackwellSteps, NotRunOffBlackwell) {
  const detail::DeviceInfo dev = detail::current_device();
  if (dev.present && dev.cc == detail::required_cc(detail::Arch::blackwell))
    GTEST_SKIP() << "a Blackwell GPU is present: the b-steps run here (test_gpu_steps)";
  const void* fake = reinterpret_cast<const void*>(0x10000);  // 16-byte aligned, never dereferenced
  void* fake_out = reinterpret_cast<void*>(0x20000);
  int checked = 0;
  for (const StepInfo& info : steps()) {
    if (info.arch != "blackwell") continue;
    SCOPED_TRACE(info.id);
    ++checked;
    EXPECT_EQ(info.target, "sm_100a");
    EXPECT_NE(info.change.find("not run"), std::string::npos) << "the description must say it is not run";
    EXPECT_EQ(resolve(info.id, 128, 128, 64), info.id);  // every b-step accepts 128×128×64
    const int rc = ladder_gemm(fake, fake, fake_out, 128, 128, 64, info.id.c_str(), nullptr);
    EXPECT_EQ(rc, dev.present ? LADDER_ERROR_UNSUPPORTED_DEVICE : LADDER_ERROR_NO_DEVICE) << ladder_last_error();
    EXPECT_NE(std::string(ladder_last_error()).find(dev.present ? "needs a Blackwell (sm_100) GPU" : "GPU"),
              std::string::npos)
        << ladder_last_error();
    EXPECT_FALSE(why_not(info.id, 128, 128, 64).empty());
  }
  EXPECT_GE(checked, 10);
}

TEST(BlackwellSteps, ShapeRulesMatchTheHopperTwins) {
  EXPECT_EQ(why_not("b01", 128, 128, 64).find("must"), std::string::npos);
  EXPECT_NE(why_not("b01", 256, 128, 64).find("M must be exactly 128"), std::string::npos);
  EXPECT_NE(why_not("b01", 128, 128, 128).find("K must be exactly 64"), std::string::npos);
  EXPECT_NE(why_not("b02", 128, 128, 96).find("K must be a multiple of 64"), std::string::npos);
  EXPECT_NE(why_not("b02", 128, 256, 128).find("N must be exactly 128"), std::string::npos);
  EXPECT_NE(why_not("b03", 200, 128, 64).find("M must be a multiple of 128"), std::string::npos);
  EXPECT_NE(why_not("b03", 128, 130, 64).find("N must be a multiple of 128"), std::string::npos);
  EXPECT_NE(why_not("b03", 256, 256, 64, {.lda = 128}).find("dense rows"), std::string::npos);
}

// The accumulator hand-over of b07-b10 on the host mbarrier model: the kernels' own AccumulatorRing
// (device/pipeline.hpp) decides which barrier phase each side waits for; this harness only does what the
// kernels do around it: the MMA issuer waits tmem_empty[stage], commits to tmem_full[stage]; the epilogue waits
// tmem_full[stage] and arrives on tmem_empty[stage].
namespace {
template <int STAGES, class Ring = AccumulatorRing<STAGES>>
struct Handover {
  std::vector<model::Mbarrier> full, empty;
  Ring mma, epi;
  int committed = 0, drained = 0;  // tiles
  Handover() : full(STAGES, model::Mbarrier(1)), empty(STAGES, model::Mbarrier(1)) {}
  bool mma_may_start() const { return empty[mma.stage()].try_wait_parity(mma.mma_parity()); }
  void mma_commit() {
    full[mma.stage()].arrive();
    mma.next_tile();
    ++committed;
  }
  bool epilogue_may_start() const { return full[epi.stage()].try_wait_parity(epi.epilogue_parity()); }
  void epilogue_release() {
    empty[epi.stage()].arrive();
    epi.next_tile();
    ++drained;
  }
};

// Every interleaving of the two sides over `tiles` tiles: no side waits forever, the epilogue never reads a tile
// before it is committed, and the MMA issuer never overwrites an accumulator that is not yet drained. Returns
// the first violation, or "".
template <int STAGES, class Ring = AccumulatorRing<STAGES>>
std::string explore(Handover<STAGES, Ring> h, int tiles) {
  if (h.drained == tiles) return {};
  const bool mma = h.committed < tiles && h.mma_may_start(), epi = h.epilogue_may_start();
  if (mma && h.committed - h.drained >= STAGES) return "the MMA issuer overwrote an accumulator not yet drained";
  if (epi && h.drained >= h.committed) return "the epilogue read an accumulator before its tile was committed";
  if (!mma && !epi) return "deadlock after " + std::to_string(h.committed) + " commits, " + std::to_string(h.drained) +
                           " drains";
  std::string why;
  if (mma) {
    auto next = h;
    next.mma_commit();
    why = explore(next, tiles);
  }
  if (why.empty() && epi) {
    auto next = h;
    next.epilogue_release();
    why = explore(next, tiles);
  }
  return why;
}

// A wrong ring, to show that the exploration can fail: the epilogue waits with the MMA side's parity.
template <int STAGES>
struct EpilogueWithProducerParity : AccumulatorRing<STAGES> {
  constexpr uint32_t epilogue_parity() const { return this->cursor.producer_phase(); }
};
}  // namespace

TEST(AccumulatorRing, EveryInterleavingIsSafeAndLive) {
  EXPECT_EQ(explore(Handover<1>{}, 6), "");  // b07, b08, b09: one accumulator
  EXPECT_EQ(explore(Handover<2>{}, 7), "");  // b10: two
}

TEST(AccumulatorRing, TheExplorationCatchesAWrongParity) {
  EXPECT_NE(explore(Handover<1, EpilogueWithProducerParity<1>>{}, 4), "");
  EXPECT_NE(explore(Handover<2, EpilogueWithProducerParity<2>>{}, 4), "");
}

TEST(AccumulatorRing, OneStageAlternatesMmaAndEpilogue) {
  Handover<1> r;
  for (int tile = 0; tile < 5; ++tile) {
    SCOPED_TRACE(tile);
    ASSERT_TRUE(r.mma_may_start());  // tile 0: the fresh barrier's phase −1 counts as complete
    EXPECT_FALSE(r.epilogue_may_start());
    r.mma_commit();
    EXPECT_FALSE(r.mma_may_start());  // one accumulator: the next tile's MMAs wait for the writeback
    ASSERT_TRUE(r.epilogue_may_start());
    r.epilogue_release();
  }
}

TEST(AccumulatorRing, EmptySideStartingAtParityZeroDeadlocks) {
  model::Mbarrier tmem_empty(1), tmem_full(1);
  EXPECT_FALSE(tmem_empty.try_wait_parity(0));  // the MMA warp would wait for a release that never comes…
  EXPECT_FALSE(tmem_full.try_wait_parity(0));   // …because the epilogue waits for the MMA first
  EXPECT_TRUE(tmem_empty.try_wait_parity(AccumulatorRing<1>{}.mma_parity()));
}

TEST(AccumulatorRing, TwoStagesLetTheMmaRunOneTileAhead) {
  Handover<2> r;
  ASSERT_TRUE(r.mma_may_start());
  r.mma_commit();  // tile 0 → stage 0
  ASSERT_TRUE(r.mma_may_start());
  r.mma_commit();  // tile 1 → stage 1, while tile 0 is written back
  EXPECT_FALSE(r.mma_may_start());  // tile 2 needs stage 0 back
  ASSERT_TRUE(r.epilogue_may_start());
  r.epilogue_release();  // tile 0 written back
  EXPECT_TRUE(r.mma_may_start());
  r.mma_commit();  // tile 2 → stage 0 (second lap: phases flipped)
  ASSERT_TRUE(r.epilogue_may_start());
  r.epilogue_release();  // tile 1
  ASSERT_TRUE(r.epilogue_may_start());
  r.epilogue_release();  // tile 2
  EXPECT_FALSE(r.epilogue_may_start());
}
