// Blackwell ladder · step 05 — pipelining. Compiled for sm_100a, not run (we have no Blackwell GPU).
// Extends b04 by changing how the GMEM → SMEM hop overlaps the MMA: an S-stage SMEM ring with a
// `full_bar` (TMA → MMA) and an `empty_bar` (MMA → TMA) per stage. The elected thread keeps loads S−1
// K-tiles ahead of the MMAs; each K-tile's MMAs are committed to that stage's empty_bar, so the stage is
// freed exactly when the tensor core has finished reading it (tcgen05.commit is the release).
// Order per K-tile: wait full → MMA → commit to empty → refill the stage the previous K-tile freed, so the
// tensor core always has this K-tile queued while the thread waits for the previous one.
// Gains: the tensor core no longer idles while a K-tile is in flight. All threads wait once, for mma_bar.
#include <cuda/ptx>

#include "blackwell/tile.cuh"
#include "device/elect.cuh"
#include "device/mbarrier.cuh"
#include "device/pipeline.hpp"
#include "device/smem.cuh"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::blackwell {
namespace {

constexpr std::string_view kStepId = "b05";

inline constexpr int STAGES = 4;
inline constexpr uint32_t kStageBytes = (BLK_M + BLK_N) * BLK_K * sizeof(__half);

struct SharedStorage {
  alignas(1024) __half A[STAGES][BLK_M * BLK_K];  // STAGES × (BLK_M, BLK_K)
  alignas(1024) __half B[STAGES][BLK_N * BLK_K];  // STAGES × (BLK_N, BLK_K)
  uint64_t full_bar[STAGES];                      // TMA → MMA: stage has landed
  uint64_t empty_bar[STAGES];                     // MMA → TMA: stage may be overwritten (tcgen05.commit)
  uint64_t mma_bar;                               // MMA → everyone: the accumulator is complete
  uint32_t tmem_slot;
};
inline constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;  // + slack to align the base to 1024
static_assert(kSmemBytes <= sm100::kMaxSmemPerCta, "SMEM budget: 227 KB per CTA");

__global__ void __launch_bounds__(kWarpgroupThreads) pipelined_kernel(const __grid_constant__ CUtensorMap tmap_a,
                                                                      const __grid_constant__ CUtensorMap tmap_b,
                                                                      __half* D, int64_t ldd, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  auto& s = align_smem<SharedStorage>(smem_raw);
  const int warp = threadIdx.x / 32;

  if (warp == 0) tmem_allocate<kTmemCols>(&s.tmem_slot);
  if (threadIdx.x == 0) {
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);   // the producer's expect_tx arrival + tx-bytes
      mbarrier_init(&s.empty_bar[st], 1);  // one tcgen05.commit
    }
    mbarrier_init(&s.mma_bar, 1);
    fence_barrier_init();
  }
  cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t acc = s.tmem_slot;

  const int m_st = blockIdx.x * BLK_M, n_st = blockIdx.y * BLK_N;
  const int k_tiles = (K + BLK_K - 1) / BLK_K;

  if (warp == 0 && elect_one_sync()) {  // one thread drives the copy engine and the tensor core
    PipelineState<STAGES> load;  // the producer's cursor
    PipelineState<STAGES> read;  // the MMA's cursor
    auto produce = [&](int kt) {
      mbarrier_wait(&s.empty_bar[load.stage], load.producer_phase(), "empty_bar");
      mbarrier_arrive_expect_tx(&s.full_bar[load.stage], kStageBytes);
      tma_load_2d(s.A[load.stage], &tmap_a, kt * BLK_K, m_st, &s.full_bar[load.stage]);
      tma_load_2d(s.B[load.stage], &tmap_b, kt * BLK_K, n_st, &s.full_bar[load.stage]);
      load.advance();
    };

    for (int kt = 0; kt < STAGES - 1 && kt < k_tiles; ++kt) produce(kt);  // prologue: fill S−1 stages
    for (int i = 0; i < k_tiles; ++i) {
      mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
      cuda::ptx::tcgen05_fence_after_thread_sync();
      mma_k_tile(acc, s.A[read.stage], s.B[read.stage], /*accumulate=*/i != 0);
      cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, &s.empty_bar[read.stage]);  // frees the stage when read
      read.advance();
      if (i + STAGES - 1 < k_tiles) produce(i + STAGES - 1);  // the stage K-tile i−1 used
    }
    cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, &s.mma_bar);  // tracks every MMA issued above
  }
  mbarrier_wait(&s.mma_bar, /*phase=*/0, "mma_bar");
  cuda::ptx::tcgen05_fence_after_thread_sync();

  store_tile<BLK_N>(acc, D, ldd, m_st, n_st, M, N);

  tmem_release<kTmemCols>(warp == 0, acc);
}

std::string check(const detail::Problem& p) {
  if (auto e = require_tma_rows_and_16b_stores(p); !e.empty()) return e;
  return detail::require_grid_y(p, BLK_N);
}

void launch(const detail::Problem& p, cudaStream_t stream) {
  detail::allow_dynamic_smem(reinterpret_cast<const void*>(pipelined_kernel), kSmemBytes, kStepId);
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, BLK_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, BLK_N, BLK_K);
  const dim3 grid(static_cast<unsigned>((p.M + BLK_M - 1) / BLK_M), static_cast<unsigned>((p.N + BLK_N - 1) / BLK_N));
  pipelined_kernel<<<grid, kWarpgroupThreads, kSmemBytes, stream>>>(ta, tb, p.D, p.ldd, static_cast<int>(p.M),
                                                                   static_cast<int>(p.N), static_cast<int>(p.K));
  detail::check_launch(kStepId);
}

}  // namespace
}  // namespace ladder::blackwell

extern const ladder::detail::Step step_b05 = {
    ladder::blackwell::kStepId, ladder::detail::Arch::blackwell, "pipelining",
    "an S-stage SMEM ring with full/empty barriers: TMA runs S-1 K-tiles ahead; each K-tile's tcgen05.commit to "
    "empty_bar frees its stage (compiled for sm_100a, not run)",
    "any M >= 1; N % 8 == 0; K % 8 == 0; lda, ldb, ldd % 8 == 0 (tails: zero-filled loads, predicated "
    "stores; unverified: not run)",
    ladder::blackwell::check, ladder::blackwell::launch};
