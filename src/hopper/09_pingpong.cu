// Hopper ladder · step 09 — multi-consumer (ping-pong).
// Extends h08 by changing who owns a tile and how the accumulator reaches GMEM. The two consumer
// warpgroups no longer split one tile: each owns whole 128×128 tiles, alternately (local tile j goes to
// consumer j % 2), so while one runs its wgmmas the other writes back. The writeback is asynchronous:
// registers → stmatrix → SW128 SMEM image → TMA store, and the consumer moves on without waiting for it.
// The 2×1 cluster still shares B (each CTA loads 64 of the 128 B rows and multicasts them).
// Gains: the tensor core no longer idles during writeback; expect ≥ 95 % of cuBLAS.
#include "hopper/09_pingpong.cuh"

namespace ladder::hopper {
namespace {

// 2×1 cluster sharing B, 5 stages of 32 KB, 128×128 tiles per consumer.
using H09 = pingpong::Config</*CLUSTER_M=*/2, /*STAGES=*/5, /*TILE_M=*/128, /*TILE_N=*/128>;

void launch(const detail::Problem& p, cudaStream_t stream) { pingpong::launch<H09>(p, stream, "h09"); }

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h09 = {
    "h09", ladder::detail::Arch::hopper, "multi-consumer",
    "two consumer warpgroups own alternate 128x128 tiles (ping-pong) so one's writeback overlaps the other's "
    "wgmmas; writeback via stmatrix -> SMEM -> TMA store",
    "any M, N >= 1; K % 8 == 0; lda, ldb, ldd % 8 == 0 (TMA loads and stores)", ladder::hopper::pingpong::check,
    ladder::hopper::launch};
