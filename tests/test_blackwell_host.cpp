// The Blackwell ladder's host-side rules, checked on the CPU (the b-steps are compiled for sm_100a and
// never run here): TMEM arithmetic and budgets, every b-step's shape rules and description, and the
// accumulator handshake of b07/b10 on the host mbarrier model.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "device/mbarrier_model.hpp"
#include "device/pipeline.hpp"
#include "device/sm100/tmem.hpp"
#include "ladder/ladder.hpp"
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

TEST(BlackwellSteps, DescribedAsNotRun) {
  for (const detail::Step* s : detail::registry()) {
    if (s->arch != detail::Arch::blackwell) continue;
    EXPECT_NE(std::string(s->change).find("not run"), std::string::npos) << s->id;
  }
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

// The accumulator handshake of b07 (one TMEM accumulator) and b10 (two), on the host mbarrier model:
// the MMA warp waits tmem_empty[stage] with PipelineState::producer_phase(), commits to tmem_full[stage];
// the epilogue waits tmem_full[stage] with .phase and arrives on tmem_empty[stage].
namespace {
template <int STAGES>
struct AccumulatorRing {
  std::vector<model::Mbarrier> full, empty;
  PipelineState<STAGES> mma, epi;
  AccumulatorRing() : full(STAGES, model::Mbarrier(1)), empty(STAGES, model::Mbarrier(1)) {}
  bool mma_may_start() const { return empty[mma.stage].try_wait_parity(mma.producer_phase()); }
  void mma_commit() {
    full[mma.stage].arrive();
    mma.advance();
  }
  bool epilogue_may_start() const { return full[epi.stage].try_wait_parity(epi.phase); }
  void epilogue_release() {
    empty[epi.stage].arrive();
    epi.advance();
  }
};
}  // namespace

TEST(AccumulatorRing, OneStageAlternatesMmaAndEpilogue) {
  AccumulatorRing<1> r;
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
  EXPECT_TRUE(tmem_empty.try_wait_parity(PipelineState<1>{}.producer_phase()));
}

TEST(AccumulatorRing, TwoStagesLetTheMmaRunOneTileAhead) {
  AccumulatorRing<2> r;
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
