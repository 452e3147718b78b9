// The Blackwell ladder's host-side rules, checked on the CPU (the b-steps are compiled for sm_100a and
// never run here): TMEM arithmetic and budgets, and every b-step's shape rules and description.
#include <gtest/gtest.h>

#include <string>

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
