// Pipeline state of an S-stage SMEM ring: which stage, and which phase parity to wait for there.
// Advanced in one place; plain constexpr so the CPU tests drive it through wrap-arounds and tiles.
#pragma once
#include <cstdint>

#include "device/descriptors.hpp"  // LADDER_HD

namespace ladder {

template <int STAGES>
struct PipelineState {
  static_assert(STAGES >= 1);
  uint32_t stage = 0;
  uint32_t phase = 0;  // parity of the barrier phase this stage is on; flips each time the ring wraps

  LADDER_HD constexpr void advance() {
    if (++stage == STAGES) {
      stage = 0;
      phase ^= 1;
    }
  }
  // Skip n stages (e.g. the K-tiles of a tile that another consumer owns).
  LADDER_HD constexpr void advance(int n) {
    const uint32_t next = stage + static_cast<uint32_t>(n);
    phase ^= (next / STAGES) & 1u;
    stage = next % STAGES;
  }
  // The producer waits on `empty` barriers that have not completed any phase yet: a fresh barrier counts
  // phase "-1" as complete, so the producer waits with the opposite parity and passes its first lap at once.
  LADDER_HD constexpr uint32_t producer_phase() const { return phase ^ 1; }
};

// The accumulator hand-over of the warp-specialized Blackwell steps (b07-b10): STAGES TMEM accumulators, each
// with a full barrier (MMA issuer -> epilogue: the tile's last commit) and an empty barrier (epilogue -> MMA
// issuer: every reader has arrived). Each side walks the accumulators in tile order with its own ring; which
// barrier phase each side waits for is decided here, once, for the kernels and for the CPU test that runs the
// hand-over on the host mbarrier model.
template <int STAGES>
struct AccumulatorRing {
  PipelineState<STAGES> cursor;

  LADDER_HD constexpr uint32_t stage() const { return cursor.stage; }
  // MMA issuer, before a tile's first MMA: wait on empty[stage()] with this parity. The empty side starts at
  // parity 1 (a fresh barrier counts phase -1 as complete), so the first lap does not wait.
  LADDER_HD constexpr uint32_t mma_parity() const { return cursor.producer_phase(); }
  // Epilogue, before reading the accumulator: wait on full[stage()] with this parity.
  LADDER_HD constexpr uint32_t epilogue_parity() const { return cursor.phase; }
  LADDER_HD constexpr void next_tile() { cursor.advance(); }
};

}  // namespace ladder

namespace ladder {

// The same with the ring depth chosen at run time (the SMEM a launch can spare / the stage size): kernels whose
// ring fills whatever SMEM is left, such as the small-M family.
struct RingState {
  uint32_t stages = 1;
  uint32_t stage = 0;
  uint32_t phase = 0;

  LADDER_HD constexpr void advance() {
    if (++stage == stages) {
      stage = 0;
      phase ^= 1;
    }
  }
  LADDER_HD constexpr void advance(int n) {
    const uint32_t next = stage + static_cast<uint32_t>(n);
    phase ^= (next / stages) & 1u;
    stage = next % stages;
  }
  LADDER_HD constexpr uint32_t producer_phase() const { return phase ^ 1; }
};

}  // namespace ladder
