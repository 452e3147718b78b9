// Blackwell ladder · step 03 — 2D grid. Compiled for sm_100a, not run (we have no Blackwell GPU).
// Extends b02 with a grid [M/BLK_M, N/BLK_N]: one CTA per output tile, each running b02's K-loop from its
// own base offsets. Gains parallelism: every SM gets tiles (4096²: 1024 CTAs over 148 SMs). Each CTA
// allocates only the 128 TMEM columns it needs (of 512), so up to four CTAs can hold TMEM on one SM.
#include <cuda/ptx>

#include "blackwell/tile.cuh"
#include "device/elect.cuh"
#include "device/mbarrier.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::blackwell {
namespace {

constexpr std::string_view kStepId = "b03";

inline constexpr uint32_t kSmemBytes = (BLK_M + BLK_N) * BLK_K * sizeof(__half) + sizeof(uint64_t) + sizeof(uint32_t);
static_assert(kSmemBytes <= sm100::kMaxSmemPerCta, "SMEM budget: 227 KB per CTA");

__global__ void __launch_bounds__(kWarpgroupThreads) grid_2d_kernel(const __half* A, const __half* B, __half* D,
                                                                     int64_t M, int64_t N, int64_t K) {
  __shared__ alignas(1024) __half Asmem[BLK_M * BLK_K];  // (BLK_M, BLK_K)
  __shared__ alignas(1024) __half Bsmem[BLK_N * BLK_K];  // (BLK_N, BLK_K)
  __shared__ uint64_t mma_bar;
  __shared__ uint32_t tmem_slot;
  const int warp = threadIdx.x / 32;

  if (warp == 0) tmem_allocate<kTmemCols>(&tmem_slot);
  if (threadIdx.x == 0) {
    mbarrier_init(&mma_bar, 1);
    fence_barrier_init();
  }
  cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t acc = tmem_slot;

  const int64_t m_st = int64_t{blockIdx.x} * BLK_M;  // row offset into A and D
  const int64_t n_st = int64_t{blockIdx.y} * BLK_N;  // row offset into B (= column offset into D)

  uint32_t phase = 0;
  const int64_t k_tiles = K / BLK_K;
  for (int64_t i = 0; i < k_tiles; ++i) {
    cooperative_copy<BLK_M>(Asmem, A + m_st * K + i * BLK_K, K);  // THIS CTA's A row-band
    cooperative_copy<BLK_N>(Bsmem, B + n_st * K + i * BLK_K, K);  // THIS CTA's B row-band
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();

    if (warp == 0 && elect_one_sync()) {
      mma_k_tile(acc, Asmem, Bsmem, /*accumulate=*/i != 0);
      cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, &mma_bar);
    }
    mbarrier_wait(&mma_bar, phase, "mma_bar");
    phase ^= 1;
  }
  cuda::ptx::tcgen05_fence_after_thread_sync();

  store_tile<BLK_N>(acc, D, N, m_st, n_st, M, N);  // writeback to THIS CTA's tile

  tmem_release<kTmemCols>(warp == 0, acc);
}

std::string check(const detail::Problem& p) { return detail::require_grid_2d(p, BLK_M, BLK_N, BLK_K); }

void launch(const detail::Problem& p, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(p.M / BLK_M), static_cast<unsigned>(p.N / BLK_N));
  grid_2d_kernel<<<grid, kWarpgroupThreads, 0, stream>>>(p.A, p.B, p.D, p.M, p.N, p.K);
  detail::check_launch(kStepId);
}

}  // namespace
}  // namespace ladder::blackwell

extern const ladder::detail::Step step_b03 = {
    ladder::blackwell::kStepId, ladder::detail::Arch::blackwell, "2D grid",
    "grid [M/128, N/128]: one CTA per output tile, each running the b02 K-loop at its own offsets; 128 TMEM "
    "columns per CTA (compiled for sm_100a, not run)",
    "M % 128 == 0, N % 128 == 0, K % 64 == 0; dense rows (lda == K, ldb == K, ldd == N)",
    ladder::blackwell::check, ladder::blackwell::launch};
