// Hopper ladder · step 13 — back-to-back (beyond the book).
// Extends h12 by changing when the kernel starts: it is launched as a programmatic dependent launch
// (cudaLaunchAttributeProgrammaticStreamSerialization), so it may become resident while the previous kernel
// on the stream is still running. The kernel waits (griddepcontrol.wait) before its first global read and
// signals its own dependents (griddepcontrol.launch_dependents) once its mainloop is done; when the caller
// says B is not written by the previous kernel (ladder_gemm_desc: LADDER_FLAG_B_STATIC), the first stages of
// weights are loaded before that wait.
// Should gain: in a model's chain of GEMMs (CUDA graph replay), the launch and prologue of each GEMM, a few
// µs against decode GEMMs of 10–40 µs; nothing on a single GEMM.
#include "hopper/families.hpp"

namespace ladder::hopper {
namespace {

constexpr char kId[] = "h13";

void launch(const detail::Problem& p, cudaStream_t stream) {
  small_m::launch(small_m::caller_b_static(p), stream, /*pdl=*/true, kId);
}
std::string describe(const detail::Problem& p) {
  return std::string(kId) + " " + small_m::describe(small_m::caller_b_static(p), /*pdl=*/true);
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h13 = {
    ladder::hopper::kId, ladder::detail::Arch::hopper, "back-to-back",
    "beyond the book: h12 launched as a programmatic dependent launch (griddepcontrol): its prologue, and with "
    "a static B its first weight loads, overlap the previous kernel's tail",
    "any M, N >= 1; K % 8 == 0; lda, ldb % 8 == 0 (TMA loads; fastest for M <= 64)", ladder::hopper::small_m::check,
    ladder::hopper::launch, {}, nullptr, /*pointer_alignment=*/16, /*fused=*/true, ladder::hopper::describe};
