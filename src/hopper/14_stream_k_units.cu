// Hopper ladder · step 14 — balanced decode (beyond the book).
// Extends h13 by changing how the K range is split: instead of one cluster of `split` CTAs a tile, a persistent
// grid of workers (two CTAs an SM) takes equal shares of all the tiles' K-tiles in stream-K units, cut at tile
// boundaries into pieces (src/device/scheduler.hpp: StreamKScheduler, every tile split). A whole piece is written
// at once; a partial goes to a small workspace slot; after one grid barrier (a cooperative launch) each tile's
// owner adds its partials in worker order, so D has the same bits on every run (src/hopper/small_m.cuh).
// Should gain: where tiles × split do not divide over the SMs, h13's busiest SM streams more than its share
// (1×14336×4096: 224 tiles of 64 rows, two on 92 SMs and one on 40, so 1 MB on the busiest against 0.87 MB
// even). Predicted for that layer: 34 → ~31 µs; nothing where h13 is already even (1×4096×4096).
#include "hopper/families.hpp"

namespace ladder::hopper {
namespace {

constexpr char kId[] = "h14";

void launch(const detail::Problem& p, cudaStream_t stream) { small_m::launch(p, stream, /*pdl=*/true, /*stream_k=*/1, kId); }
std::string describe(const detail::Problem& p) { return std::string(kId) + " " + small_m::describe(p, /*pdl=*/true, 1); }

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h14 = {
    ladder::hopper::kId, ladder::detail::Arch::hopper, "balanced decode",
    "beyond the book: h13 with K split in stream-K units over a persistent grid (equal K-tiles per CTA), partials "
    "added in worker order after a grid barrier; up to 64 tokens (the 128-token tile keeps h13's cluster split)",
    "any M, N >= 1; K % 8 == 0; lda, ldb % 8 == 0 (TMA loads; fastest for M <= 64)", ladder::hopper::small_m::check,
    ladder::hopper::launch, {}, nullptr, /*pointer_alignment=*/16, /*fused=*/true, ladder::hopper::describe};
