// Hopper ladder · step 08 — clusters.
// Extends h07 by changing how B reaches SMEM: two CTAs of a 2×1 thread-block cluster compute vertically
// adjacent 128×256 tiles that share the same 256 B rows. Each CTA loads one 128-row half of the B K-tile
// and multicasts it into both CTAs' SMEM, so B crosses L2→SMEM once per cluster instead of twice.
// Each CTA's full_bar expects the whole stage (its A + both B halves); its empty_bar counts the consumer
// warps of BOTH CTAs (a stage may be refilled only when neither CTA still reads it: remote arrives);
// a final cluster sync keeps either CTA from exiting while its peer may still touch its SMEM.
// Should gain: ~25 % less L2→SMEM traffic per FLOP; predicted a few % over h07, measured about equal
// (docs/notes.md, which also tells the .release.cluster arrive that first made it 30 % slower).
#include <cooperative_groups.h>

#include <algorithm>

#include "device/mbarrier.cuh"
#include "device/pipeline.hpp"
#include "device/scheduler.hpp"
#include "device/smem.cuh"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "hopper/tile.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::hopper {
namespace {

namespace cg = cooperative_groups;

inline constexpr int TILE_M = 128, TILE_N = 256;
inline constexpr int CLUSTER_M = 2;  // CTAs per cluster, stacked along M: they share B
inline constexpr int STAGES = 4;
inline constexpr int GROUP_M = 8;    // in cluster tiles
inline constexpr int kConsumers = 2;
inline constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;
inline constexpr uint32_t kStageBytes = (TILE_M + TILE_N) * BLK_K * sizeof(__half);  // what lands in EACH CTA
inline constexpr int B_SLICE = TILE_N / CLUSTER_M;                                    // B rows each CTA loads

struct SharedStorage {
  alignas(1024) __half A[STAGES][TILE_M * BLK_K];  // STAGES × (TILE_M, BLK_K)
  alignas(1024) __half B[STAGES][TILE_N * BLK_K];  // STAGES × (TILE_N, BLK_K): half from each CTA
  uint64_t full_bar[STAGES];
  uint64_t empty_bar[STAGES];
};
inline constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;
static_assert(kSmemBytes <= 227 * 1024, "SMEM budget");

__global__ void __cluster_dims__(CLUSTER_M, 1, 1) __launch_bounds__(kThreads, 1)
    cluster_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b, __half* D,
                   int64_t ldd, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  auto& s = align_smem<SharedStorage>(smem_raw);
  const cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int wg = threadIdx.x / kWarpgroupThreads;

  if (threadIdx.x == 0) {
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);
      mbarrier_init(&s.empty_bar[st], CLUSTER_M * kConsumers * kWarpgroupThreads / 32);  // both CTAs' consumer warps
    }
    fence_barrier_init();
  }
  cluster.sync();  // the peer's barriers are initialised before anyone multicasts or arrives remotely

  // The cluster walks cluster tiles (CLUSTER_M·TILE_M × TILE_N); this CTA takes row-block `rank` of each.
  const int tiles_m = (M + TILE_M - 1) / TILE_M;
  const TileScheduler sched{(tiles_m + CLUSTER_M - 1) / CLUSTER_M, (N + TILE_N - 1) / TILE_N, GROUP_M};
  const int cluster_id = blockIdx.x / CLUSTER_M, clusters = gridDim.x / CLUSTER_M;
  const int k_tiles = (K + BLK_K - 1) / BLK_K;

  if (wg == 0) {
    sm90::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      PipelineState<STAGES> load;
      for (int tile = cluster_id; tile < sched.num_tiles(); tile += clusters) {
        int cm, tn;
        sched.tile(tile, cm, tn);
        const int m_st = (cm * CLUSTER_M + rank) * TILE_M, n_st = tn * TILE_N;
        for (int kt = 0; kt < k_tiles; ++kt) {
          // Both CTAs' consumers have released this stage (empty_bar counts them all).
          mbarrier_wait(&s.empty_bar[load.stage], load.producer_phase(), "empty_bar");
          mbarrier_arrive_expect_tx(&s.full_bar[load.stage], kStageBytes);
          tma_load_2d(s.A[load.stage], &tmap_a, kt * BLK_K, m_st, &s.full_bar[load.stage]);
          tma_load_2d_multicast(s.B[load.stage] + rank * B_SLICE * BLK_K, &tmap_b, kt * BLK_K, n_st + rank * B_SLICE,
                                &s.full_bar[load.stage], (1u << CLUSTER_M) - 1);
          load.advance();
        }
      }
    }
  } else {
    sm90::setmaxnreg_inc<232>();
    const int c = wg - 1;
    float acc[TILE_N / 2];  // (64, TILE_N)
    PipelineState<STAGES> read;
    // Release a stage in both CTAs: the peer's producer multicasts into our SMEM too.
    auto release = [&](uint32_t stage) {
      if (threadIdx.x % 32 == 0)
        mbarrier_arrive_each_cta(&s.empty_bar[stage], CLUSTER_M);
    };
    for (int tile = cluster_id; tile < sched.num_tiles(); tile += clusters) {
      int cm, tn;
      sched.tile(tile, cm, tn);
      const int64_t m_st = int64_t{cm * CLUSTER_M + rank} * TILE_M, n_st = int64_t{tn} * TILE_N;
      uint32_t prev_stage = 0;
      for (int i = 0; i < k_tiles; ++i) {
        mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
        sm90::wgmma_fence();
        mma_k_tile_64xN<TILE_N>(acc, s.A[read.stage] + c * WGMMA_M * BLK_K, s.B[read.stage], i != 0);
        sm90::wgmma_commit_group();
        sm90::wgmma_wait_group<1>();
        if (i > 0) release(prev_stage);
        prev_stage = read.stage;
        read.advance();
      }
      sm90::wgmma_wait_group<0>();
      sm90::fence_operand(acc);
      release(prev_stage);
      store_fragment<TILE_N>(acc, D, ldd, m_st + c * WGMMA_M, n_st, M, N);
    }
  }
  cluster.sync();  // drain: no CTA leaves while its peer may still arrive on its barriers
}

std::string check(const detail::Problem& p) { return detail::require_tma_rows(p); }

void launch(const detail::Problem& p, cudaStream_t stream) {
  detail::allow_dynamic_smem(reinterpret_cast<const void*>(cluster_kernel), kSmemBytes, "h08");
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, TILE_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, B_SLICE, BLK_K);
  const int64_t cluster_tiles =
      ((p.M + CLUSTER_M * TILE_M - 1) / (CLUSTER_M * TILE_M)) * ((p.N + TILE_N - 1) / TILE_N);
  const int grid =
      detail::persistent_grid(reinterpret_cast<const void*>(cluster_kernel), CLUSTER_M, kThreads, kSmemBytes, cluster_tiles);
  cluster_kernel<<<grid, kThreads, kSmemBytes, stream>>>(ta, tb, p.D, p.ldd, static_cast<int>(p.M),
                                                         static_cast<int>(p.N), static_cast<int>(p.K));
  detail::trace_launch("h08", grid, kThreads, kSmemBytes);
  detail::check_launch("h08");
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h08 = {
    "h08", ladder::detail::Arch::hopper, "clusters",
    "a 2x1 cluster shares B: each CTA loads half of the B K-tile and TMA-multicasts it to both; empty barriers "
    "count both CTAs' consumers (remote arrives)",
    "any M, N >= 1; K % 8 == 0 (16-byte rows); lda, ldb % 8 == 0", ladder::hopper::check, ladder::hopper::launch};
