// Hopper ladder · step 03 — 2D grid.
// Extends h02 with a grid [M/BLK_M, N/BLK_N]: one CTA per output tile, each running h02's K-loop from its
// own base offsets. Gains parallelism: every SM gets tiles (4096²: 1024 CTAs over 132 SMs).
#include <cuda/ptx>

#include "hopper/tile.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::hopper {
namespace {

constexpr std::string_view kStepId = "h03";

__global__ void __launch_bounds__(kWarpgroupThreads) grid_2d_kernel(const __half* A, const __half* B, __half* D,
                                                                     int64_t M, int64_t N, int64_t K) {
  __shared__ alignas(1024) __half Asmem[BLK_M * BLK_K];  // (BLK_M, BLK_K)
  __shared__ alignas(1024) __half Bsmem[BLK_N * BLK_K];  // (BLK_N, BLK_K)
  float acc[kMHalves][kAccRegs];                           // (BLK_M, BLK_N)

  const int64_t m_st = int64_t{blockIdx.x} * BLK_M;  // row offset into A and D
  const int64_t n_st = int64_t{blockIdx.y} * BLK_N;  // row offset into B (= column offset into D)

  const int64_t k_tiles = K / BLK_K;
  for (int64_t i = 0; i < k_tiles; ++i) {
    __syncthreads();
    cooperative_copy<BLK_M>(Asmem, A + m_st * K + i * BLK_K, K);  // THIS CTA's A row-band
    cooperative_copy<BLK_N>(Bsmem, B + n_st * K + i * BLK_K, K);  // THIS CTA's B row-band
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();

    sm90::wgmma_fence();
    mma_k_tile(acc, Asmem, Bsmem, /*accumulate=*/i != 0);
    sm90::wgmma_commit_group();
    sm90::wgmma_wait_group<0>();
    sm90::fence_operand(acc[0]);
    sm90::fence_operand(acc[1]);
  }

  store_tile(acc, D, N, m_st, n_st, M, N);  // writeback to THIS CTA's tile
}

std::string check(const detail::Problem& p) { return detail::require_grid_2d(p, BLK_M, BLK_N, BLK_K); }

void launch(const detail::Problem& p, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(p.M / BLK_M), static_cast<unsigned>(p.N / BLK_N));
  grid_2d_kernel<<<grid, kWarpgroupThreads, 0, stream>>>(p.A, p.B, p.D, p.M, p.N, p.K);
  detail::check_launch(kStepId);
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h03 = {
    ladder::hopper::kStepId, ladder::detail::Arch::hopper, "2D grid",
    "grid [M/128, N/128]: one CTA per output tile, each running the h02 K-loop at its own offsets",
    "M % 128 == 0, N % 128 == 0, K % 64 == 0; dense rows (lda == K, ldb == K, ldd == N)",
    ladder::hopper::check, ladder::hopper::launch};
