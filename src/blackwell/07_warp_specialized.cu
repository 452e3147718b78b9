// Blackwell ladder · step 07 — warp specialization. Compiled for sm_100a, not run (we have no Blackwell GPU).
// Extends b06 by changing who drives each hop: instead of one elected thread doing TMA and MMA in turn and
// every thread waiting for the writeback, each hop gets its own warps (the book's Step 7):
//   warp 4     — TMA producer: walks every (tile, K-tile), waits empty_bar, arms full_bar, loads;
//   warp 5     — MMA issuer: waits full_bar, issues tcgen05.mma, commits to empty_bar; per tile it waits
//                tmem_empty before the first MMA and commits tmem_full after the last;
//   warps 0–3  — epilogue warpgroup: waits tmem_full, reads TMEM rows 32·(warp % 4) + lane, arrives on
//                tmem_empty, writes GMEM.
// Four barriers: tma → mma (full_bar), mma → tma (empty_bar), mma → epilogue (tmem_full), epilogue → mma
// (tmem_empty). The "empty" sides (empty_bar for the producer, tmem_empty for the MMA warp) start at parity 1:
// a fresh barrier counts phase −1 as complete, so the first lap passes at once (PipelineState::producer_phase;
// the accumulator side: AccumulatorRing in device/pipeline.hpp).
// Gains: the TMA warp runs ahead across tile boundaries and never waits for a writeback; the MMA warp starts
// the next tile the moment TMEM is drained. Still one accumulator: the MMAs wait for the writeback (→ b10).
#include <cuda/ptx>

#include <algorithm>

#include "blackwell/tile.cuh"
#include "device/elect.cuh"
#include "device/mbarrier.cuh"
#include "device/pipeline.hpp"
#include "device/scheduler.hpp"
#include "device/smem.cuh"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "runtime/launch.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::blackwell {
namespace {

constexpr std::string_view kStepId = "b07";

inline constexpr int STAGES = 4;
inline constexpr int GROUP_M = 8;
inline constexpr uint32_t kStageBytes = (BLK_M + BLK_N) * BLK_K * sizeof(__half);
inline constexpr int kEpilogueWarps = 4;                    // warps 0–3: one per TMEM lane quarter
inline constexpr int kTmaWarp = 4, kMmaWarp = 5;
inline constexpr int kThreads = (kEpilogueWarps + 2) * 32;  // 192

struct SharedStorage {
  alignas(1024) __half A[STAGES][BLK_M * BLK_K];  // STAGES × (BLK_M, BLK_K)
  alignas(1024) __half B[STAGES][BLK_N * BLK_K];  // STAGES × (BLK_N, BLK_K)
  uint64_t full_bar[STAGES];                      // TMA → MMA: stage has landed
  uint64_t empty_bar[STAGES];                     // MMA → TMA: stage may be overwritten (tcgen05.commit)
  uint64_t tmem_full;                             // MMA → epilogue: the tile's accumulator is complete
  uint64_t tmem_empty;                            // epilogue → MMA: TMEM has been read, overwrite it
  uint32_t tmem_slot;
};
inline constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;  // + slack to align the base to 1024
static_assert(kSmemBytes <= sm100::kMaxSmemPerCta, "SMEM budget: 227 KB per CTA");

__global__ void __launch_bounds__(kThreads, 1) warp_specialized_kernel(const __grid_constant__ CUtensorMap tmap_a,
                                                                       const __grid_constant__ CUtensorMap tmap_b,
                                                                       __half* D, int64_t ldd, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  auto& s = align_smem<SharedStorage>(smem_raw);
  const int warp = threadIdx.x / 32;

  if (warp == kMmaWarp) tmem_allocate<kTmemCols>(&s.tmem_slot);  // the MMA warp owns the TMEM
  if (threadIdx.x == 0) {
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);
      mbarrier_init(&s.empty_bar[st], 1);
    }
    mbarrier_init(&s.tmem_full, 1);                    // one tcgen05.commit
    mbarrier_init(&s.tmem_empty, kEpilogueWarps * 32); // every epilogue thread, after its last tcgen05.ld
    fence_barrier_init();
  }
  cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t acc = s.tmem_slot;

  const TileScheduler sched{(M + BLK_M - 1) / BLK_M, (N + BLK_N - 1) / BLK_N, GROUP_M};
  const int k_tiles = (K + BLK_K - 1) / BLK_K;

  if (warp == kTmaWarp) {
    if (elect_one_sync()) {
      PipelineState<STAGES> load;
      for (int tile = blockIdx.x; tile < sched.num_tiles(); tile += gridDim.x) {
        int tm, tn;
        sched.tile(tile, tm, tn);
        for (int kt = 0; kt < k_tiles; ++kt) {
          mbarrier_wait(&s.empty_bar[load.stage], load.producer_phase(), "empty_bar");
          mbarrier_arrive_expect_tx(&s.full_bar[load.stage], kStageBytes);
          tma_load_2d(s.A[load.stage], &tmap_a, kt * BLK_K, tm * BLK_M, &s.full_bar[load.stage]);
          tma_load_2d(s.B[load.stage], &tmap_b, kt * BLK_K, tn * BLK_N, &s.full_bar[load.stage]);
          load.advance();
        }
      }
    }
  } else if (warp == kMmaWarp) {
    if (elect_one_sync()) {
      PipelineState<STAGES> read;
      AccumulatorRing<1> accum;  // one accumulator: its phase flips once per tile
      for (int tile = blockIdx.x; tile < sched.num_tiles(); tile += gridDim.x) {
        mbarrier_wait(&s.tmem_empty, accum.mma_parity(), "tmem_empty");  // the epilogue drained TMEM
        cuda::ptx::tcgen05_fence_after_thread_sync();
        for (int i = 0; i < k_tiles; ++i) {
          mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
          cuda::ptx::tcgen05_fence_after_thread_sync();
          mma_k_tile(acc, s.A[read.stage], s.B[read.stage], /*accumulate=*/i != 0);
          cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, &s.empty_bar[read.stage]);
          read.advance();
        }
        cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, &s.tmem_full);
        accum.next_tile();
      }
    }
  } else {  // warps 0–3: the epilogue warpgroup
    AccumulatorRing<1> accum;
    for (int tile = blockIdx.x; tile < sched.num_tiles(); tile += gridDim.x) {
      int tm, tn;
      sched.tile(tile, tm, tn);
      mbarrier_wait(&s.tmem_full, accum.epilogue_parity(), "tmem_full");
      cuda::ptx::tcgen05_fence_after_thread_sync();
      store_tile<BLK_N>(acc, D, ldd, tm * BLK_M, tn * BLK_N, M, N);
      cuda::ptx::tcgen05_fence_before_thread_sync();  // our tcgen05.ld's (waited) → the MMA warp's overwrite
      mbarrier_arrive(&s.tmem_empty);
      accum.next_tile();
    }
  }

  tmem_release<kTmemCols>(warp == kMmaWarp, acc);
}

std::string check(const detail::Problem& p) {
  return require_tma_rows_and_16b_stores(p);
}

void launch(const detail::Problem& p, cudaStream_t stream) {
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, BLK_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, BLK_N, BLK_K);
  const int64_t tiles = ((p.M + BLK_M - 1) / BLK_M) * ((p.N + BLK_N - 1) / BLK_N);
  detail::launch_persistent(kStepId, warp_specialized_kernel, {kThreads, kSmemBytes}, tiles, stream, ta, tb, p.D,
                            p.ldd, static_cast<int>(p.M), static_cast<int>(p.N), static_cast<int>(p.K));
}

}  // namespace
}  // namespace ladder::blackwell

extern const ladder::detail::Step step_b07 = {
    ladder::blackwell::kStepId, ladder::detail::Arch::blackwell, "warp specialization",
    "separate roles: a TMA warp, an MMA warp and an epilogue warpgroup (rows by warp % 4), joined by four "
    "barriers: full/empty per stage, tmem_full/tmem_empty; empty sides start at parity 1 (compiled for "
    "sm_100a, not run)",
    "any M >= 1; N % 8 == 0; K % 8 == 0; lda, ldb, ldd % 8 == 0 (tails: zero-filled loads, predicated "
    "stores; unverified: not run)",
    ladder::blackwell::check, ladder::blackwell::launch};
