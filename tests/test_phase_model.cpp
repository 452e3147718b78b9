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

// The 6-stage ping-pong's shared writeback tile (pingpong.cuh, DTILES = 1): a CTA's tiles j = 0, 1, 2, … alternate
// between its two consumers (j = 2n + c); tile j's leader waits on `dtile_bar` with parity (j − 1) & 1 before writing
// the tile, and arrives once its TMA store has read it. Random interleavings of the two consumers (the other
// consumer's store may finish at any later point) must never let tile j write before tile j − 1's arrival. The
// protocol relies on the waiter having made completion j − 1 itself (its previous tile); a leader that arrives late
// (after its next wait) lets a parity wait pass one phase early, and the same check must catch that.
namespace {
// Over `rounds` random schedules of `tiles` tiles: the early passes, and the schedules that wrote every tile.
struct DtileRuns {
  int early = 0, finished = 0;
};
DtileRuns shared_dtile_runs(int tiles, int rounds, bool arrive_late, uint64_t seed) {
  DtileRuns out;
  int& early = out.early;
  for (int r = 0; r < rounds; ++r) {
    Mbarrier bar(1);
    uint64_t rng = seed + static_cast<uint64_t>(r) * 0x9e3779b97f4a7c15ull;
    auto next = [&rng] { return (rng = rng * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
    int arrivals = 0, mainloops = 0;  // the dtile_bar's arrivals so far; mainloops finished (in tile order: turn_bar)
    struct Consumer {
      int j, step = 0;   // the tile, and 0 mainloop, 1 wait, 2 write and store, 3 store read (arrive)
      int late = -1;     // arrive_late: the tile whose arrival is still owed
    } cons[2] = {{0}, {1}};
    for (int guard = 0; guard < 64 * tiles && (cons[0].j < tiles || cons[1].j < tiles); ++guard) {
      Consumer& k = cons[next() % 2];
      if (k.j >= tiles) continue;
      if (k.step == 0) {
        if (mainloops != k.j) continue;  // the other consumer's mainloop first
        ++mainloops, k.step = 1;
      } else if (k.step == 1) {
        if (k.j > 0 && !bar.try_wait_parity(static_cast<uint32_t>((k.j - 1) & 1))) continue;
        if (k.j > 0 && arrivals < k.j) ++early;  // tile j − 1's store may still be reading the tile
        if (k.late >= 0) bar.arrive(), ++arrivals, k.late = -1;  // the late leader's arrival, after its wait
        k.step = 2;
      } else if (k.step == 2) {
        k.step = 3;  // the tile written, its TMA store issued
      } else {
        if (arrive_late) {
          k.late = k.j;  // arrives only after its next tile's wait (the broken order)
        } else {
          bar.arrive(), ++arrivals;  // cp.async.bulk.wait_group.read, then the arrival
        }
        k.j += 2, k.step = 0;
      }
      if (arrive_late && k.j >= tiles && k.late >= 0) bar.arrive(), ++arrivals, k.late = -1;
    }
    out.finished += cons[0].j >= tiles && cons[1].j >= tiles && arrivals == tiles;
  }
  return out;
}
}  // namespace

TEST(SharedDtile, ParityWaitNeverPassesBeforeThePreviousTilesStore) {
  for (const auto& [tiles, seed] : {std::pair{9, 11ull}, std::pair{2, 12ull}, std::pair{1, 14ull}}) {
    const DtileRuns runs = shared_dtile_runs(tiles, 2000, /*arrive_late=*/false, seed);
    EXPECT_EQ(runs.early, 0) << tiles << " tiles";
    EXPECT_EQ(runs.finished, 2000) << tiles << " tiles: a schedule stalled";  // no deadlock: every tile written
  }
}

TEST(SharedDtile, ALeaderArrivingLateIsCaught) {
  EXPECT_GT(shared_dtile_runs(9, 2000, /*arrive_late=*/true, 13).early, 0);
}
