// Hopper ladder · step 01 — one tile.
// The smallest correct kernel: one 128x128 output tile, K = 64, grid 1x1, one warpgroup (128 threads).
// Every hop is done the slow, obvious way:
//   GMEM ─(all threads copy)→ SMEM (SW128) ─(wgmma)→ registers (fp32) ─(cast, store)→ GMEM
// Limitations = the syllabus: one K-tile (→ h02), one output tile (→ h03), synchronous copies (→ h04),
// no overlap (→ h05–h07).
#include <cuda/ptx>

#include "hopper/tile.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::hopper {
namespace {

constexpr std::string_view kStepId = "h01";

__global__ void __launch_bounds__(kWarpgroupThreads) one_tile_kernel(const __half* A, const __half* B, __half* D) {
  // (1) ALLOCATE: two SW128 tiles (1024-B aligned for the swizzle) and the accumulators in registers.
  __shared__ alignas(1024) __half Asmem[BLK_M * BLK_K];  // (BLK_M, BLK_K)
  __shared__ alignas(1024) __half Bsmem[BLK_N * BLK_K];  // (BLK_N, BLK_K): B is N×K, a row-band
  float acc[kMHalves][kAccRegs];                           // (BLK_M, BLK_N) in wgmma fragments

  // (2) SYNCHRONOUS LOAD GMEM → SMEM: every thread copies its share.
  cooperative_copy<BLK_M>(Asmem, A, BLK_K);
  cooperative_copy<BLK_N>(Bsmem, B, BLK_K);
  // NOTE: st.shared is the generic proxy, wgmma reads SMEM through the async proxy: fence, then publish.
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
  __syncthreads();

  // (3) MMA: on Hopper the whole warpgroup issues wgmma (no elected thread); accumulate = false.
  sm90::wgmma_fence();
  mma_k_tile(acc, Asmem, Bsmem, /*accumulate=*/false);
  sm90::wgmma_commit_group();
  sm90::wgmma_wait_group<0>();
  sm90::fence_operand(acc[0]);
  sm90::fence_operand(acc[1]);

  // (4) WRITEBACK registers → GMEM, cast once.
  store_tile(acc, D, BLK_N, 0, 0, BLK_M, BLK_N);
}

std::string check(const detail::Problem& p) { return detail::require_one_tile(p, BLK_M, BLK_N, BLK_K); }

void launch(const detail::Problem& p, cudaStream_t stream) {
  one_tile_kernel<<<1, kWarpgroupThreads, 0, stream>>>(p.A, p.B, p.D);
  detail::check_launch(kStepId);
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h01 = {
    ladder::hopper::kStepId, ladder::detail::Arch::hopper, "one tile",
    "smallest correct kernel: cooperative copy to SW128 SMEM, one warpgroup issues wgmma m64n128k16, "
    "registers to GMEM",
    "M == 128, N == 128, K == 64; dense rows (lda == K, ldb == K, ldd == N)",
    ladder::hopper::check, ladder::hopper::launch};
