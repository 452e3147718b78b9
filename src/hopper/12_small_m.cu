// Hopper ladder · step 12 — small M (beyond the book).
// Extends the ladder to the shapes of decode, where M (the tokens) is 1–64 and the GEMM is a stream of the
// weight matrix B. It changes how the operands meet the tensor core: swapped (Dᵀ = B·Aᵀ), so 64 weight rows
// fill wgmma's M side and the tokens its N side (m64n8…n128), and K is split across the CTAs of a cluster,
// whose partial tiles are summed through distributed shared memory in rank order (src/hopper/small_m.cuh). Its
// 128-row tiles of several token tiles (65-512 tokens) share each weight stage between two token tiles by TMA
// multicast where the clusters fit (twenty-ninth session: L2's output bounds them there).
// Should gain: the previous best ran M = 1 on 128×64 tiles (the old h10's table), 127 of 128 MMA rows
// padding, with only N/64 CTAs streaming B (0.75 TB/s at 1×4096×4096); here every SM streams, so the time should approach the read floor of
// 2·N·K bytes (docs/notes.md: the floor, the prediction and the outcome).
#include "hopper/families.hpp"

namespace ladder::hopper {
namespace {

constexpr char kId[] = "h12";

void launch(const detail::Problem& p, cudaStream_t stream) { small_m::launch(p, stream, /*pdl=*/false, kId); }
std::string describe(const detail::Problem& p) { return std::string(kId) + " " + small_m::describe(p, /*pdl=*/false); }

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h12 = {
    ladder::hopper::kId, ladder::detail::Arch::hopper, "small M",
    "beyond the book: swapped operands (64 weight rows x 8-128 tokens per wgmma), K split over a cluster, "
    "partials summed through DSMEM in rank order, fused epilogue; from 65 tokens each weight stage multicast to two "
    "token tiles where the clusters fit",
    "any M, N >= 1; K % 8 == 0; lda, ldb % 8 == 0 (TMA loads; fastest for M <= 64)", ladder::hopper::small_m::check,
    ladder::hopper::launch, {}, nullptr, /*pointer_alignment=*/16, /*fused=*/true, ladder::hopper::describe};
