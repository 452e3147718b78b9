// A host model of mbarrier phases (PTX ISA 9.7.13.15 "mbarrier"), small enough to test on the CPU and to
// print the seed's phase-flip table (`ladder phase-table`).
//
// The rules modelled:
//   - init(count) starts phase 0 with `count` pending arrivals and a tx-count of 0;
//   - a phase completes when its pending arrivals and its tx-count both reach zero; the barrier then moves
//     to the next phase (its phase bit flips) and re-arms `count` arrivals;
//   - try_wait.parity(p) succeeds once the phase with parity p has completed, i.e. while the barrier's
//     current (incomplete) phase has parity != p. A fresh barrier therefore passes try_wait.parity(1) at
//     once: phase "-1" counts as completed (why producers on an "empty" barrier start at parity 1).
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

namespace ladder::model {

class Mbarrier {
 public:
  explicit Mbarrier(uint32_t count) : count_(count), pending_(count) {}

  uint32_t phase_bit() const { return phase_ & 1u; }  // parity of the current, incomplete phase
  uint32_t completed_phases() const { return phase_; }
  uint32_t pending_arrivals() const { return pending_; }
  int64_t tx_count() const { return tx_; }

  // mbarrier.arrive (count 1) and mbarrier.expect_tx / complete_tx (the TMA side).
  void arrive() {
    --pending_;
    maybe_complete();
  }
  void expect_tx(int64_t bytes) { tx_ += bytes; }
  void arrive_expect_tx(int64_t bytes) {
    expect_tx(bytes);
    arrive();
  }
  void complete_tx(int64_t bytes) {
    tx_ -= bytes;
    maybe_complete();
  }

  bool try_wait_parity(uint32_t parity) const { return phase_bit() != (parity & 1u); }

 private:
  void maybe_complete() {
    if (pending_ == 0 && tx_ == 0) {
      ++phase_;
      pending_ = count_;
    }
  }
  uint32_t count_;
  uint32_t pending_;
  int64_t tx_ = 0;
  uint32_t phase_ = 0;
};

// The step-02 K-loop on one reused `mma_bar` (count 1): per iteration one MMA is issued and committed
// (the commit arrives once when that MMA completes), then every thread waits with its `phase` register,
// then toggles it (unless `forget_toggle`).
//
// Timing assumption (the one the seed's widget draws): the waiter is faster than the tensor core. The
// wait is tried right after the commit; an in-flight MMA completes only while someone blocks on the
// barrier, oldest first; MMAs still in flight after the loop complete when the epilogue arrives.
struct PhaseRow {
  int iteration = 0;
  bool accumulate = false;       // the MMA's enable-input-d: i != 0
  uint32_t phase_register = 0;   // what the thread passes to try_wait.parity
  uint32_t bit_at_wait = 0;      // barrier phase bit when the wait is tried (before MMA i completes)
  uint32_t bit_after_mma = 0;    // barrier phase bit right after MMA i's commit arrives
  bool blocked = false;          // the wait had to wait for an MMA to complete
  bool early = false;            // the wait returned while MMA i was still in flight: the bug
  int mmas_done_at_return = 0;   // MMAs complete when the wait returned (correct: iteration + 1)
  int completed_during_wait = -1;  // iteration whose MMA completed while this wait blocked (-1: none)
};

struct PhaseTable {
  std::vector<PhaseRow> rows;
  int in_flight_at_epilogue = 0;  // MMAs still running when the epilogue would read TMEM
};

inline PhaseTable simulate_k_loop(int k_tiles, bool forget_toggle) {
  PhaseTable t;
  Mbarrier mma_bar(1);
  std::deque<int> in_flight;  // committed, not yet complete, oldest first
  int done = 0;
  auto complete_oldest = [&](std::vector<PhaseRow>& rows) {
    const int i = in_flight.front();
    in_flight.pop_front();
    mma_bar.arrive();  // tcgen05.commit: one arrival when the MMA completes
    rows[static_cast<size_t>(i)].bit_after_mma = mma_bar.phase_bit();
    ++done;
    return i;
  };

  uint32_t phase = 0;
  for (int i = 0; i < k_tiles; ++i) {
    PhaseRow r;
    r.iteration = i;
    r.accumulate = i != 0;
    r.phase_register = phase;
    t.rows.push_back(r);
    in_flight.push_back(i);  // issue MMA i + commit to mma_bar

    PhaseRow& row = t.rows.back();
    row.bit_at_wait = mma_bar.phase_bit();
    while (!mma_bar.try_wait_parity(phase)) {  // blocks: the tensor core catches up
      row.blocked = true;
      row.completed_during_wait = complete_oldest(t.rows);
    }
    row.mmas_done_at_return = done;
    row.early = done < i + 1;
    if (!forget_toggle) phase ^= 1;  // ← TOGGLE
  }
  t.in_flight_at_epilogue = static_cast<int>(in_flight.size());
  while (!in_flight.empty()) complete_oldest(t.rows);
  return t;
}

}  // namespace ladder::model
