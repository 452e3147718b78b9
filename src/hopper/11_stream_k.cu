// Hopper ladder · step 11 — stream-K (beyond the book).
// Extends h09 by changing how the tiles are shared out: where the last wave would leave many SMs idle, it is
// cut into K-tile units spread evenly over every resident cluster, including when there are fewer tiles than
// clusters (Osama et al., "Stream-K", 2023: the data-parallel + one stream-K wave hybrid). A tile's owner adds
// the other pieces' fp32 partials, read from a stream-ordered workspace, in worker order (the same bits on
// every run), then writes D (src/device/scheduler.hpp: StreamKScheduler; src/hopper/cooperative.cuh).
// Should gain: the idle tail, where it is worth twice the fix-up: 8192³ +2 points, 1536²×16384 58 → 89 % of
// cuBLAS; nothing where the waves are whole (docs/notes.md).
#include "hopper/families.hpp"

namespace ladder::hopper {
namespace {

constexpr char kStepId[] = "h11";

void launch(const detail::Problem& p, cudaStream_t stream) {
  cooperative::launch(p, stream, cooperative::Tile::w256, /*stream_k=*/true, /*tma_store=*/true, /*pdl=*/false, kStepId);
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h11 = {
    ladder::hopper::kStepId, ladder::detail::Arch::hopper, "stream-K",
    "beyond the book: h09's kernel with the partial last wave split into K-tile units over all clusters; owners "
    "add the partials in worker order",
    "any M, N >= 1; K % 8 == 0; lda, ldb, ldd % 8 == 0 (TMA loads and stores; D 16-byte aligned)", ladder::hopper::cooperative::check,
    ladder::hopper::launch, {}, nullptr, /*pointer_alignment=*/16, /*fused=*/true, /*describe=*/nullptr,
    /*d_alignment=*/16};
