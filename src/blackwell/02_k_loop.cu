// Blackwell ladder · step 02 — K-loop. Compiled for sm_100a, not run (we have no Blackwell GPU).
// Extends b01 by looping over K-tiles of 64 through the same two SMEM buffers; the accumulator persists in
// TMEM across the loop. accumulate = (i != 0): the first K-tile overwrites, the rest add. One mma_bar is
// reused every iteration, so the waiter's `phase` register toggles after every wait (the seed's phase-flip
// table: `ladder phase-table`). Gains nothing in speed; it removes b01's K == 64 limit.
#include <cuda/ptx>

#include "blackwell/tile.cuh"
#include "device/elect.cuh"
#include "device/mbarrier.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::blackwell {
namespace {

constexpr std::string_view kStepId = "b02";

inline constexpr uint32_t kSmemBytes = (BLK_M + BLK_N) * BLK_K * sizeof(__half) + sizeof(uint64_t) + sizeof(uint32_t);
static_assert(kSmemBytes <= sm100::kMaxSmemPerCta, "SMEM budget: 227 KB per CTA");

__global__ void __launch_bounds__(kWarpgroupThreads) k_loop_kernel(const __half* A, const __half* B, __half* D,
                                                                    int64_t K) {
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

  uint32_t phase = 0;  // ← the parity this thread waits for on mma_bar, kept in a register
  const int64_t k_tiles = K / BLK_K;
  for (int64_t i = 0; i < k_tiles; ++i) {
    // OVERWRITE the same buffers each iteration: every thread waited on mma_bar below, so the MMAs that
    // read them (and tcgen05.commit tracks their SMEM reads too) have completed.
    cooperative_copy<BLK_M>(Asmem, A + i * BLK_K, K);
    cooperative_copy<BLK_N>(Bsmem, B + i * BLK_K, K);
    cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
    __syncthreads();

    if (warp == 0 && elect_one_sync()) {
      mma_k_tile(acc, Asmem, Bsmem, /*accumulate=*/i != 0);  // i == 0: overwrite · i > 0: add
      cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, &mma_bar);
    }
    mbarrier_wait(&mma_bar, phase, "mma_bar");  // block until THIS K-tile's MMAs complete
    phase ^= 1;                                 // ← TOGGLE: the barrier's phase bit flipped on completion
  }
  cuda::ptx::tcgen05_fence_after_thread_sync();

  store_tile<BLK_N>(acc, D, BLK_N, 0, 0, BLK_M, BLK_N);

  tmem_release<kTmemCols>(warp == 0, acc);
}

std::string check(const detail::Problem& p) { return detail::require_k_loop(p, BLK_M, BLK_N, BLK_K); }

void launch(const detail::Problem& p, cudaStream_t stream) {
  k_loop_kernel<<<1, kWarpgroupThreads, 0, stream>>>(p.A, p.B, p.D, p.K);
  detail::check_launch(kStepId);
}

}  // namespace
}  // namespace ladder::blackwell

extern const ladder::detail::Step step_b02 = {
    ladder::blackwell::kStepId, ladder::detail::Arch::blackwell, "K-loop",
    "loop K-tiles through the same SMEM buffers into one TMEM accumulator; accumulate = (i != 0); one mma_bar "
    "reused, phase ^= 1 after every wait (compiled for sm_100a, not run)",
    "M == 128, N == 128, K % 64 == 0; dense rows (lda == K, ldb == K, ldd == N)",
    ladder::blackwell::check, ladder::blackwell::launch};
