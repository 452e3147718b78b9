// Hopper ladder · step 02 — K-loop.
// Extends h01 by looping over K-tiles of 64 through the same two SMEM buffers; the accumulators stay in
// registers across the loop. scale-d = (i != 0): the first K-tile overwrites, the rest add.
// Gains nothing in speed; it removes h01's K == 64 limit.
#include <cuda/ptx>

#include "hopper/tile.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::hopper {
namespace {

constexpr std::string_view kStepId = "h02";

__global__ void __launch_bounds__(kWarpgroupThreads) k_loop_kernel(const __half* A, const __half* B, __half* D,
                                                                    int64_t K) {
  __shared__ alignas(1024) __half Asmem[BLK_M * BLK_K];  // (BLK_M, BLK_K)
  __shared__ alignas(1024) __half Bsmem[BLK_N * BLK_K];  // (BLK_N, BLK_K)
  float acc[kMHalves][kAccRegs];                           // (BLK_M, BLK_N)

  const int64_t k_tiles = K / BLK_K;
  for (int64_t i = 0; i < k_tiles; ++i) {
    // OVERWRITE the same buffers each iteration: the wait_group 0 below has retired their last reader,
    // and this barrier makes sure every warp got there before anyone writes.
    __syncthreads();
    cooperative_copy<BLK_M>(Asmem, A + i * BLK_K, K);
    cooperative_copy<BLK_N>(Bsmem, B + i * BLK_K, K);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();

    sm90::wgmma_fence();
    mma_k_tile(acc, Asmem, Bsmem, /*accumulate=*/i != 0);  // i == 0: overwrite · i > 0: add
    sm90::wgmma_commit_group();
    sm90::wgmma_wait_group<0>();
    sm90::fence_operand(acc[0]);
    sm90::fence_operand(acc[1]);
  }

  store_tile(acc, D, BLK_N, 0, 0, BLK_M, BLK_N);
}

std::string check(const detail::Problem& p) { return detail::require_k_loop(p, BLK_M, BLK_N, BLK_K); }

void launch(const detail::Problem& p, cudaStream_t stream) {
  k_loop_kernel<<<1, kWarpgroupThreads, 0, stream>>>(p.A, p.B, p.D, p.K);
  detail::check_launch(kStepId);
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h02 = {
    ladder::hopper::kStepId, ladder::detail::Arch::hopper, "K-loop",
    "loop K-tiles through the same SMEM buffers; scale-d = (i != 0); wait_group 0 before overwriting",
    "M == 128, N == 128, K % 64 == 0; dense rows (lda == K, ldb == K, ldd == N)",
    ladder::hopper::check, ladder::hopper::launch};
