// Hopper · the ping-pong kernel family (h10's change: the two consumer warpgroups own alternate tiles, so one's
// writeback overlaps the other's mainloop), templated on its tuning knobs, the operand type and with the fused
// epilogue applied before the TMA-store writeback. Used by h10 and `best`. See 10_pingpong.cu.
#pragma once
#include <cooperative_groups.h>

#include <algorithm>
#include <string>

#include "device/mbarrier.cuh"
#include "device/pipeline.hpp"
#include "device/scheduler.hpp"
#include "device/smem.cuh"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "hopper/epilogue.cuh"
#include "hopper/families.hpp"
#include "hopper/tile.cuh"
#include "runtime/launch.cuh"
#include "runtime/runtime.hpp"
#include "step.hpp"

namespace ladder::hopper::pingpong {
// NOTE: only src/hopper/pingpong.cu includes this header (steps call it through families.hpp), so each kernel
// has one copy. Internal linkage keeps it that way: when two steps once instantiated the same kernel in two
// translation units, a shared (weak) host stub plus a shared "attribute already set" flag left one copy without
// its SMEM limit raised ("invalid argument" at launch, depending on which step ran first).
namespace {

namespace cg = cooperative_groups;

// Tuning knobs: CTAs per cluster along M (sharing B), ring depth, the consumer tile (TILE_M × TILE_N, one
// 64-row wgmma fragment per 64 rows), the scheduler's group height (in cluster tiles), and the writeback's SMEM
// tiles: one per consumer (h10), or one the consumers take in turn (best's deeper ring; plain GEMMs only, since
// beta·C lands in a consumer's tile before its mainloop).
template <int CLUSTER_M_, int STAGES_, int TILE_M_, int TILE_N_, int GROUP_M_ = 8, int DTILES_ = 2>
struct Config {
  static constexpr int CLUSTER_M = CLUSTER_M_, STAGES = STAGES_, TILE_M = TILE_M_, TILE_N = TILE_N_, GROUP_M = GROUP_M_;
  static constexpr int DTILES = DTILES_;
  static_assert(DTILES == 1 || DTILES == 2, "one writeback tile a consumer, or one shared");
  static constexpr int FRAGS = TILE_M / WGMMA_M;
  static constexpr int kConsumers = 2;
  static constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;
  static constexpr uint32_t kStageBytes = (TILE_M + TILE_N) * BLK_K * sizeof(__half);
  static constexpr int CLUSTER_N = 1;                 // CTAs per cluster along N (sharing A): none here
  static constexpr int B_SLICE = TILE_N / CLUSTER_M;  // B rows each CTA loads (and multicasts)
  static constexpr int A_SLICE = TILE_M;              // A rows each CTA loads
  static_assert(TILE_M % 64 == 0 && TILE_N % 64 == 0 && TILE_M * TILE_N <= 128 * 128,
                "a consumer holds TILE_M × TILE_N fp32 in ≤ 128 registers per thread");
  static_assert(B_SLICE % 8 == 0, "B slices are whole 8-row swizzle atoms");
  // SwiGLU halves the output tile (gate and up slices of one cluster): it must stay whole 64-column store boxes.
  static constexpr bool kTakesSwiglu = (TILE_N / 2) % 64 == 0;

  struct SharedStorage {
    alignas(1024) __half A[STAGES][TILE_M * BLK_K];              // STAGES × (TILE_M, BLK_K)
    alignas(1024) __half B[STAGES][TILE_N * BLK_K];              // STAGES × (TILE_N, BLK_K): a slice from each CTA
    alignas(1024) __half Dtile[DTILES][TILE_M * TILE_N];         // per consumer (or shared): (TILE_M, TILE_N) SW128 image
    uint64_t full_bar[STAGES];
    uint64_t empty_bar[STAGES];
    uint64_t turn_bar[kConsumers];  // consumer c may start its next mainloop (the ordered hand-over)
    uint64_t c_bar[kConsumers];     // beta·C's box has landed in Dtile[c] (CTile)
    uint64_t dtile_bar;             // DTILES 1: the shared Dtile's last store has read it (once a tile)
  };
  static constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;
  static_assert(kSmemBytes <= 227 * 1024, "SMEM budget");
};

// T: the operands' (and D's) type. `out_cols`: D's columns (N, or N/2 with SwiGLU). F: the epilogue compiled in
// (none for the plain GEMM; device/epilogue_op.hpp).
// NOTE: measured, 2026-12-01: with every epilogue compiled in (and skipped at run time: `epi.active` false) the
// kernel's code grew from ~12 KB to ~330 KB and the plain GEMM lost 8-9 % of cuBLAS at 4096³ and 8192³, with the
// same mainloop SASS and registers (docs/results/dev/2026-12-01-s4-pingpong-fix/). The two consumers run
// different code at once, one its mainloop, the other its writeback.
template <class Cfg, class T, Fused F>
__global__ void __cluster_dims__(Cfg::CLUSTER_M, 1, 1) __launch_bounds__(Cfg::kThreads, 1)
    pingpong_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
                    const __grid_constant__ CUtensorMap tmap_d, const __grid_constant__ CUtensorMap tmap_c, int M,
                    int out_cols, int K, const Epilogue epi) {
  constexpr int CLUSTER_M = Cfg::CLUSTER_M, STAGES = Cfg::STAGES, TILE_M = Cfg::TILE_M, TILE_N = Cfg::TILE_N;
  constexpr int kConsumers = Cfg::kConsumers, B_SLICE = Cfg::B_SLICE;
  using SharedStorage = typename Cfg::SharedStorage;
  extern __shared__ uint8_t smem_raw[];
  auto& s = align_smem<SharedStorage>(smem_raw);
  const cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int wg = threadIdx.x / kWarpgroupThreads;

  if (threadIdx.x == 0) {
    tma_prefetch_map(&tmap_a);  // the mainloop's descriptors, fetched during the setup (device/tma.cuh)
    tma_prefetch_map(&tmap_b);
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);
      mbarrier_init(&s.empty_bar[st], CLUSTER_M * kWarpgroupThreads / 32);  // one consumer WG per CTA reads a stage
    }
    for (int c = 0; c < kConsumers; ++c) mbarrier_init(&s.turn_bar[c], kWarpgroupThreads / 32);
    for (int c = 0; c < kConsumers; ++c) mbarrier_init(&s.c_bar[c], 1);
    if constexpr (Cfg::DTILES == 1) mbarrier_init(&s.dtile_bar, 1);
    fence_barrier_init();
  }
  cluster.sync();
  // A programmatic dependent launch (best) may start while the previous kernel runs: wait for it before any
  // global read or write. A no-op otherwise (h10).
  cudaGridDependencySynchronize();

  constexpr bool kSwiglu = F == Fused::swiglu;
  static_assert(F != Fused::any, "one epilogue per kernel copy");
  static_assert(Cfg::DTILES == 2 || F == Fused::none, "a shared Dtile takes a plain GEMM (no beta·C loaded early)");
  const int half = kSwiglu ? epi.half : 0;  // SwiGLU: the up rows' offset in B
  const int tiles_m = (M + TILE_M - 1) / TILE_M;
  const int out_tile_n = kSwiglu ? TILE_N / 2 : TILE_N;  // SwiGLU: the gate half's columns
  const TileScheduler sched{(tiles_m + CLUSTER_M - 1) / CLUSTER_M, (out_cols + out_tile_n - 1) / out_tile_n, Cfg::GROUP_M};
  const int cluster_id = blockIdx.x / CLUSTER_M, clusters = gridDim.x / CLUSTER_M;
  const int k_tiles = (K + BLK_K - 1) / BLK_K;

  if (wg == 0) {
    sm90::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      PipelineState<STAGES> load;
      for (int tile = cluster_id; tile < sched.num_tiles(); tile += clusters) {
        int cm, tn;
        sched.tile(tile, cm, tn);
        const int m_st = (cm * CLUSTER_M + rank) * TILE_M, n_st = tn * TILE_N, n_out = tn * out_tile_n;
        // With SwiGLU (2×1 clusters only) rank 0's slice is the gate rows, rank 1's the up rows.
        const int b_row = kSwiglu ? (rank == 0 ? n_out : half + n_out) : n_st + rank * B_SLICE;
        for (int kt = 0; kt < k_tiles; ++kt) {
          mbarrier_wait(&s.empty_bar[load.stage], load.producer_phase(), "empty_bar");
          mbarrier_arrive_expect_tx(&s.full_bar[load.stage], Cfg::kStageBytes);
          tma_load_2d(s.A[load.stage], &tmap_a, kt * BLK_K, m_st, &s.full_bar[load.stage]);
          if constexpr (CLUSTER_M > 1)
            tma_load_2d_multicast(s.B[load.stage] + rank * B_SLICE * BLK_K, &tmap_b, kt * BLK_K, b_row,
                                  &s.full_bar[load.stage], (1u << CLUSTER_M) - 1);
          else
            tma_load_2d(s.B[load.stage], &tmap_b, kt * BLK_K, n_st, &s.full_bar[load.stage]);
          load.advance();
        }
      }
      // Every load of this CTA is issued: the next kernel may be launched (its CTAs wait for SMEM to free).
      cudaTriggerProgrammaticLaunchCompletion();
    }
  } else {
    sm90::setmaxnreg_inc<232>();
    const int c = wg - 1;
    float acc[Cfg::FRAGS][TILE_N / 2];  // (TILE_M, TILE_N): a whole tile per consumer
    PipelineState<STAGES> read;
    read.advance(c * k_tiles);  // consumer 1 starts at the second tile's K-tiles
    auto release = [&](uint32_t stage) {
      if (threadIdx.x % 32 == 0)
        mbarrier_arrive_each_cta(&s.empty_bar[stage], CLUSTER_M);
    };
    // NOTE: the mainloops take turns. A consumer may wait on the ring only when the other has finished its
    // waits: parity waits cannot tell phase n from phase n+2, so a waiter must be at most one lap ahead.
    uint32_t turn_phase = 0;
    const RingDescriptor ring_a(s.A[0], TILE_M * BLK_K * sizeof(__half)), ring_b(s.B[0], TILE_N * BLK_K * sizeof(__half));
    constexpr int OUT_N = kSwiglu ? TILE_N / 2 : TILE_N;  // the output tile's columns
    const bool has_c = F != Fused::none && epi.ep.beta != 0.0f, leader = threadIdx.x % kWarpgroupThreads == 0;
    CTile ct{&tmap_c, &s.c_bar[c]};
    __half* const dtile = s.Dtile[Cfg::DTILES == 1 ? 0 : c];
    int n = 0;  // this consumer's tile count
    for (int tile = cluster_id + c * clusters; tile < sched.num_tiles(); tile += kConsumers * clusters, ++n) {
      int cm, tn;
      sched.tile(tile, cm, tn);
      const int m_st = (cm * CLUSTER_M + rank) * TILE_M, n_out = tn * out_tile_n;
      // The epilogue's operands, before the mainloop: they arrive while it runs.
      BiasShare<TILE_N> bias;
      if constexpr (F != Fused::none) bias = load_bias_share<TILE_N, F>(epi, n_out, out_cols);
      if (has_c && leader) ct.load<OUT_N, Cfg::FRAGS>(dtile, m_st, n_out);
      if (c == 1 || n > 0) {
        mbarrier_wait(&s.turn_bar[c], turn_phase, "turn_bar");
        turn_phase ^= 1;
      }
      uint32_t prev_stage = 0;
      for (int i = 0; i < k_tiles; ++i) {
        mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
        sm90::wgmma_fence();
#pragma unroll
        for (int h = 0; h < Cfg::FRAGS; ++h)
          mma_k_tile_64xN<TILE_N, T>(acc[h], ring_a.at(read.stage, h * WGMMA_M * BLK_K * sizeof(__half)),
                                     ring_b.at(read.stage), i != 0);
        sm90::wgmma_commit_group();
        sm90::wgmma_wait_group<1>();
        if (i > 0) release(prev_stage);
        prev_stage = read.stage;
        read.advance();
      }
      if (threadIdx.x % 32 == 0) mbarrier_arrive(&s.turn_bar[1 - c]);  // the other consumer's mainloop may start
      sm90::wgmma_wait_group<0>();
#pragma unroll
      for (int h = 0; h < Cfg::FRAGS; ++h) sm90::fence_operand(acc[h]);
      release(prev_stage);
      read.advance((kConsumers - 1) * k_tiles);  // the other consumer's tile
      if constexpr (F != Fused::none) apply_epilogue<TILE_N, Cfg::FRAGS, F, T>(acc, epi, bias, m_st, n_out, M, out_cols);
      // A shared Dtile: this CTA's tiles alternate between the consumers (j = 2n + c), so tile j writes it once tile
      // j - 1's stores have read it, the dtile_bar's j-th completion. The leader waits: it made completion j - 1
      // itself (tile j - 2), so a parity wait cannot pass a phase early; store_tile_tma's barrier holds the rest.
      if constexpr (Cfg::DTILES == 1)
        if (const int j = 2 * n + c; leader && j > 0)
          mbarrier_wait(&s.dtile_bar, static_cast<uint32_t>((j - 1) & 1), "dtile_bar");
      if constexpr (!kSwiglu) {
        store_tile_tma<TILE_N, Cfg::FRAGS, T>(acc, dtile, &tmap_d, m_st, n_out, /*bar_id=*/1 + c, ct, has_c,
                                              epi.ep.beta);
      } else {  // each fragment's result is in registers [0, TILE_N/4): store those as a TILE_N/2-wide tile
        static_assert(Cfg::kTakesSwiglu, "SwiGLU's output tile is whole 64-column boxes");
        float half_acc[Cfg::FRAGS][TILE_N / 4];
#pragma unroll
        for (int h = 0; h < Cfg::FRAGS; ++h)
#pragma unroll
          for (int r = 0; r < TILE_N / 4; ++r) half_acc[h][r] = acc[h][r];
        store_tile_tma<TILE_N / 2, Cfg::FRAGS, T>(half_acc, dtile, &tmap_d, m_st, n_out, /*bar_id=*/1 + c, ct,
                                                  has_c, epi.ep.beta);
      }
      if constexpr (Cfg::DTILES == 1)
        if (leader) {
          tma_store_wait_read<0>();
          mbarrier_arrive(&s.dtile_bar);
        }
    }
    if (threadIdx.x % kWarpgroupThreads == 0) tma_store_drain();
  }
  cluster.sync();
}

using ClusterKernel = void (*)(const CUtensorMap, const CUtensorMap, const CUtensorMap, const CUtensorMap, int, int, int,
                               const Epilogue);

// What a cluster kernel of this family is launched with (Cfg: CLUSTER_M × CLUSTER_N CTAs of TILE_M × TILE_N,
// A_SLICE / B_SLICE rows loaded per CTA): tensor maps for A, B (the CTA's slices), D (64×64 store boxes) and
// C (beta·C's 64×64 load boxes; D's map when there is no C), and the number of cluster tiles.
struct ClusterMaps {
  CUtensorMap a, b, d, c;
  int64_t cluster_tiles;
};
template <class Cfg>
ClusterMaps cluster_maps(const detail::Problem& p) {
  const int64_t cluster_rows = int64_t{Cfg::CLUSTER_M} * Cfg::TILE_M;
  const int64_t cluster_cols = int64_t{Cfg::CLUSTER_N} * (p.ep.swiglu ? Cfg::TILE_N / 2 : Cfg::TILE_N);
  const CUtensorMap d = make_tensor_map_2d(p.D, p.M, p.out_cols(), p.ldd, 64, 64);
  const CUtensorMapL2promotion promo = tile_operand_promotion();
  return {make_tensor_map_2d(p.A, p.M, p.K, p.lda, Cfg::A_SLICE, BLK_K, CU_TENSOR_MAP_SWIZZLE_128B, promo),
          make_tensor_map_2d(p.B, p.N, p.K, p.ldb, Cfg::B_SLICE, BLK_K, CU_TENSOR_MAP_SWIZZLE_128B, promo), d, c_map(p, d),
          ((p.M + cluster_rows - 1) / cluster_rows) * ((p.out_cols() + cluster_cols - 1) / cluster_cols)};
}

// Launches a persistent cluster kernel with one CTA per SM (at most one cluster per cluster tile).
template <class Cfg>
void launch_with(ClusterKernel kernel, const detail::Problem& p, cudaStream_t stream, bool pdl, const char* step_id) {
  constexpr int kClusterSize = Cfg::CLUSTER_M * Cfg::CLUSTER_N;
  detail::allow_dynamic_smem(reinterpret_cast<const void*>(kernel), Cfg::kSmemBytes, step_id);
  const ClusterMaps maps = cluster_maps<Cfg>(p);
  const int grid = detail::persistent_grid(reinterpret_cast<const void*>(kernel), kClusterSize, Cfg::kThreads,
                                           Cfg::kSmemBytes, maps.cluster_tiles);
  const Epilogue epi{p.ep, p.d, p.ep.swiglu ? static_cast<int>(p.N / 2) : 0, !p.ep.plain()};
  detail::launch_kernel_ex(kernel, grid, Cfg::kThreads, Cfg::kSmemBytes, stream, /*cluster_x=*/0, pdl, step_id, maps.a,
                           maps.b, maps.d, maps.c, static_cast<int>(p.M), static_cast<int>(p.out_cols()),
                           static_cast<int>(p.K), epi);
  detail::trace_launch(step_id, grid, Cfg::kThreads, Cfg::kSmemBytes, [pdl] {
    return "cluster " + std::to_string(Cfg::CLUSTER_M) + "x" + std::to_string(Cfg::CLUSTER_N) + " stages " +
           std::to_string(Cfg::STAGES) + " tile " + std::to_string(Cfg::TILE_M) + "x" + std::to_string(Cfg::TILE_N) +
           (pdl ? " pdl" : "");
  });
  detail::check_launch(step_id);
}

// The kernel copy with just this problem's epilogue compiled in. SWIGLU false: a tile that cannot take SwiGLU.
template <class Cfg, class T, bool SWIGLU>
void launch_typed(const detail::Problem& p, cudaStream_t stream, bool pdl, const char* step_id) {
  with_fused<SWIGLU>(fused_kind(p.ep), [&](auto kind) {
    launch_with<Cfg>(pingpong_kernel<Cfg, T, decltype(kind)::value>, p, stream, pdl, step_id);
  });
}
template <class Cfg>
void launch_cfg(const detail::Problem& p, cudaStream_t stream, bool pdl, const char* step_id) {
  if constexpr (Cfg::DTILES == 1) {  // the shared Dtile: the plain copy only
    if (!p.ep.plain())
      throw Error(LADDER_ERROR_INVALID_ARGUMENT, std::string(step_id) + ": the deep-ring ping-pong takes a plain GEMM");
    if (p.ab == DType::bf16) return launch_with<Cfg>(pingpong_kernel<Cfg, __nv_bfloat16, Fused::none>, p, stream, pdl, step_id);
    return launch_with<Cfg>(pingpong_kernel<Cfg, __half, Fused::none>, p, stream, pdl, step_id);
  } else {
    if (p.ab == DType::bf16) return launch_typed<Cfg, __nv_bfloat16, Cfg::kTakesSwiglu>(p, stream, pdl, step_id);
    launch_typed<Cfg, __half, Cfg::kTakesSwiglu>(p, stream, pdl, step_id);
  }
}

}  // namespace
}  // namespace ladder::hopper::pingpong
