// Hopper ladder · step 09 — multi-consumer (ping-pong).
// Extends h08 by changing who owns a tile and how the accumulator reaches GMEM. The two consumer
// warpgroups no longer split one tile: each owns whole 128×128 tiles, alternately (local tile j goes to
// consumer j % 2), so while one runs its wgmmas the other writes back. The writeback is asynchronous:
// registers → stmatrix → SW128 SMEM image → TMA store, and the consumer moves on without waiting for it.
// The 2×1 cluster still shares B (each CTA loads 64 of the 128 B rows and multicasts them).
// Gains: the tensor core no longer idles during writeback; expect ≥ 95 % of cuBLAS.
#include <cooperative_groups.h>

#include <algorithm>

#include "device/mbarrier.cuh"
#include "device/pipeline.hpp"
#include "device/scheduler.hpp"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "hopper/epilogue.cuh"
#include "hopper/tile.cuh"
#include "step.hpp"

namespace ladder::hopper {
namespace {

namespace cg = cooperative_groups;

inline constexpr int CLUSTER_M = 2;
inline constexpr int STAGES = 5;
inline constexpr int GROUP_M = 8;
inline constexpr int kConsumers = 2;
inline constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;
inline constexpr uint32_t kStageBytes = (BLK_M + BLK_N) * BLK_K * sizeof(__half);
inline constexpr int B_SLICE = BLK_N / CLUSTER_M;

struct SharedStorage {
  alignas(1024) __half A[STAGES][BLK_M * BLK_K];  // STAGES × (BLK_M, BLK_K)
  alignas(1024) __half B[STAGES][BLK_N * BLK_K];  // STAGES × (BLK_N, BLK_K): half from each CTA
  alignas(1024) __half Dtile[kConsumers][BLK_M * BLK_N];  // per consumer: (BLK_M, BLK_N) SW128 image
  uint64_t full_bar[STAGES];
  uint64_t empty_bar[STAGES];
  uint64_t turn_bar[kConsumers];  // consumer c may start its next mainloop (the ordered hand-over)
};
inline constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;
static_assert(kSmemBytes <= 227 * 1024, "SMEM budget");

__global__ void __cluster_dims__(CLUSTER_M, 1, 1) __launch_bounds__(kThreads, 1)
    pingpong_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
                    const __grid_constant__ CUtensorMap tmap_d, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  SharedStorage& s = *reinterpret_cast<SharedStorage*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t{1023});
  const cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int wg = threadIdx.x / kWarpgroupThreads;

  if (threadIdx.x == 0) {
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);
      mbarrier_init(&s.empty_bar[st], CLUSTER_M * kWarpgroupThreads / 32);  // one consumer WG per CTA reads a stage
    }
    for (int c = 0; c < kConsumers; ++c) mbarrier_init(&s.turn_bar[c], kWarpgroupThreads / 32);
    fence_barrier_init();
  }
  cluster.sync();

  const int tiles_m = (M + BLK_M - 1) / BLK_M;
  const TileScheduler sched{(tiles_m + CLUSTER_M - 1) / CLUSTER_M, (N + BLK_N - 1) / BLK_N, GROUP_M};
  const int cluster_id = blockIdx.x / CLUSTER_M, clusters = gridDim.x / CLUSTER_M;
  const int k_tiles = (K + BLK_K - 1) / BLK_K;

  if (wg == 0) {
    sm90::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      PipelineState<STAGES> load;
      for (int tile = cluster_id; tile < sched.num_tiles(); tile += clusters) {
        int cm, tn;
        sched.tile(tile, cm, tn);
        const int m_st = (cm * CLUSTER_M + rank) * BLK_M, n_st = tn * BLK_N;
        for (int kt = 0; kt < k_tiles; ++kt) {
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
    float acc[kMHalves][kAccRegs];  // (BLK_M, BLK_N): a whole tile per consumer
    PipelineState<STAGES> read;
    read.advance(c * k_tiles);  // consumer 1 starts at the second tile's K-tiles
    auto release = [&](uint32_t stage) {
      if (threadIdx.x % 32 == 0)
        for (int r = 0; r < CLUSTER_M; ++r) mbarrier_arrive_cluster(&s.empty_bar[stage], r);
    };
    // NOTE: the mainloops take turns. A consumer may wait on the ring only when the other has finished its
    // waits: parity waits cannot tell phase n from phase n+2, so a waiter must be at most one lap ahead.
    uint32_t turn_phase = 0;
    int n = 0;  // this consumer's tile count
    for (int tile = cluster_id + c * clusters; tile < sched.num_tiles(); tile += kConsumers * clusters, ++n) {
      int cm, tn;
      sched.tile(tile, cm, tn);
      const int m_st = (cm * CLUSTER_M + rank) * BLK_M, n_st = tn * BLK_N;
      if (c == 1 || n > 0) {
        mbarrier_wait(&s.turn_bar[c], turn_phase, "turn_bar");
        turn_phase ^= 1;
      }
      uint32_t prev_stage = 0;
      for (int i = 0; i < k_tiles; ++i) {
        mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
        sm90::wgmma_fence();
        mma_k_tile(acc, s.A[read.stage], s.B[read.stage], i != 0);
        sm90::wgmma_commit_group();
        sm90::wgmma_wait_group<1>();
        if (i > 0) release(prev_stage);
        prev_stage = read.stage;
        read.advance();
      }
      if (threadIdx.x % 32 == 0) mbarrier_arrive(&s.turn_bar[1 - c]);  // the other consumer's mainloop may start
      sm90::wgmma_wait_group<0>();
      sm90::fence_operand(acc[0]);
      sm90::fence_operand(acc[1]);
      release(prev_stage);
      read.advance((kConsumers - 1) * k_tiles);  // the other consumer's tile
      store_tile_tma<BLK_N, kMHalves>(acc, s.Dtile[c], &tmap_d, m_st, n_st, /*bar_id=*/1 + c);
    }
    if (threadIdx.x % kWarpgroupThreads == 0) tma_store_drain();
  }
  cluster.sync();
}

std::string check(const detail::Problem& p) {
  if (auto e = detail::require_tma_rows(p); !e.empty()) return e;
  if (p.ldd % 8 != 0) return "ldd (N when dense) must be a multiple of 8: D is written by TMA stores";
  return {};
}

void launch(const detail::Problem& p, cudaStream_t stream) {
  static const cudaError_t attr =
      cudaFuncSetAttribute(pingpong_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
  detail::check_attribute(attr, "h09");
  static const int max_clusters =
      detail::max_active_clusters(reinterpret_cast<const void*>(pingpong_kernel), CLUSTER_M, kThreads, kSmemBytes);
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, BLK_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, B_SLICE, BLK_K);
  const CUtensorMap td = make_tensor_map_2d(p.D, p.M, p.N, p.ldd, 64, 64);
  const int64_t cluster_tiles = ((p.M + CLUSTER_M * BLK_M - 1) / (CLUSTER_M * BLK_M)) * ((p.N + BLK_N - 1) / BLK_N);
  const int grid = CLUSTER_M * static_cast<int>(std::min<int64_t>(cluster_tiles, max_clusters));
  pingpong_kernel<<<grid, kThreads, kSmemBytes, stream>>>(ta, tb, td, static_cast<int>(p.M), static_cast<int>(p.N),
                                                          static_cast<int>(p.K));
  detail::trace_launch("h09", grid, kThreads, kSmemBytes, "max_active_clusters " + std::to_string(max_clusters));
  detail::check_launch("h09");
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h09 = {
    "h09", ladder::detail::Arch::hopper, "multi-consumer",
    "two consumer warpgroups own alternate 128x128 tiles (ping-pong) so one's writeback overlaps the other's "
    "wgmmas; writeback via stmatrix -> SMEM -> TMA store",
    "any M, N >= 1; K % 8 == 0; lda, ldb, ldd % 8 == 0 (TMA loads and stores)", ladder::hopper::check,
    ladder::hopper::launch};
