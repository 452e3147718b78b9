// Hopper ladder · step 07 — warp specialization.
// Extends h06 by changing who drives each hop: a producer warpgroup only issues TMA (and gives its
// registers away with setmaxnreg.dec), two consumer warpgroups only issue wgmma and write back
// (setmaxnreg.inc). The tile grows to 128×256: each consumer owns 64×256 of it (one m64n256k16 fragment,
// 128 fp32 registers per thread), so B traffic per FLOP halves.
// Gains: the producer runs ahead across tiles without stalling the math, including during the
// consumers' writeback; twice the wgmma work per barrier round trip. Expect ≥ 80 % of cuBLAS.
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

constexpr std::string_view kStepId = "h07";

inline constexpr int TILE_M = 128, TILE_N = 256;  // this step's CTA tile (BLK_K stays 64)
inline constexpr int STAGES = 4;
inline constexpr int GROUP_M = 8;
inline constexpr int kConsumers = 2;                                 // warpgroups 1 and 2
inline constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;  // + the producer warpgroup 0
inline constexpr uint32_t kStageBytes = (TILE_M + TILE_N) * BLK_K * sizeof(__half);

struct SharedStorage {
  alignas(1024) __half A[STAGES][TILE_M * BLK_K];  // STAGES × (TILE_M, BLK_K)
  alignas(1024) __half B[STAGES][TILE_N * BLK_K];  // STAGES × (TILE_N, BLK_K)
  uint64_t full_bar[STAGES];                       // producer → consumers
  uint64_t empty_bar[STAGES];                      // consumers → producer
};
inline constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;
static_assert(kSmemBytes <= 227 * 1024, "SMEM budget");

__global__ void __launch_bounds__(kThreads, 1) warp_specialized_kernel(const __grid_constant__ CUtensorMap tmap_a,
                                                                       const __grid_constant__ CUtensorMap tmap_b,
                                                                       __half* D, int64_t ldd, int M, int N, int K) {
  extern __shared__ uint8_t smem_raw[];
  auto& s = align_smem<SharedStorage>(smem_raw);
  const int wg = threadIdx.x / kWarpgroupThreads;

  if (threadIdx.x == 0) {
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);
      mbarrier_init(&s.empty_bar[st], kConsumers * kWarpgroupThreads / 32);  // one arrival per consumer warp
    }
    fence_barrier_init();
  }
  __syncthreads();

  const TileScheduler sched{(M + TILE_M - 1) / TILE_M, (N + TILE_N - 1) / TILE_N, GROUP_M};
  const int k_tiles = (K + BLK_K - 1) / BLK_K;

  if (wg == 0) {
    // ── producer warpgroup: one thread issues every load, tile after tile ──
    sm90::setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      PipelineState<STAGES> load;
      for (int tile = blockIdx.x; tile < sched.num_tiles(); tile += gridDim.x) {
        int tm, tn;
        sched.tile(tile, tm, tn);
        for (int kt = 0; kt < k_tiles; ++kt) {
          mbarrier_wait(&s.empty_bar[load.stage], load.producer_phase(), "empty_bar");
          mbarrier_arrive_expect_tx(&s.full_bar[load.stage], kStageBytes);
          tma_load_2d(s.A[load.stage], &tmap_a, kt * BLK_K, tm * TILE_M, &s.full_bar[load.stage]);
          tma_load_2d(s.B[load.stage], &tmap_b, kt * BLK_K, tn * TILE_N, &s.full_bar[load.stage]);
          load.advance();
        }
      }
    }
  } else {
    // ── consumer warpgroups: consumer c owns rows [64c, 64c+64) of the tile ──
    sm90::setmaxnreg_inc<kConsumerRegisters>();
    const int c = wg - 1;
    float acc[TILE_N / 2];  // (64, TILE_N)
    PipelineState<STAGES> read;
    for (int tile = blockIdx.x; tile < sched.num_tiles(); tile += gridDim.x) {
      int tm, tn;
      sched.tile(tile, tm, tn);
      uint32_t prev_stage = 0;
      for (int i = 0; i < k_tiles; ++i) {
        mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
        sm90::wgmma_fence();
        mma_k_tile_64xN<TILE_N>(acc, s.A[read.stage] + c * WGMMA_M * BLK_K, s.B[read.stage], i != 0);
        sm90::wgmma_commit_group();
        sm90::wgmma_wait_group<1>();
        if (i > 0 && threadIdx.x % 32 == 0) mbarrier_arrive(&s.empty_bar[prev_stage]);
        prev_stage = read.stage;
        read.advance();
      }
      sm90::wgmma_wait_group<0>();
      sm90::fence_operand(acc);
      if (threadIdx.x % 32 == 0) mbarrier_arrive(&s.empty_bar[prev_stage]);
      store_fragment<TILE_N>(acc, D, ldd, int64_t{tm} * TILE_M + c * WGMMA_M, int64_t{tn} * TILE_N, M, N);
    }
  }
}

std::string check(const detail::Problem& p) { return detail::require_tma_rows(p); }

void launch(const detail::Problem& p, cudaStream_t stream) {
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, TILE_M, BLK_K);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, TILE_N, BLK_K);
  const int64_t tiles = ((p.M + TILE_M - 1) / TILE_M) * ((p.N + TILE_N - 1) / TILE_N);
  detail::launch_persistent(kStepId, warp_specialized_kernel, {kThreads, kSmemBytes}, tiles, stream, ta, tb, p.D,
                            p.ldd, static_cast<int>(p.M), static_cast<int>(p.N), static_cast<int>(p.K));
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h07 = {
    ladder::hopper::kStepId, ladder::detail::Arch::hopper, "warp specialization",
    "a producer warpgroup only issues TMA (setmaxnreg.dec); two consumer warpgroups (setmaxnreg.inc) each own "
    "64x256 of a 128x256 tile",
    "any M, N >= 1; K % 8 == 0 (16-byte rows); lda, ldb % 8 == 0", ladder::hopper::check, ladder::hopper::launch};
