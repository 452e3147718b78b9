// Hopper ladder · step 09 — TMA-store epilogue.
// Extends h08 by changing the last hop, accumulator → registers → GMEM: the fp32 fragment is cast in registers,
// written with stmatrix into a 128-B-swizzled SMEM image of the tile, and sent to GMEM by TMA stores that the
// consumer does not wait for (src/hopper/epilogue.cuh). Everything else is h08's: the cooperative 128×256 tile
// (both consumers on one tile), the 2×1 cluster multicasting B, the 4-stage ring; the image is staged in
// 128-column chunks so that the ring keeps its 4 stages (src/hopper/cooperative.cuh: Coop4).
// Should gain: h08's register stores write 2-byte pairs, 8 rows at a time, scattered over 4 KB of D per warp
// instruction; TMA writes whole 128-B lines. A few % at 4096³ (measured: docs/notes.md).
#include "hopper/families.hpp"

namespace ladder::hopper {
namespace {

constexpr char kStepId[] = "h09";

void launch(const detail::Problem& p, cudaStream_t stream) {
  cooperative::launch(p, stream, cooperative::Tile::w256, /*stream_k=*/false, /*tma_store=*/true, /*pdl=*/false, kStepId);
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h09 = {
    ladder::hopper::kStepId, ladder::detail::Arch::hopper, "TMA-store epilogue",
    "h08's kernel writing D through stmatrix -> swizzled SMEM -> TMA store instead of register stores",
    "any M, N >= 1; K % 8 == 0; lda, ldb, ldd % 8 == 0 (TMA loads and stores; D 16-byte aligned)", ladder::hopper::cooperative::check,
    ladder::hopper::launch, {}, nullptr, /*pointer_alignment=*/16, /*fused=*/true, /*describe=*/nullptr,
    /*d_alignment=*/16};
