// Hopper ladder · step 10 — ping-pong (multi-consumer).
// Extends h09 by changing who owns a tile: the two consumer warpgroups no longer split one tile, each owns
// whole tiles, alternately (local tile j goes to consumer j % 2), so while one runs its wgmmas the other writes
// back with h09's TMA-store epilogue, and the tensor core no longer idles during writeback. A whole tile in one
// warpgroup's registers is 128×128 (128 fp32 per thread), so the tile shrinks from 128×256 and the ring, whose
// stages shrink with it, deepens to 5 (src/hopper/pingpong.cuh). The 2×1 cluster still shares B.
// Should gain: the writeback time per tile (≈ 5–10 % of a 128×256 tile's mainloop at 4096³), less the
// cost of a tile that moves a third more L2→SMEM bytes per FLOP (measured: docs/notes.md).
#include "hopper/families.hpp"

namespace ladder::hopper {
namespace {

constexpr char kStepId[] = "h10";

// 2×1 cluster sharing B, 5 stages of 32 KB, 128×128 tiles per consumer (pingpong.cu: Square).
void launch(const detail::Problem& p, cudaStream_t stream) {
  pingpong::launch(p, stream, pingpong::Tile::square, /*pdl=*/false, kStepId);
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h10 = {
    ladder::hopper::kStepId, ladder::detail::Arch::hopper, "ping-pong",
    "two consumer warpgroups own alternate 128x128 tiles (ping-pong) so one's TMA-store writeback overlaps the "
    "other's wgmmas",
    "any M, N >= 1; K % 8 == 0; lda, ldb, ldd % 8 == 0 (TMA loads and stores; D 16-byte aligned)", ladder::hopper::pingpong::check,
    ladder::hopper::launch, {}, nullptr, /*pointer_alignment=*/16, /*fused=*/true, /*describe=*/nullptr,
    /*d_alignment=*/16};
