// Hopper ladder · step 06 — persistent.
// Extends h05 by changing who decides which tile a CTA computes: the grid is the number of SMs (times the
// CTAs that fit on one), and each CTA walks tiles idx = blockIdx.x, +gridDim.x, … through a static
// scheduler in grouped (L2-friendly) order. The barriers are initialised once, and their phases carry across tiles: the pipeline cursors
// simply keep advancing.
// Gains: no CTA launch/teardown per tile, and a wave's CTAs share A and B row-bands in L2; the next
// tile's first loads are issued before this tile's writeback.
#include <algorithm>

#include "device/mbarrier.cuh"
#include "device/pipeline.hpp"
#include "device/scheduler.hpp"
#include "device/smem.cuh"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "hopper/tile.cuh"
#include "runtime/launch.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::hopper {
namespace {

constexpr std::string_view kStepId = "h06";

inline constexpr int STAGES = 3;  // 3 × 32 KB: two CTAs fit on an SM (228 KB)
inline constexpr int GROUP_M = 8;
inline constexpr uint32_t kStageBytes = (BLK_M + BLK_N) * BLK_K * sizeof(__half);
inline constexpr int kWarps = kWarpgroupThreads / 32;

struct SharedStorage {
  alignas(1024) __half A[STAGES][BLK_M * BLK_K];  // STAGES × (BLK_M, BLK_K)
  alignas(1024) __half B[STAGES][BLK_N * BLK_K];  // STAGES × (BLK_N, BLK_K)
  uint64_t full_bar[STAGES];                      // TMA → MMA: stage has landed
  uint64_t empty_bar[STAGES];                     // MMA → TMA: stage may be overwritten
};
inline constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;  // + slack to align the base to 1024
static_assert(kSmemBytes <= 227 * 1024, "SMEM budget");

__global__ void __launch_bounds__(kWarpgroupThreads) persistent_kernel(const __grid_constant__ CUtensorMap tmap_a,
                                                                       const __grid_constant__ CUtensorMap tmap_b,
                                                                       __half* D, int64_t ldd, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  auto& s = align_smem<SharedStorage>(smem_raw);
  float acc[kMHalves][kAccRegs];  // (BLK_M, BLK_N)

  if (threadIdx.x == 0) {
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);
      mbarrier_init(&s.empty_bar[st], kWarps);
    }
    fence_barrier_init();
  }
  __syncthreads();

  const TileScheduler sched{(M + BLK_M - 1) / BLK_M, (N + BLK_N - 1) / BLK_N, GROUP_M};
  const int k_tiles = (K + BLK_K - 1) / BLK_K;
  PipelineState<STAGES> load;  // the producer's cursor (thread 0 only): carries across tiles
  PipelineState<STAGES> read;  // the consumers' cursor: carries across tiles
  int m_st = 0, n_st = 0;
  auto produce = [&](int kt) {
    mbarrier_wait(&s.empty_bar[load.stage], load.producer_phase(), "empty_bar");
    mbarrier_arrive_expect_tx(&s.full_bar[load.stage], kStageBytes);
    tma_load_2d(s.A[load.stage], &tmap_a, kt * BLK_K, m_st, &s.full_bar[load.stage]);
    tma_load_2d(s.B[load.stage], &tmap_b, kt * BLK_K, n_st, &s.full_bar[load.stage]);
    load.advance();
  };

  auto start_tile = [&](int tile) {  // coordinates + the first S−1 loads of `tile`
    int tm, tn;
    sched.tile(tile, tm, tn);
    m_st = tm * BLK_M, n_st = tn * BLK_N;
    if (threadIdx.x == 0)
      for (int kt = 0; kt < STAGES - 1 && kt < k_tiles; ++kt) produce(kt);
  };

  if (blockIdx.x < sched.num_tiles()) start_tile(blockIdx.x);
  for (int tile = blockIdx.x; tile < sched.num_tiles(); tile += gridDim.x) {
    uint32_t prev_stage = 0;
    for (int i = 0; i < k_tiles; ++i) {
      mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
      sm90::wgmma_fence();
      mma_k_tile(acc, s.A[read.stage], s.B[read.stage], /*accumulate=*/i != 0);
      sm90::wgmma_commit_group();
      sm90::wgmma_wait_group<1>();
      if (i > 0 && threadIdx.x % 32 == 0) mbarrier_arrive(&s.empty_bar[prev_stage]);
      prev_stage = read.stage;
      read.advance();
      if (threadIdx.x == 0 && i + STAGES - 1 < k_tiles) produce(i + STAGES - 1);
    }
    sm90::wgmma_wait_group<0>();
    sm90::fence_operand(acc[0]);
    sm90::fence_operand(acc[1]);
    // The last K-tile's stage is free too: the next tile's loads will reuse it.
    if (threadIdx.x % 32 == 0) mbarrier_arrive(&s.empty_bar[prev_stage]);

    // Start the next tile's loads first, so they fly while this tile is written back.
    const int m_done = m_st, n_done = n_st;
    if (tile + static_cast<int>(gridDim.x) < sched.num_tiles()) start_tile(tile + gridDim.x);
    store_tile(acc, D, ldd, m_done, n_done, M, N);
  }
}

std::string check(const detail::Problem& p) { return detail::require_tma_rows(p); }

void launch(const detail::Problem& p, cudaStream_t stream) {
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, BLK_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, BLK_N, BLK_K);
  const int64_t tiles = ((p.M + BLK_M - 1) / BLK_M) * ((p.N + BLK_N - 1) / BLK_N);
  detail::launch_persistent(kStepId, persistent_kernel, {kWarpgroupThreads, kSmemBytes}, tiles, stream, ta, tb, p.D,
                            p.ldd, static_cast<int>(p.M), static_cast<int>(p.N), static_cast<int>(p.K));
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h06 = {
    ladder::hopper::kStepId, ladder::detail::Arch::hopper, "persistent",
    "grid = number of SMs; a static scheduler walks tiles in grouped (L2-friendly) order; barrier phases carry "
    "across tiles",
    "any M, N >= 1; K % 8 == 0 (16-byte rows); lda, ldb % 8 == 0", ladder::hopper::check, ladder::hopper::launch};
