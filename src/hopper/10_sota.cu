// Hopper ladder · step 10 — sota.
// Extends h09 by changing how the kernel is chosen: a small table of configurations picked per problem
// shape. Besides h09's ping-pong kernel with other knobs (cluster size, ring depth, consumer tile), it
// has one more kernel: h08's cooperative 128×256 (or 128×192) tile (both consumers on one tile) with h09's
// asynchronous stmatrix → TMA-store writeback, which moves a third fewer L2→SMEM bytes per FLOP than
// 128×128 ping-pong tiles; on a power-limited part, fewer bytes per FLOP also means higher clocks.
// Where the last wave would leave many SMs idle, the cooperative kernel splits it stream-K style: K-tile
// units spread evenly over all clusters, partial tiles summed by the tile's owner in a fixed order.
// Which kernel and tile run is decided by an estimate of their waves (choose()).
// Should gain: a few % on large squares (measured: +0–1 % from the cooperative tile, +1.5–2.5 % more from
// stream-K at 8192³ and 8192×14336×4096; the 105 % target at 4096³ is not reached: docs/notes.md), shapes
// whose waves quantize badly (3072³: 74 → 99 %; 1536×2048×16384: 77 → 100 %; 1536²×16384: 58 → 89 %,
// the 192-wide tile and stream-K; docs/notes.md) and under-filled SMs on small
// shapes (128×64 tiles: 1024³ from ~70 % to ~100 %+).
#include <cuda/atomic>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

#include "runtime/runtime.hpp"
#include "hopper/09_pingpong.cuh"

namespace ladder::hopper {
namespace {

// ── the cooperative kernel: h08's mainloop, h09's writeback ──────────────────────────────────────────
// CLUSTER_N = 2 makes the cluster 2×2: the two CTAs of a row of the cluster also share A (each loads 64 of
// its 128 rows and multicasts them), so a CTA reads 24 KB instead of 32 KB from L2 per K-tile.
// EPI_COLS < TILE_N stages the writeback in column chunks through a smaller Dtile, leaving SMEM for a 4th
// stage. TILE_N < 256 (one m64nTILE_N wgmma per consumer) trades bytes per FLOP for a better wave count.
template <int STAGES_, int GROUP_M_, int CLUSTER_N_ = 1, int EPI_COLS_ = 256, int TILE_N_ = 256>
struct CoopConfig {
  static constexpr int CLUSTER_M = 2, CLUSTER_N = CLUSTER_N_, STAGES = STAGES_, GROUP_M = GROUP_M_;
  static constexpr int EPI_COLS = EPI_COLS_;
  static constexpr int TILE_M = 128, TILE_N = TILE_N_;
  static_assert(TILE_N % EPI_COLS == 0 && EPI_COLS % 64 == 0, "whole 64-column store boxes");
  static_assert((TILE_N / CLUSTER_M) % 8 == 0, "B slices are whole 8-row swizzle atoms");
  static constexpr int kPartialFloat4s = TILE_N / 8;  // a consumer thread's share of its 64×TILE_N fp32 fragment
  static constexpr int kConsumers = 2;  // consumer c owns rows [64c, 64c+64) of the tile
  static constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;
  static constexpr uint32_t kStageBytes = (TILE_M + TILE_N) * BLK_K * sizeof(__half);
  static constexpr int B_SLICE = TILE_N / CLUSTER_M;  // B rows this CTA loads for its cluster column
  static constexpr int A_SLICE = TILE_M / CLUSTER_N;  // A rows this CTA loads for its cluster row
  struct SharedStorage {
    alignas(1024) __half A[STAGES][TILE_M * BLK_K];
    alignas(1024) __half B[STAGES][TILE_N * BLK_K];
    alignas(1024) __half Dtile[kConsumers][WGMMA_M * EPI_COLS];  // per consumer: (64, EPI_COLS) SW128 image
    uint64_t full_bar[STAGES];
    uint64_t empty_bar[STAGES];
  };
  static constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;
  static_assert(kSmemBytes <= 227 * 1024, "SMEM budget");
};

// Stream-K's global workspace: one fp32 partial tile per (worker, CTA of the cluster, consumer) slot, stored
// thread-major (float4 q of thread t at [q][t]: coalesced), and one ready flag per slot (zeroed per launch).
struct StreamKArgs {
  StreamKScheduler sched;  // sk_tiles == 0: whole tiles only (no workspace)
  float4* partials;
  int* flags;
};

template <class Cfg>
__global__ void __cluster_dims__(Cfg::CLUSTER_M * Cfg::CLUSTER_N, 1, 1) __launch_bounds__(Cfg::kThreads, 1)
    cooperative_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
                       const __grid_constant__ CUtensorMap tmap_d, int M, int N, int K, const StreamKArgs sk) {
  constexpr int CLUSTER_M = Cfg::CLUSTER_M, CLUSTER_N = Cfg::CLUSTER_N, STAGES = Cfg::STAGES;
  constexpr int TILE_M = Cfg::TILE_M, TILE_N = Cfg::TILE_N, B_SLICE = Cfg::B_SLICE, A_SLICE = Cfg::A_SLICE;
  constexpr int kClusterSize = CLUSTER_M * CLUSTER_N;
  extern __shared__ uint8_t smem_raw[];
  auto& s = align_smem<typename Cfg::SharedStorage>(smem_raw);
  const auto cluster = cooperative_groups::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int rm = rank % CLUSTER_M, rn = rank / CLUSTER_M;  // this CTA's row and column in the cluster
  const int wg = threadIdx.x / kWarpgroupThreads;
  // Who receives what this CTA loads: its B slice goes to its cluster column, its A slice to its row.
  uint16_t b_mask = 0, a_mask = 0;
  for (int r = 0; r < CLUSTER_M; ++r) b_mask |= 1u << (r + CLUSTER_M * rn);
  for (int c = 0; c < CLUSTER_N; ++c) a_mask |= 1u << (rm + CLUSTER_M * c);

  if (threadIdx.x == 0) {
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);
      mbarrier_init(&s.empty_bar[st], kClusterSize * Cfg::kConsumers * kWarpgroupThreads / 32);  // every CTA's consumers
    }
    fence_barrier_init();
  }
  cluster.sync();

  const int tiles_m = (M + TILE_M - 1) / TILE_M, tiles_n = (N + TILE_N - 1) / TILE_N;
  const TileScheduler sched{(tiles_m + CLUSTER_M - 1) / CLUSTER_M, (tiles_n + CLUSTER_N - 1) / CLUSTER_N, Cfg::GROUP_M};
  const int cluster_id = blockIdx.x / kClusterSize;
  const int k_tiles = (K + BLK_K - 1) / BLK_K;

  if (wg == 0) {
    sm90::setmaxnreg_dec<40>();
    if (threadIdx.x == 0) {
      PipelineState<STAGES> load;
      StreamKScheduler::Piece piece;
      for (auto cur = sk.sched.start(cluster_id); sk.sched.next(cur, piece);) {
        int cm, tn;
        sched.tile(piece.tile, cm, tn);
        const int m_st = (cm * CLUSTER_M + rm) * TILE_M, n_st = (tn * CLUSTER_N + rn) * TILE_N;
        for (int kt = piece.k_begin; kt < piece.k_end; ++kt) {
          // The stage is free in every CTA this one writes into (empty_bar counts the whole cluster).
          mbarrier_wait(&s.empty_bar[load.stage], load.producer_phase(), "empty_bar");
          mbarrier_arrive_expect_tx(&s.full_bar[load.stage], Cfg::kStageBytes);
          if constexpr (CLUSTER_N > 1)
            tma_load_2d_multicast(s.A[load.stage] + rn * A_SLICE * BLK_K, &tmap_a, kt * BLK_K, m_st + rn * A_SLICE,
                                  &s.full_bar[load.stage], a_mask);
          else
            tma_load_2d(s.A[load.stage], &tmap_a, kt * BLK_K, m_st, &s.full_bar[load.stage]);
          tma_load_2d_multicast(s.B[load.stage] + rm * B_SLICE * BLK_K, &tmap_b, kt * BLK_K, n_st + rm * B_SLICE,
                                &s.full_bar[load.stage], b_mask);
          load.advance();
        }
      }
    }
  } else {
    sm90::setmaxnreg_inc<232>();
    const int c = wg - 1;
    float acc[1][TILE_N / 2];  // (64, TILE_N)
    PipelineState<STAGES> read;
    auto release = [&](uint32_t stage) {
      if (threadIdx.x % 32 == 0)
        mbarrier_arrive_each_cta(&s.empty_bar[stage], kClusterSize);
    };
    const int t = threadIdx.x % kWarpgroupThreads, bar_id = 1 + c;
    const bool leader = t == 0;
    auto slot = [&](int worker) { return (worker * kClusterSize + rank) * Cfg::kConsumers + c; };
    StreamKScheduler::Piece piece;
    for (auto cur = sk.sched.start(cluster_id); sk.sched.next(cur, piece);) {
      int cm, tn;
      sched.tile(piece.tile, cm, tn);
      const int m_st = (cm * CLUSTER_M + rm) * TILE_M, n_st = (tn * CLUSTER_N + rn) * TILE_N;
      uint32_t prev_stage = 0;
      for (int i = piece.k_begin; i < piece.k_end; ++i) {
        mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
        sm90::wgmma_fence();
        mma_k_tile_64xN<TILE_N>(acc[0], s.A[read.stage] + c * WGMMA_M * BLK_K, s.B[read.stage], i != piece.k_begin);
        sm90::wgmma_commit_group();
        sm90::wgmma_wait_group<1>();
        if (i > piece.k_begin) release(prev_stage);
        prev_stage = read.stage;
        read.advance();
      }
      sm90::wgmma_wait_group<0>();
      sm90::fence_operand(acc[0]);
      release(prev_stage);
      if (piece.k_begin != 0) {  // a stream-K partial (this worker's first piece): leave it for the owner
        float4* dst = sk.partials + int64_t{slot(cluster_id)} * Cfg::kPartialFloat4s * kWarpgroupThreads;
#pragma unroll
        for (int q = 0; q < Cfg::kPartialFloat4s; ++q)
          __stcg(dst + q * kWarpgroupThreads + t, make_float4(acc[0][4 * q], acc[0][4 * q + 1], acc[0][4 * q + 2], acc[0][4 * q + 3]));
        warpgroup_sync(bar_id);  // all 128 threads' stores happen before the flag
        if (leader) {
          __threadfence();
          cuda::atomic_ref<int, cuda::thread_scope_device>(sk.flags[slot(cluster_id)]).store(1, cuda::memory_order_release);
        }
        continue;
      }
      if (piece.k_end != k_tiles) {  // the owner of a split tile: add the later pieces, in worker order
        const int last = sk.sched.last_contributor(cluster_id, piece.tile);
        for (int w = cluster_id + 1; w <= last; ++w) {
          if (leader) {
            cuda::atomic_ref<int, cuda::thread_scope_device> flag(sk.flags[slot(w)]);
            while (flag.load(cuda::memory_order_acquire) == 0) {
            }
          }
          warpgroup_sync(bar_id);
          const float4* src = sk.partials + int64_t{slot(w)} * Cfg::kPartialFloat4s * kWarpgroupThreads;
#pragma unroll
          for (int q = 0; q < Cfg::kPartialFloat4s; ++q) {
            const float4 v = __ldcg(src + q * kWarpgroupThreads + t);
            acc[0][4 * q] += v.x, acc[0][4 * q + 1] += v.y, acc[0][4 * q + 2] += v.z, acc[0][4 * q + 3] += v.w;
          }
        }
      }
      // Columns [EPI_COLS·h, +EPI_COLS) of the fragment are registers [EPI_COLS/2·h, +EPI_COLS/2) (8 columns per 4).
#pragma unroll
      for (int h = 0; h < TILE_N / Cfg::EPI_COLS; ++h)
        store_tile_tma<Cfg::EPI_COLS, 1>(*reinterpret_cast<const float(*)[1][Cfg::EPI_COLS / 2]>(&acc[0][h * Cfg::EPI_COLS / 2]),
                                         s.Dtile[c], &tmap_d, m_st + c * WGMMA_M, n_st + h * Cfg::EPI_COLS, bar_id);
    }
    if (threadIdx.x % kWarpgroupThreads == 0) tma_store_drain();
  }
  cluster.sync();
}

// The fix-up cost (in K-tile times) a stream-K split must pay for: measured ≈ 13 µs ≈ 15–20 K-tiles of a
// 128×256 tile on the H200 (docs/notes.md). LADDER_STREAMK_FIXUP=<K-tiles> overrides it (tuning and
// sanitizer runs: 0 splits every partial wave, even at small K).
int streamk_fixup_units() {
  const char* v = std::getenv("LADDER_STREAMK_FIXUP");
  return v && *v ? std::max(0, std::atoi(v)) : 20;
}

// Launches the cooperative kernel on a persistent grid. With `stream_k`, the partial last wave is split
// into K-tile units over all workers where that pays (StreamKScheduler::make); the partials live in
// stream-ordered workspace from the library's pool, and the flags are zeroed on the stream first.
// Owners spin on other clusters' flags: this relies on the persistent grid being resident at once.
template <class Cfg>
void launch_coop(const detail::Problem& p, cudaStream_t stream, bool stream_k) {
  constexpr int kClusterSize = Cfg::CLUSTER_M * Cfg::CLUSTER_N;
  const auto kernel = cooperative_kernel<Cfg>;
  detail::allow_dynamic_smem(reinterpret_cast<const void*>(kernel), Cfg::kSmemBytes, "h10");
  const pingpong::ClusterMaps maps = pingpong::cluster_maps<Cfg>(p);
  // Every cluster that fits is a stream-K worker, even with fewer tiles than clusters (1536²×16384: 36 tiles,
  // 66 workers); without a split the grid shrinks to one cluster per tile.
  const int resident = detail::persistent_grid(reinterpret_cast<const void*>(kernel), kClusterSize, Cfg::kThreads,
                                               Cfg::kSmemBytes, INT32_MAX) / kClusterSize;
  const int tiles = static_cast<int>(maps.cluster_tiles), k_tiles = static_cast<int>((p.K + BLK_K - 1) / BLK_K);
  StreamKArgs sk{StreamKScheduler::make(tiles, k_tiles, resident, streamk_fixup_units()), nullptr, nullptr};
  if (!stream_k || sk.sched.sk_tiles == 0) sk.sched = {tiles, k_tiles, std::min(resident, tiles), 0, 0};
  const int workers = sk.sched.clusters, grid = workers * kClusterSize;
  const int slots = workers * kClusterSize * Cfg::kConsumers;
  const size_t partial_bytes = static_cast<size_t>(slots) * Cfg::kPartialFloat4s * kWarpgroupThreads * sizeof(float4);
  std::optional<detail::Workspace> workspace;  // freed (stream-ordered) after the kernel
  if (sk.sched.sk_tiles > 0) {
    workspace.emplace(partial_bytes + slots * sizeof(int), stream, "h10 (stream-K)");
    sk.partials = static_cast<float4*>(workspace->get());
    sk.flags = reinterpret_cast<int*>(static_cast<char*>(workspace->get()) + partial_bytes);
    detail::cuda_check(cudaMemsetAsync(sk.flags, 0, slots * sizeof(int), stream), "h10: stream-K flags");
  }
  kernel<<<grid, Cfg::kThreads, Cfg::kSmemBytes, stream>>>(maps.a, maps.b, maps.d, static_cast<int>(p.M),
                                                           static_cast<int>(p.N), static_cast<int>(p.K), sk);
  detail::trace_launch("h10", grid, Cfg::kThreads, Cfg::kSmemBytes, [&] {
    return "cooperative cluster " + std::to_string(Cfg::CLUSTER_M) + "x" + std::to_string(Cfg::CLUSTER_N) +
           " stages " + std::to_string(Cfg::STAGES) + " stream-K tiles " + std::to_string(sk.sched.sk_tiles) + " of " +
           std::to_string(maps.cluster_tiles);
  });
  detail::check_launch("h10");
}

//                                   CLUSTER_M  STAGES  TILE_M  TILE_N
using Square = pingpong::Config<      2,      5,     128,    128>;  // h09's
using Narrow = pingpong::Config<      1,      8,     128,     64>;
using NarrowPair = pingpong::Config<  2,      8,     128,     64>;
using Wide = pingpong::Config<        2,      4,      64,    256>;  // m64n256: 20 % less SMEM read per FLOP
using Coop = CoopConfig</*STAGES=*/3, /*GROUP_M=*/8>;                 // 128×256 cooperative, async writeback
using CoopG16 = CoopConfig</*STAGES=*/3, /*GROUP_M=*/16>;
using Coop2x2 = CoopConfig</*STAGES=*/3, /*GROUP_M=*/8, /*CLUSTER_N=*/2>;  // A multicast too
using Coop4 = CoopConfig</*STAGES=*/4, /*GROUP_M=*/8, /*CLUSTER_N=*/1, /*EPI_COLS=*/128>;  // deeper ring
using Coop4N192 = CoopConfig</*STAGES=*/4, /*GROUP_M=*/8, /*CLUSTER_N=*/1, /*EPI_COLS=*/192, /*TILE_N=*/192>;

// The configuration table. LADDER_H10_CONFIG=<index> forces one (for tuning runs).
enum class Pick { square = 0, narrow = 1, narrow_pair = 2, wide = 3, coop = 4, coop_g16 = 5, coop_2x2 = 6, coop_dp = 7, coop4 = 8, coop4_n192 = 9 };

Pick choose(const detail::Problem& p) {
  if (const char* forced = std::getenv("LADDER_H10_CONFIG"); forced && *forced)
    return static_cast<Pick>(std::atoi(forced) % 10);
  const int64_t tiles_128 = ((p.M + 127) / 128) * ((p.N + 127) / 128);
  const int sms = detail::sm_count();
  // Fewer 128×128 tiles than SMs: halve the tile width so every SM gets work (1024³: 64 → 128 tiles).
  if (tiles_128 < sms) return Pick::narrow_pair;
  // Otherwise the estimated time of each kernel, in units of a 256×128 cluster tile: the cooperative kernel
  // with 256-wide tiles (2 units per tile; waves or a stream-K split, StreamKScheduler) or 192-wide tiles
  // (1.5 units, whole waves only: split, they measured slower than unsplit at 1536²×16384 and 1504×1544×16000,
  // where workers at different K offsets stop sharing A and B in L2), and the ping-pong (1 unit per tile).
  // E.g. 3072³: cooperative 3 waves × 2 = 6, ping-pong 5 × 1 = 5, 192-wide 3 × 1.5 = 4.5. Ties go to the
  // 256-wide cooperative tile (fewest L2→SMEM bytes per FLOP); the 192-wide one must win by 3 % (it moves 17 %
  // more bytes per FLOP).
  const int clusters = std::max(1, sms / 2);
  const int64_t rows = (p.M + 255) / 256, k_tiles = (p.K + BLK_K - 1) / BLK_K;
  const int64_t tiles_256 = rows * ((p.N + 255) / 256), tiles_192 = rows * ((p.N + 191) / 192);
  const int64_t square_tiles = rows * ((p.N + 127) / 128);
  if (square_tiles > INT32_MAX / 2 || k_tiles > INT32_MAX) return Pick::coop4;
  const double coop = 2.0 * StreamKScheduler::make(static_cast<int>(tiles_256), static_cast<int>(k_tiles), clusters,
                                                   streamk_fixup_units()).tile_times();
  const double narrow_coop = 1.5 * static_cast<double>((tiles_192 + clusters - 1) / clusters);
  const double square = static_cast<double>((square_tiles + clusters - 1) / clusters);
  const Pick best = square < coop ? Pick::square : Pick::coop4;
  if (narrow_coop < 0.97 * std::min(square, coop)) return Pick::coop4_n192;
  // The cooperative kernel's 4-stage ring measured equal to 3 stages on large shapes and better on short ones
  // (2048³: 94–96 % vs 88–89 %; 3000×5000×2000: 91 % vs 90 %).
  return best;
}

void launch(const detail::Problem& p, cudaStream_t stream) {
  switch (choose(p)) {
    case Pick::square: return pingpong::launch<Square>(p, stream, "h10");
    case Pick::narrow: return pingpong::launch<Narrow>(p, stream, "h10");
    case Pick::narrow_pair: return pingpong::launch<NarrowPair>(p, stream, "h10");
    case Pick::wide: return pingpong::launch<Wide>(p, stream, "h10");
    case Pick::coop: return launch_coop<Coop>(p, stream, /*stream_k=*/true);
    case Pick::coop_g16: return launch_coop<CoopG16>(p, stream, false);
    case Pick::coop_2x2: return launch_coop<Coop2x2>(p, stream, false);
    case Pick::coop4: return launch_coop<Coop4>(p, stream, true);
    case Pick::coop4_n192: return launch_coop<Coop4N192>(p, stream, /*stream_k=*/false);  // see choose()
    case Pick::coop_dp: return launch_coop<Coop>(p, stream, /*stream_k=*/false);  // never split (A/B runs)
  }
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h10 = {
    "h10", ladder::detail::Arch::hopper, "sota",
    "h09's kernel with a configuration chosen per shape: 2x1 cluster + 128x128 tiles when there are enough tiles, "
    "128x64 tiles without a cluster when SMs would idle, a cooperative 128x256 or 128x192 tile (stream-K last wave) "
    "picked by estimated waves",
    "any M, N >= 1; K % 8 == 0; lda, ldb, ldd % 8 == 0 (TMA loads and stores)", ladder::hopper::pingpong::check,
    ladder::hopper::launch};
