// Pipeline state of an SMEM ring (compile-time or run-time depth): which stage, and which phase parity to wait for there.
// Advanced in one place; plain constexpr so the CPU tests drive it through wrap-arounds and tiles.
#pragma once
#include <cstdint>

#include "device/descriptors.hpp"  // LADDER_HD

namespace ladder {

// The ring's depth: a compile-time constant (the steps' fixed rings) or a run-time value (kernels whose ring fills
// whatever SMEM a launch can spare, such as the small-M family). The ring's arithmetic is the same for both; the
// depth is a base class, so a fixed ring holds only its stage and phase.
template <uint32_t S>
struct FixedDepth {
  static_assert(S >= 1);
  LADDER_HD constexpr uint32_t depth() const { return S; }
};
struct RunTimeDepth {
  uint32_t stages = 1;
  LADDER_HD constexpr RunTimeDepth(uint32_t n = 1) : stages(n) {}  // NOLINT: implicit, so RingState{n} reads well
  LADDER_HD constexpr uint32_t depth() const { return stages; }
};

template <class Depth>
struct Ring : Depth {
  uint32_t stage = 0;
  uint32_t phase = 0;  // parity of the barrier phase this stage is on; flips each time the ring wraps

  constexpr Ring() = default;
  LADDER_HD constexpr explicit Ring(Depth depth) : Depth(depth) {}

  LADDER_HD constexpr void advance() {
    if (++stage == this->depth()) {
      stage = 0;
      phase ^= 1;
    }
  }
  // Skip n stages (e.g. the K-tiles of a tile that another consumer owns).
  LADDER_HD constexpr void advance(int n) {
    const uint32_t next = stage + static_cast<uint32_t>(n);
    phase ^= (next / this->depth()) & 1u;
    stage = next % this->depth();
  }
  // The producer waits on `empty` barriers that have not completed any phase yet: a fresh barrier counts
  // phase "-1" as complete, so the producer waits with the opposite parity and passes its first lap at once.
  LADDER_HD constexpr uint32_t producer_phase() const { return phase ^ 1; }
};

template <int STAGES>
using PipelineState = Ring<FixedDepth<static_cast<uint32_t>(STAGES)>>;
using RingState = Ring<RunTimeDepth>;

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
