// Blackwell ladder · step 06 — persistent. Compiled for sm_100a, not run (we have no Blackwell GPU).
// Extends b05 by changing who decides which tile a CTA computes: the grid is the number of SMs (times the
// CTAs that fit on one), and each CTA walks tiles idx = blockIdx.x, +gridDim.x, … through the static
// scheduler shared with the Hopper ladder (device/scheduler.hpp, grouped L2-friendly order). TMEM is
// allocated and the barriers initialised once; their phases carry across tiles: the pipeline cursors keep
// advancing and mma_bar's `acc_phase` toggles once per tile.
// Gains: no CTA launch, TMEM alloc or barrier init per tile; a wave's CTAs share A and B row-bands in L2;
// the next tile's first loads are issued before this tile's writeback. At 3 stages two CTAs share an SM,
// so one CTA's writeback overlaps the other's MMAs.
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

constexpr std::string_view kStepId = "b06";

inline constexpr int STAGES = 3;  // 3 × 32 KB: two CTAs fit on an SM (and 2 × 128 TMEM columns)
inline constexpr int GROUP_M = 8;
inline constexpr uint32_t kStageBytes = (BLK_M + BLK_N) * BLK_K * sizeof(__half);

struct SharedStorage {
  alignas(1024) __half A[STAGES][BLK_M * BLK_K];  // STAGES × (BLK_M, BLK_K)
  alignas(1024) __half B[STAGES][BLK_N * BLK_K];  // STAGES × (BLK_N, BLK_K)
  uint64_t full_bar[STAGES];                      // TMA → MMA: stage has landed
  uint64_t empty_bar[STAGES];                     // MMA → TMA: stage may be overwritten (tcgen05.commit)
  uint64_t mma_bar;                               // MMA → everyone: this tile's accumulator is complete
  uint32_t tmem_slot;
};
inline constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;  // + slack to align the base to 1024
static_assert(kSmemBytes <= sm100::kMaxSmemPerCta, "SMEM budget: 227 KB per CTA");
static_assert(2 * kSmemBytes <= 228 * 1024, "two CTAs per SM");

__global__ void __launch_bounds__(kWarpgroupThreads) persistent_kernel(const __grid_constant__ CUtensorMap tmap_a,
                                                                       const __grid_constant__ CUtensorMap tmap_b,
                                                                       __half* D, int64_t ldd, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  auto& s = align_smem<SharedStorage>(smem_raw);
  const int warp = threadIdx.x / 32;

  if (warp == 0) tmem_allocate<kTmemCols>(&s.tmem_slot);
  if (threadIdx.x == 0) {
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);
      mbarrier_init(&s.empty_bar[st], 1);
    }
    mbarrier_init(&s.mma_bar, 1);
    fence_barrier_init();
  }
  cuda::ptx::tcgen05_fence_before_thread_sync();
  __syncthreads();
  cuda::ptx::tcgen05_fence_after_thread_sync();
  const uint32_t acc = s.tmem_slot;

  const TileScheduler sched{(M + BLK_M - 1) / BLK_M, (N + BLK_N - 1) / BLK_N, GROUP_M};
  const int k_tiles = (K + BLK_K - 1) / BLK_K;
  PipelineState<STAGES> load;  // the producer's cursor (the elected thread only): carries across tiles
  PipelineState<STAGES> read;  // the MMA's cursor: carries across tiles
  uint32_t acc_phase = 0;      // mma_bar completes once per tile
  auto produce = [&](int kt, int m, int n) {
    mbarrier_wait(&s.empty_bar[load.stage], load.producer_phase(), "empty_bar");
    mbarrier_arrive_expect_tx(&s.full_bar[load.stage], kStageBytes);
    tma_load_2d(s.A[load.stage], &tmap_a, kt * BLK_K, m, &s.full_bar[load.stage]);
    tma_load_2d(s.B[load.stage], &tmap_b, kt * BLK_K, n, &s.full_bar[load.stage]);
    load.advance();
  };
  auto start_tile = [&](int tile) {  // the first S−1 loads of `tile`
    int tm, tn;
    sched.tile(tile, tm, tn);
    for (int kt = 0; kt < STAGES - 1 && kt < k_tiles; ++kt) produce(kt, tm * BLK_M, tn * BLK_N);
  };

  for (int tile = blockIdx.x; tile < sched.num_tiles(); tile += gridDim.x) {
    int tm, tn;
    sched.tile(tile, tm, tn);
    const int m_st = tm * BLK_M, n_st = tn * BLK_N;

    if (warp == 0 && elect_one_sync()) {
      if (tile == static_cast<int>(blockIdx.x)) start_tile(tile);
      for (int i = 0; i < k_tiles; ++i) {
        mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
        cuda::ptx::tcgen05_fence_after_thread_sync();
        mma_k_tile(acc, s.A[read.stage], s.B[read.stage], /*accumulate=*/i != 0);
        cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, &s.empty_bar[read.stage]);
        read.advance();
        if (i + STAGES - 1 < k_tiles) produce(i + STAGES - 1, m_st, n_st);
      }
      cuda::ptx::tcgen05_commit(cuda::ptx::cta_group_1, &s.mma_bar);
      // Start the next tile's loads first, so they fly while this tile is written back.
      if (tile + static_cast<int>(gridDim.x) < sched.num_tiles()) start_tile(tile + gridDim.x);
    }
    mbarrier_wait(&s.mma_bar, acc_phase, "mma_bar");
    acc_phase ^= 1;
    cuda::ptx::tcgen05_fence_after_thread_sync();

    store_tile<BLK_N>(acc, D, ldd, m_st, n_st, M, N);

    // Every TMEM read of this tile is done (wait::ld) before the next tile's first MMA overwrites it.
    cuda::ptx::tcgen05_fence_before_thread_sync();
    __syncthreads();
    cuda::ptx::tcgen05_fence_after_thread_sync();
  }

  if (warp == 0) tmem_free<kTmemCols>(acc);  // the loop ended with the fenced thread sync
}

std::string check(const detail::Problem& p) {
  return require_tma_rows_and_16b_stores(p);
}

void launch(const detail::Problem& p, cudaStream_t stream) {
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, BLK_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, BLK_N, BLK_K);
  const int64_t tiles = ((p.M + BLK_M - 1) / BLK_M) * ((p.N + BLK_N - 1) / BLK_N);
  detail::launch_persistent(kStepId, persistent_kernel, {kWarpgroupThreads, kSmemBytes}, tiles, stream, ta, tb, p.D,
                            p.ldd, static_cast<int>(p.M), static_cast<int>(p.N), static_cast<int>(p.K));
}

}  // namespace
}  // namespace ladder::blackwell

extern const ladder::detail::Step step_b06 = {
    ladder::blackwell::kStepId, ladder::detail::Arch::blackwell, "persistent",
    "grid = number of SMs; the shared static scheduler walks tiles in grouped (L2-friendly) order; TMEM and "
    "barriers set up once, phases carry across tiles (compiled for sm_100a, not run)",
    "any M >= 1; N % 8 == 0; K % 8 == 0; lda, ldb, ldd % 8 == 0 (tails: zero-filled loads, predicated "
    "stores; unverified: not run)",
    ladder::blackwell::check, ladder::blackwell::launch};
