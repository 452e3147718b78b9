// Blackwell ladder · step 04 — TMA. Compiled for sm_100a, not run (we have no Blackwell GPU).
// Extends b03 by changing one hop: GMEM → SMEM is now done by the copy engine. One elected thread issues
// cp.async.bulk.tensor for A and B (SWIZZLE_128B tensor maps: the hardware writes the same layout the
// cooperative copy built by hand) and arms `full_bar` with expect_tx; it waits for the bytes, issues the
// MMAs, and commits them to `mma_bar`. Both barriers complete once per K-tile, so one `phase` serves both
// and toggles every K-tile (the seed's phase-flip table).
// Gains: the math warps no longer spend issue slots on copies (the book: 2.6 → 278 TFLOP/s at 4096³ on a
// B200); tails in M, N and K are free for the loads (out-of-bounds box elements read as zero). Still no
// overlap: the next TMA waits for this K-tile's MMAs (→ b05).
#include <cuda/ptx>

#include "blackwell/tile.cuh"
#include "device/elect.cuh"
#include "device/mbarrier.cuh"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::blackwell {
namespace {

constexpr std::string_view kStepId = "b04";

inline constexpr uint32_t kStageBytes = (BLK_M + BLK_N) * BLK_K * sizeof(__half);  // what one K-tile brings
inline constexpr uint32_t kSmemBytes = kStageBytes + 2 * sizeof(uint64_t) + sizeof(uint32_t);
static_assert(kSmemBytes <= sm100::kMaxSmemPerCta, "SMEM budget: 227 KB per CTA");

__global__ void __launch_bounds__(kWarpgroupThreads) tma_kernel(const __grid_constant__ CUtensorMap tmap_a,
                                                                const __grid_constant__ CUtensorMap tmap_b, __half* D,
                                                                int64_t ldd, int M, int N, int K) {
  __shared__ alignas(1024) __half Asmem[BLK_M * BLK_K];  // (BLK_M, BLK_K)
  __shared__ alignas(1024) __half Bsmem[BLK_N * BLK_K];  // (BLK_N, BLK_K)
  __shared__ uint64_t full_bar;                           // TMA → MMA: "this K-tile has landed"
  __shared__ uint64_t mma_bar;                            // MMA → everyone: "this K-tile's MMAs are done"
  __shared__ uint32_t tmem_slot;
  const int warp = threadIdx.x / 32;

  if (warp == 0) tmem_allocate<kTmemCols>(&tmem_slot);
  if (threadIdx.x == 0) {
    mbarrier_init(&full_bar, 1);  // one arrival (the elected thread's expect_tx) + the tx-bytes
    mbarrier_init(&mma_bar, 1);
    fence_barrier_init();
  }
  cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t acc = tmem_slot;

  const int m_st = blockIdx.x * BLK_M, n_st = blockIdx.y * BLK_N;

  uint32_t phase = 0;                           // full_bar and mma_bar both complete once per K-tile
  const int k_tiles = (K + BLK_K - 1) / BLK_K;  // the last K-tile may run past K: zero-filled
  for (int i = 0; i < k_tiles; ++i) {
    if (warp == 0 && elect_one_sync()) {  // one thread drives the copy engine and the tensor core
      mbarrier_arrive_expect_tx(&full_bar, kStageBytes);
      tma_load_2d(Asmem, &tmap_a, i * BLK_K, m_st, &full_bar);
      tma_load_2d(Bsmem, &tmap_b, i * BLK_K, n_st, &full_bar);
      mbarrier_wait(&full_bar, phase, "full_bar");
      cuda::ptx::tcgen05_fence_after_thread_sync();  // the wait → the MMA that reads what landed
      mma_k_tile(acc, Asmem, Bsmem, /*accumulate=*/i != 0);
      cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, &mma_bar);
    }
    mbarrier_wait(&mma_bar, phase, "mma_bar");  // the MMAs are done with Asmem/Bsmem: the next TMA may overwrite
    phase ^= 1;
  }
  cuda::ptx::tcgen05_fence_after_thread_sync();

  store_tile<BLK_N>(acc, D, ldd, m_st, n_st, M, N);

  tmem_release<kTmemCols>(warp == 0, acc);
}

std::string check(const detail::Problem& p) {
  if (auto e = require_tma_rows_and_16b_stores(p); !e.empty()) return e;
  return detail::require_grid_y(p, BLK_N);
}

void launch(const detail::Problem& p, cudaStream_t stream) {
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, BLK_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, BLK_N, BLK_K);
  const dim3 grid(static_cast<unsigned>((p.M + BLK_M - 1) / BLK_M), static_cast<unsigned>((p.N + BLK_N - 1) / BLK_N));
  tma_kernel<<<grid, kWarpgroupThreads, 0, stream>>>(ta, tb, p.D, p.ldd, static_cast<int>(p.M), static_cast<int>(p.N),
                                                     static_cast<int>(p.K));
  detail::check_launch(kStepId);
}

}  // namespace
}  // namespace ladder::blackwell

extern const ladder::detail::Step step_b04 = {
    ladder::blackwell::kStepId, ladder::detail::Arch::blackwell, "TMA",
    "GMEM→SMEM by the copy engine: one elected thread issues cp.async.bulk.tensor (SWIZZLE_128B maps) with "
    "expect_tx on full_bar, then the MMAs; phase toggled every K-tile (compiled for sm_100a, not run)",
    "any M >= 1; N % 8 == 0; K % 8 == 0; lda, ldb, ldd % 8 == 0 (tails: zero-filled loads, predicated "
    "stores; unverified: not run)",
    ladder::blackwell::check, ladder::blackwell::launch};
