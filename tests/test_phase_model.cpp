// The host mbarrier model and the phase-flip table built from it (`ladder phase-table`).
#include <gtest/gtest.h>

#include <sstream>

#include "device/mbarrier_model.hpp"
#include "phase_table.hpp"

using ladder::model::Mbarrier;
using ladder::model::simulate_k_loop;

TEST(MbarrierModel, FreshBarrierHasCompletedPhaseMinusOne) {
  Mbarrier bar(1);
  EXPECT_EQ(bar.phase_bit(), 0u);
  EXPECT_FALSE(bar.try_wait_parity(0));  // phase 0 is still open
  EXPECT_TRUE(bar.try_wait_parity(1));   // "phase -1": why an empty-side producer starts at parity 1
}

TEST(MbarrierModel, PhaseCompletesWhenArrivalsReachZero) {
  Mbarrier bar(2);
  bar.arrive();
  EXPECT_FALSE(bar.try_wait_parity(0));
  bar.arrive();
  EXPECT_TRUE(bar.try_wait_parity(0));
  EXPECT_EQ(bar.phase_bit(), 1u);
  EXPECT_EQ(bar.pending_arrivals(), 2u);  // re-armed for the next phase
  EXPECT_FALSE(bar.try_wait_parity(1));
}

TEST(MbarrierModel, PhaseWaitsForTxCountToo) {
  Mbarrier bar(1);
  bar.arrive_expect_tx(32768);  // the elected thread arms the barrier before the TMA bytes land
  EXPECT_FALSE(bar.try_wait_parity(0));
  bar.complete_tx(16384);  // A landed
  EXPECT_FALSE(bar.try_wait_parity(0));
  bar.complete_tx(16384);  // B landed
  EXPECT_TRUE(bar.try_wait_parity(0));
  EXPECT_EQ(bar.tx_count(), 0);
}

TEST(MbarrierModel, BytesBeforeTheArrivalDoNotCompleteThePhase) {
  Mbarrier bar(1);
  bar.expect_tx(100);
  bar.complete_tx(100);  // tx back at zero, but the arrival is still pending
  EXPECT_FALSE(bar.try_wait_parity(0));
  bar.arrive();
  EXPECT_TRUE(bar.try_wait_parity(0));
}

TEST(PhaseTable, WithTheToggleNoWaitReturnsEarly) {
  const auto t = simulate_k_loop(8, /*forget_toggle=*/false);
  ASSERT_EQ(t.rows.size(), 8u);
  for (const auto& r : t.rows) {
    SCOPED_TRACE(r.iteration);
    EXPECT_FALSE(r.early);
    EXPECT_TRUE(r.blocked);
    EXPECT_EQ(r.completed_during_wait, r.iteration);
    EXPECT_EQ(r.mmas_done_at_return, r.iteration + 1);
    EXPECT_EQ(r.phase_register, static_cast<uint32_t>(r.iteration & 1));  // the register tracks the bit
    EXPECT_EQ(r.bit_at_wait, r.phase_register);
    EXPECT_EQ(r.bit_after_mma, r.phase_register ^ 1u);
    EXPECT_EQ(r.accumulate, r.iteration != 0);
  }
  EXPECT_EQ(t.in_flight_at_epilogue, 0);
}

TEST(PhaseTable, ForgettingTheToggleReturnsEarlyFromIterationOneOn) {
  const auto t = simulate_k_loop(8, /*forget_toggle=*/true);
  ASSERT_EQ(t.rows.size(), 8u);
  EXPECT_FALSE(t.rows[0].early);  // iteration 0 is right by luck: phase 0 is the open phase
  EXPECT_TRUE(t.rows[0].blocked);
  for (size_t i = 1; i < t.rows.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(t.rows[i].early);
    EXPECT_FALSE(t.rows[i].blocked);
    EXPECT_EQ(t.rows[i].phase_register, 0u);  // frozen
    EXPECT_EQ(t.rows[i].bit_at_wait, 1u);     // phase 0 completed long ago: the wait passes at once
    EXPECT_EQ(t.rows[i].mmas_done_at_return, 1);
  }
  EXPECT_EQ(t.in_flight_at_epilogue, 7);
}

TEST(PhaseTable, PrintedTableFlagsEarlyReturnsAndPointsToTheGpuDemo) {
  std::ostringstream good, bad;
  ladder::cli::print_phase_table(good, simulate_k_loop(4, false), false);
  ladder::cli::print_phase_table(bad, simulate_k_loop(4, true), true);
  EXPECT_EQ(good.str().find("EARLY"), std::string::npos);
  EXPECT_EQ(good.str().find("--inject"), std::string::npos);
  size_t flagged = 0;
  for (size_t at = bad.str().find("RETURNED EARLY"); at != std::string::npos;
       at = bad.str().find("RETURNED EARLY", at + 1))
    ++flagged;
  EXPECT_EQ(flagged, 3u);  // iterations 1, 2, 3
  EXPECT_NE(bad.str().find("ladder check --steps h04 --inject forget-phase-toggle"), std::string::npos);
}
