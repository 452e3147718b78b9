// Hopper · the cooperative kernel family: both consumer warpgroups on one 128 × TILE_N tile (h08's mainloop,
// a 2×1 cluster multicasting B), written back through the TMA-store epilogue (h09) or from registers, with an
// optional stream-K split of the last wave (h11). Used by h09, h11 and `best` (which also uses it for bf16, an
// fp32 D and the fused epilogue).
#pragma once
#include <cooperative_groups.h>
#include <cuda/atomic>

#include <algorithm>
#include <optional>
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
#include "runtime/tuning.hpp"
#include "step.hpp"

namespace ladder::hopper::cooperative {
// NOTE: internal linkage, as for the ping-pong family; only src/hopper/cooperative.cu includes this header.
namespace {

// The deferred residual's two blocks of C (Config::DEFER): 64 × 64 each, SW128 as C's map loads them. Only the
// deferred copies have them (the 4-stage copies fill the SMEM).
template <bool DEFER>
struct DeferredCBlocks {};
template <>
struct DeferredCBlocks<true> {
  alignas(1024) __half c[2][64 * 64];
};

// EPI_COLS < TILE_N stages the TMA-store writeback in column chunks through a smaller Dtile, leaving SMEM for a
// 4th stage; EPI_COLS 0: the register writeback only (no staging tile). TILE_N < 256 (one m64nTILE_N wgmma per
// consumer) trades bytes per FLOP for a better wave count. CLUSTER_M 1: one CTA a cluster, for one 128-row tile of
// A (M <= 128), where a second CTA sharing B would have no rows. DEFER: an activation (GELU, SiLU, SwiGLU) or the
// residual (beta·C) runs in the producer warpgroup's idle warps while the consumers go on to the next tile
// (cooperative_kernel): the whole tile waits in Dtile, so EPI_COLS is TILE_N.
template <int STAGES_, int GROUP_M_, int EPI_COLS_ = 256, int TILE_N_ = 256, int CLUSTER_M_ = 2, bool DEFER_ = false>
struct Config {
  static constexpr int CLUSTER_M = CLUSTER_M_, STAGES = STAGES_, GROUP_M = GROUP_M_;
  static constexpr int EPI_COLS = EPI_COLS_;
  static constexpr bool DEFER = DEFER_;
  static_assert(!DEFER || EPI_COLS == TILE_N_, "a deferred activation keeps the whole tile in Dtile");
  static_assert(!DEFER || CLUSTER_M == 2, "the epilogue warps take both consumers' tiles in lockstep: both have rows");
  static constexpr bool kTmaStore = EPI_COLS > 0;  // a copy with the TMA-store writeback exists
  static constexpr int TILE_M = 128, TILE_N = TILE_N_;
  static_assert(CLUSTER_M == 1 || CLUSTER_M == 2, "B is loaded in two halves, one per CTA of a 2-CTA cluster");
  static constexpr int kEpiCols = kTmaStore ? EPI_COLS : 64;  // EPI_COLS, or a stand-in divisor without the TMA store
  static_assert(!kTmaStore || (TILE_N % kEpiCols == 0 && EPI_COLS % 64 == 0), "whole 64-column store boxes");
  static_assert(TILE_N % 16 == 0, "B's halves are whole 8-row swizzle atoms");
  static constexpr int kPartialFloat4s = TILE_N / 8;  // a consumer thread's share of its 64×TILE_N fp32 fragment
  static constexpr int kConsumers = 2;  // consumer c owns rows [64c, 64c+64) of the tile
  static constexpr int kThreads = (1 + kConsumers) * kWarpgroupThreads;
  static constexpr int kABoxes = CLUSTER_M == 1 ? 2 : 1;  // A's boxes a stage: one 64-row box per consumer at 1 CTA
  // The rows of A's box: M itself where M < 64 with one CTA a cluster (one tile row; a box's rows outside the tensor
  // cost TMA time), else TILE_M / kABoxes. The host's tensor map and the kernel's expect-tx both use this.
  static constexpr int a_box_rows(int M) { return CLUSTER_M == 1 && M < WGMMA_M ? M : TILE_M / kABoxes; }
  // B arrives in two boxes of B_SLICE rows (with SwiGLU, the gate rows and the up rows): one per CTA of a 2-CTA
  // cluster (multicast to both), or both from the one CTA.
  static constexpr int B_SLICE = TILE_N / 2;
  // SwiGLU halves the output tile: the TMA-store writeback needs whole EPI_COLS chunks of it (a deferred one stores
  // 64-column blocks of its Dtile).
  static constexpr bool kTakesSwiglu = !kTmaStore || DEFER || (TILE_N / 2) % kEpiCols == 0;
  struct SharedStorage {
    alignas(1024) __half A[STAGES][TILE_M * BLK_K];
    alignas(1024) __half B[STAGES][TILE_N * BLK_K];
    alignas(1024) __half Dtile[kConsumers][WGMMA_M * (kTmaStore ? EPI_COLS : 8)];  // per consumer: (64, EPI_COLS) SW128
    DeferredCBlocks<DEFER> cblk;
    uint64_t full_bar[STAGES];
    uint64_t empty_bar[STAGES];
    uint64_t c_bar[kConsumers];  // beta·C's chunk has landed in Dtile[c] (CTile)
    uint64_t cblk_bar[2];        // DEFER: C's block has landed in cblk.c[i] (CTile)
    // DEFER: consumer c's tile is in Dtile[c] (stash_full, with its origin in stash_at; row −1: no more tiles), and the
    // epilogue warps' store has read it (stash_empty).
    uint64_t stash_full[kConsumers];
    uint64_t stash_empty[kConsumers];
    int2 stash_at[kConsumers];
  };
  static constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;
  static_assert(kSmemBytes <= 227 * 1024, "SMEM budget");
};

// Stream-K's global workspace: one fp32 partial tile per (worker, CTA of the cluster, consumer) slot, stored
// thread-major (float4 q of thread t at [q][t]: coalesced), and one ready flag per slot (zeroed per launch).
// rows > 0 (the 1-CTA tile, a few tile rows): the schedule is row-synchronous. Its tiles are the columns of tiles, and
// CTA w is row w % rows of stream-K worker w / rows: the rows of a column take the same K-tiles at once, so B's
// K-tiles come from DRAM once and from L2 for the other rows (a piece that starts mid-tile otherwise reads B out of
// step with the other rows' pieces: once a tile row from DRAM where B outgrows the L2; docs/notes.md, s18).
struct StreamKArgs {
  StreamKScheduler sched;  // sk_tiles == 0: whole tiles only (no workspace)
  float4* partials;
  int* flags;
  int rows = 0;
};

// Where D goes: the register writeback's pointer, and the output's columns (N, or N/2 with SwiGLU).
struct Output {
  void* D;
  int64_t ldd;
  int out_cols;
  bool quads = true;  // the register writeback's 8-byte stores (store_fragment_typed); LADDER_TUNE wb=0: element pairs
};

// The epilogues a deferred copy (Config::DEFER) takes: an activation that costs more than the mainloop's idle issue
// slots hide (without beta·C: its staging tile is the whole Dtile), or the residual (act_none: alpha, bias, beta·C).
constexpr bool defers(Fused f) {
  return f == Fused::gelu_tanh || f == Fused::gelu_erf || f == Fused::silu || f == Fused::swiglu || f == Fused::act_none;
}

// T: the operands' (and D's, unless fp32) type. TMA_STORE: h09's stmatrix → SMEM → TMA-store writeback; else
// h08's, straight from registers (any ldd, any alignment, fp32 D). F: the epilogue compiled in (none for the plain
// GEMM; `any`, chosen at run time, for the register writeback; pingpong.cuh says what all of them at once cost).
template <class Cfg, class T, bool TMA_STORE, Fused F>
__global__ void __cluster_dims__(Cfg::CLUSTER_M, 1, 1) __launch_bounds__(Cfg::kThreads, 1)
    cooperative_kernel(const __grid_constant__ CUtensorMap tmap_a, const __grid_constant__ CUtensorMap tmap_b,
                       const __grid_constant__ CUtensorMap tmap_d, const __grid_constant__ CUtensorMap tmap_c, int M,
                       int K, const StreamKArgs sk,
                       const Output out, const Epilogue epi) {
  constexpr int CLUSTER_M = Cfg::CLUSTER_M, STAGES = Cfg::STAGES;
  constexpr int TILE_M = Cfg::TILE_M, TILE_N = Cfg::TILE_N, B_SLICE = Cfg::B_SLICE;
  extern __shared__ uint8_t smem_raw[];
  auto& s = align_smem<typename Cfg::SharedStorage>(smem_raw);
  const auto cluster = cooperative_groups::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());  // this CTA's row in the cluster
  const int wg = threadIdx.x / kWarpgroupThreads;
  const bool swiglu = F == Fused::swiglu || (F == Fused::any && epi.half != 0);  // constant but for `any`
  static_assert(F != Fused::swiglu || Cfg::kTakesSwiglu, "SwiGLU's output tile is whole EPI_COLS chunks");
  const int out_tile_n = swiglu ? TILE_N / 2 : TILE_N;  // output columns per tile

  // The deferred activation (Config::DEFER): the consumers leave alpha·acc + bias in Dtile[c] in D's dtype (as
  // torch's unfused GELU reads it) and go on to the next tile; warps 1-3 of the producer warpgroup, idle otherwise,
  // apply the activation there and store the tile. Measured (docs/notes.md, twentieth session): the same work in the
  // consumer warps, under their own wgmmas, slowed the mainloop more than it saved.
  // The deferred residual (act_none) likewise: the consumers leave alpha·acc + bias in Dtile[c], and the epilogue warps
  // add beta·C, brought by TMA into two 64 × 64 blocks (cblk), before storing: D is rounded twice, as torch's unfused
  // `x @ W.T + r` rounds it. Without it the cooperative kernel's consumers wait for C's second half after their
  // mainloop (+4.3-4.8 % at 2048×16384×4096, docs/notes.md, twenty-fourth session).
  constexpr bool kDefer = Cfg::DEFER && TMA_STORE && defers(F);
  constexpr bool kDeferredResidual = kDefer && F == Fused::act_none;
  if (threadIdx.x == 0) {
    tma_prefetch_map(&tmap_a);  // the mainloop's descriptors, fetched during the setup (device/tma.cuh)
    tma_prefetch_map(&tmap_b);
    if constexpr (kDefer)
      for (int c = 0; c < Cfg::kConsumers; ++c) {
        mbarrier_init(&s.stash_full[c], kWarpgroupThreads);  // each consumer thread's stmatrix, released by its arrive
        mbarrier_init(&s.stash_empty[c], 1);
      }
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);
      mbarrier_init(&s.empty_bar[st], CLUSTER_M * Cfg::kConsumers * kWarpgroupThreads / 32);  // both CTAs' consumers
    }
    for (int c = 0; c < Cfg::kConsumers; ++c) mbarrier_init(&s.c_bar[c], 1);
    if constexpr (Cfg::DEFER)
      for (int i = 0; i < 2; ++i) mbarrier_init(&s.cblk_bar[i], 1);
    fence_barrier_init();
  }
  cluster.sync();
  // A programmatic dependent launch (best) may start while the previous kernel runs: wait for it before any
  // global read or write. A no-op otherwise (h09, h11).
  cudaGridDependencySynchronize();

  const int tiles_m = (M + TILE_M - 1) / TILE_M, tiles_n = (out.out_cols + out_tile_n - 1) / out_tile_n;
  const TileScheduler sched{(tiles_m + CLUSTER_M - 1) / CLUSTER_M, tiles_n, Cfg::GROUP_M};
  const int cluster_id = blockIdx.x / CLUSTER_M;
  const int k_tiles = (K + BLK_K - 1) / BLK_K;
  // The stream-K worker this cluster is, the tile row it takes and the tile of a scheduler index (StreamKArgs::rows).
  const int worker = sk.rows > 0 ? cluster_id / sk.rows : cluster_id, worker_row = sk.rows > 0 ? cluster_id % sk.rows : 0;
  auto tile_of = [&](int t, int& cm, int& tn) {
    if (sk.rows > 0) cm = worker_row, tn = t;
    else sched.tile(t, cm, tn);
  };

  // The deferred activation's epilogue warps (et: 0-95): round r takes each consumer's r-th tile (both run the same
  // tiles), activates it in Dtile[c], stores it and frees Dtile[c]; a row of −1 ends them.
  auto epilogue_warps = [&](int et) {
    if constexpr (kDefer) {
      constexpr int kOutCols = F == Fused::swiglu ? TILE_N / 2 : TILE_N, kVectors = WGMMA_M * kOutCols / 8;
      static_assert(!kDeferredResidual || kOutCols / 64 >= 2, "the residual's first two blocks are loaded at once");
      CTile c_blocks[2] = {{&tmap_c, &s.cblk_bar[0]}, {&tmap_c, &s.cblk_bar[1]}};  // kDeferredResidual: C's two blocks
      for (uint32_t phase = 0, done = 0; !done; phase ^= 1) {
        for (int c = 0; c < Cfg::kConsumers; ++c) {
          mbarrier_wait(&s.stash_full[c], phase, "stash_full");
          const int2 at = s.stash_at[c];
          if (at.x < 0) {
            done = 1;
            continue;
          }
          if constexpr (kDeferredResidual) {
            // C's 64-column blocks through cblk.c[0] and [1]: block b + 2's load goes out once every warp has added
            // block b (a named barrier: their reads of the block are done before the TMA writes it again).
            auto load_c = [&](int b) { c_blocks[b % 2].load<64, 1>(s.cblk.c[b % 2], at.x, at.y + 64 * b); };
            if (et == 0) load_c(0), load_c(1);
            for (int b = 0; b < kOutCols / 64; ++b) {
              c_blocks[b % 2].wait();
              for (int v = et; v < 64 * 64 / 8; v += 3 * 32)
                add_c_in_smem<T>(s.Dtile[c] + b * 64 * 64, s.cblk.c[b % 2], v, epi.ep.beta);
              if (b + 2 < kOutCols / 64) {
                named_barrier_sync(1 + Cfg::kConsumers, 3 * 32);
                if (et == 0) load_c(b + 2);
              }
            }
          } else {
            for (int v = et; v < kVectors; v += 3 * 32) activate_in_smem<F, T, TILE_N>(s.Dtile[c], v);
          }
          cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // st.shared → the TMA store
          named_barrier_sync(1 + Cfg::kConsumers, 3 * 32);
          if (et == 0) {
#pragma unroll
            for (int b = 0; b < kOutCols / 64; ++b) tma_store_2d(&tmap_d, at.y + 64 * b, at.x, s.Dtile[c] + b * 64 * 64);
            tma_store_commit();
            tma_store_wait_read<0>();
            mbarrier_arrive(&s.stash_empty[c]);
          }
        }
      }
      if (et == 0) tma_store_drain();
    }
  };

  if (wg == 0) {
    sm90::setmaxnreg_dec<kProducerRegisters>();
    if (threadIdx.x == 0) {
      PipelineState<STAGES> load;
      StreamKScheduler::Piece piece;
      for (auto cur = sk.sched.start(worker); sk.sched.next(cur, piece);) {
        int cm, tn;
        tile_of(piece.tile, cm, tn);
        const int m_st = (cm * CLUSTER_M + rank) * TILE_M;
        // This CTA's B slice: rows [tn·TILE_N + rank·B_SLICE, +B_SLICE), or with SwiGLU the gate (rank 0) or up
        // (rank 1) rows of the tile's output columns.
        const int n_out = tn * out_tile_n;
        auto b_row = [&](int half) {  // B's rows of half `half` of the tile
          return swiglu ? (half == 0 ? n_out : epi.half + n_out) : tn * TILE_N + half * B_SLICE;
        };
        // A 1-CTA cluster loads A in two 64-row boxes, skips a box with no row in [0, M) (M ≤ 64), and below 64
        // tokens its box is M rows (a_box_rows).
        const int a_boxes = CLUSTER_M == 1 && M - m_st <= WGMMA_M ? 1 : Cfg::kABoxes;
        const uint32_t stage_bytes = (a_boxes * Cfg::a_box_rows(M) + TILE_N) * BLK_K * sizeof(__half);
        for (int kt = piece.k_begin; kt < piece.k_end; ++kt) {
          // The stage is free in both CTAs this one writes into (empty_bar counts the whole cluster).
          mbarrier_wait(&s.empty_bar[load.stage], load.producer_phase(), "empty_bar");
          mbarrier_arrive_expect_tx(&s.full_bar[load.stage], stage_bytes);
          for (int a = 0; a < a_boxes; ++a)
            tma_load_2d(s.A[load.stage] + a * (TILE_M / Cfg::kABoxes) * BLK_K, &tmap_a, kt * BLK_K,
                        m_st + a * (TILE_M / Cfg::kABoxes), &s.full_bar[load.stage]);
          if constexpr (CLUSTER_M == 2) {
            tma_load_2d_multicast(s.B[load.stage] + rank * B_SLICE * BLK_K, &tmap_b, kt * BLK_K, b_row(rank),
                                  &s.full_bar[load.stage], (1u << CLUSTER_M) - 1);
          } else {
            for (int h = 0; h < 2; ++h)
              tma_load_2d(s.B[load.stage] + h * B_SLICE * BLK_K, &tmap_b, kt * BLK_K, b_row(h), &s.full_bar[load.stage]);
          }
          load.advance();
        }
      }
      // Every load of this CTA is issued: the next kernel may be launched (its CTAs wait for SMEM to free).
      // NOTE: stream-K's owners spin on other CTAs' flags, which needs the whole grid resident; the next grid
      // launches only once every CTA of this one has issued this, so none of its CTAs can take a slot first.
      cudaTriggerProgrammaticLaunchCompletion();
    } else if constexpr (kDefer) {
      if (threadIdx.x >= 32) epilogue_warps(threadIdx.x - 32);  // warps 1-3: each consumer's tiles in turn
    }
  } else {
    sm90::setmaxnreg_inc<kConsumerRegisters>();
    const int c = wg - 1;
    float acc[1][TILE_N / 2];  // (64, TILE_N)
    PipelineState<STAGES> read;
    auto release = [&](uint32_t stage) {
      if (threadIdx.x % 32 == 0) mbarrier_arrive_each_cta(&s.empty_bar[stage], CLUSTER_M);
    };
    const int t = threadIdx.x % kWarpgroupThreads, bar_id = 1 + c;
    const bool leader = t == 0;
    uint32_t stash_phase = 0;  // kDefer: fills of Dtile[c] so far, mod 2
    auto slot = [&](int worker) { return (worker * CLUSTER_M + rank) * Cfg::kConsumers + c; };
    // beta·C comes through Dtile[c] by TMA with the TMA-store writeback, element by element with the other.
    const bool has_c = TMA_STORE && F != Fused::none && !kDefer && epi.ep.beta != 0.0f;  // deferred: the epilogue warps
    const bool add_c = has_c || kDeferredResidual;  // the deferred residual's last tile: C after its mainloop
    CTile ct{&tmap_c, &s.c_bar[c]};
    const RingDescriptor ring_a(s.A[0] + c * WGMMA_M * BLK_K, TILE_M * BLK_K * sizeof(__half)),
        ring_b(s.B[0], TILE_N * BLK_K * sizeof(__half));
    StreamKScheduler::Piece piece;
    for (auto cur = sk.sched.start(worker); sk.sched.next(cur, piece);) {
      int cm, tn;
      tile_of(piece.tile, cm, tn);
      const int m_st = (cm * CLUSTER_M + rank) * TILE_M, n_out = tn * out_tile_n, row0 = m_st + c * WGMMA_M;
      if (CLUSTER_M == 1 && row0 >= M) {  // no rows of A in this consumer's half (its box was not loaded): free
        for (int i = piece.k_begin; i < piece.k_end; ++i) {  // each stage for the producer, write nothing
          mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
          release(read.stage);
          read.advance();
        }
        continue;
      }
      // The epilogue's operands, before the mainloop of a piece that writes D: they arrive while it runs.
      BiasShare<TILE_N> bias;
      if constexpr (F != Fused::none)
        if (piece.k_begin == 0) bias = load_bias_share<TILE_N, F>(epi, n_out, out.out_cols);
      if (has_c && leader && piece.k_begin == 0) ct.load<Cfg::EPI_COLS, 1>(s.Dtile[c], row0, n_out);
      uint32_t prev_stage = 0;
      for (int i = piece.k_begin; i < piece.k_end; ++i) {
        mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
        sm90::wgmma_fence();
        mma_k_tile_64xN<TILE_N, T>(acc[0], ring_a.at(read.stage), ring_b.at(read.stage), i != piece.k_begin);
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
        const int last = sk.sched.last_contributor(worker, piece.tile);
        for (int v = worker + 1; v <= last; ++v) {
          const int w = sk.rows > 0 ? v * sk.rows + worker_row : v;  // worker v's CTA of this tile row
          if (leader) wait_flag_set(&sk.flags[slot(w)], "stream-K flag", w);
          warpgroup_sync(bar_id);
          const float4* src = sk.partials + int64_t{slot(w)} * Cfg::kPartialFloat4s * kWarpgroupThreads;
#pragma unroll
          for (int q = 0; q < Cfg::kPartialFloat4s; ++q) {
            const float4 v = __ldcg(src + q * kWarpgroupThreads + t);
            acc[0][4 * q] += v.x, acc[0][4 * q + 1] += v.y, acc[0][4 * q + 2] += v.z, acc[0][4 * q + 3] += v.w;
          }
        }
      }
      if constexpr (kDefer) {
        mbarrier_wait(&s.stash_empty[c], stash_phase ^ 1, "stash_empty");  // the last tile's store has read Dtile[c]
        StreamKScheduler::Piece next_piece;
        if (auto peek = cur; sk.sched.next(peek, next_piece)) {
          // alpha and bias now; the epilogue warps apply the activation or add C and store the tile under the next
          // mainloop
          apply_epilogue<TILE_N, 1, Fused::act_none, T>(acc, epi, bias, row0, n_out, M, out.out_cols);
          fragment_to_smem<TILE_N, T>(acc[0], s.Dtile[c]);
          if (leader) s.stash_at[c] = make_int2(row0, n_out);
          mbarrier_arrive(&s.stash_full[c]);
          stash_phase ^= 1;
          continue;
        }
        // The consumer's last piece: no mainloop left to hide under, and its 8 warps take the activation faster than
        // the 3 epilogue warps; the whole epilogue here (below), as without DEFER. The residual's C comes into the
        // freed Dtile[c] now (measured: through the epilogue warps, whose loads go two blocks at a time, the last
        // tile cost the MLP's down GEMM 2 % at 2048 tokens, ~2 tiles a CTA; docs/notes.md, twenty-seventh session).
        if (kDeferredResidual && leader) ct.load<TILE_N, 1>(s.Dtile[c], row0, n_out);
      }
      if constexpr (F != Fused::none)
        if (epi.active) apply_epilogue<TILE_N, 1, F, T, !TMA_STORE>(acc, epi, bias, row0, n_out, M, out.out_cols);
      if constexpr (TMA_STORE) {
        // Columns [EPI_COLS·h, +EPI_COLS) of the fragment are registers [EPI_COLS/2·h, +EPI_COLS/2) (8 columns per 4);
        // chunk h's C is loaded once chunk h − 1's stores have read the staging tile (chunk 0's: before the mainloop).
        auto store_chunk = [&](int h) {
          if (has_c && leader && h > 0) ct.load<Cfg::EPI_COLS, 1>(s.Dtile[c], row0, n_out + h * Cfg::EPI_COLS);
          store_tile_tma<Cfg::EPI_COLS, 1, T>(*reinterpret_cast<float(*)[1][Cfg::EPI_COLS / 2]>(&acc[0][h * Cfg::EPI_COLS / 2]),
                                              s.Dtile[c], &tmap_d, row0, n_out + h * Cfg::EPI_COLS, bar_id, ct,
                                              add_c, epi.ep.beta);
        };
        if (!swiglu) {
#pragma unroll
          for (int h = 0; h < TILE_N / Cfg::EPI_COLS; ++h) store_chunk(h);
        } else if constexpr (Cfg::DEFER && F == Fused::swiglu) {  // one half-width chunk (EPI_COLS is TILE_N)
          store_tile_tma<TILE_N / 2, 1, T>(*reinterpret_cast<float(*)[1][TILE_N / 4]>(&acc[0][0]), s.Dtile[c], &tmap_d,
                                           row0, n_out, bar_id, ct, false, 0.0f);
        } else if constexpr ((F == Fused::swiglu || F == Fused::any) && Cfg::kTakesSwiglu) {  // SwiGLU: the TILE_N/2 columns in registers [0, TILE_N/4)
#pragma unroll
          for (int h = 0; h < TILE_N / 2 / Cfg::EPI_COLS; ++h) store_chunk(h);
        }
      } else {
        store_fragment_typed<TILE_N, T>(acc[0], out.D, epi.d, out.ldd, row0, n_out, M, out.out_cols, swiglu, out.quads);
      }
    }
    if constexpr (kDefer) {  // no more tiles: the epilogue warps stop
      mbarrier_wait(&s.stash_empty[c], stash_phase ^ 1, "stash_empty");
      if (leader) s.stash_at[c] = make_int2(-1, 0);
      mbarrier_arrive(&s.stash_full[c]);
    }
    if constexpr (TMA_STORE)
      if (threadIdx.x % kWarpgroupThreads == 0) tma_store_drain();
  }
  cluster.sync();
}

// The most tile rows a row-synchronous schedule takes (StreamKArgs::rows): 132 SMs / 8 = 16 workers.
inline constexpr int kRowSyncMaxRows = 8;
// The fix-up estimate (StreamKScheduler::make) of a row-synchronous schedule of two or more tile rows: 8 K-tiles, not
// 20, so that it splits the last wave of more shapes. Measured 2026-12-03 (docs/results/dev/2026-12-03-s19/call2/
// fix8-summary.txt, two interleaved rounds against 20, µs): 384×37888×3584 174-181 against 190-197, 384×16384×3072
// 75-77 against 82-84, 640×9216×3072 71-72 against 80-81, 560×9216×3072 66-67 against 74-75, 384×128256×4096
// 619-627 against 640-643; the rest of the 31 shapes within the rounds' spread. With one tile row (a stream of B)
// it lost: 72×57344×8192 245-248 against 234-235, so one row keeps kStreamKFixupUnits.
inline constexpr int kRowSyncFixupUnits = 8;

// The configurations the ladder and best use.
//                   STAGES  GROUP_M  EPI_COLS  TILE_N
using Coop4 = Config<     4,       8,      128,    256>;  // 128×256, a 4-stage ring (h09, h11)
using Coop192 = Config<   4,       8,      192,    192>;  // 128×192: better wave counts for some shapes (best)
using Coop4x1 = Config<   4,       8,      128,    256,  1>;  // 128×256, one CTA a cluster (best)
// 128×256 with a deferred activation: the whole tile waits in Dtile (64 KB), which leaves SMEM for 3 stages.
using CoopDefer = Config< 3,       8,      256,    256,  2, true>;
// 128×256 with a residual (beta·C, no activation): the whole tile's C in Dtile, loaded before the mainloop, where Coop4
// loads its second 128-column chunk after the first chunk's stores (half of C read after the mainloop); the 64 KB
// Dtile leaves 3 stages, which cost the bias epilogue nothing (docs/notes.md, twentieth session: 432.6 against 431.8
// µs at 2048×16384×4096). LADDER_TUNE resc=1 (off until measured).
using CoopRes = Config<   3,       8,      256,    256>;

inline Epilogue epilogue_of(const detail::Problem& p) {
  return {p.ep, p.d, p.ep.swiglu ? static_cast<int>(p.N / 2) : 0, !p.ep.plain()};
}

// Cluster tiles (128·CLUSTER_M rows × TILE_N, or TILE_N/2 output columns with SwiGLU) of a problem.
template <class Cfg>
int64_t cluster_tiles(const detail::Problem& p) {
  const int64_t out_tile_n = p.ep.swiglu ? Cfg::TILE_N / 2 : Cfg::TILE_N;
  const int64_t rows = int64_t{Cfg::CLUSTER_M} * Cfg::TILE_M;
  return ((p.M + rows - 1) / rows) * ((p.out_cols() + out_tile_n - 1) / out_tile_n);
}

// Launches the cooperative kernel on a persistent grid. With `stream_k`, the partial last wave is split
// into K-tile units over all workers where that pays (StreamKScheduler::make); the partials live in
// stream-ordered workspace from the library's pool, and the flags are zeroed on the stream first.
// Owners spin on other clusters' flags: this relies on the persistent grid being resident at once.
template <class Cfg, class T, bool TMA_STORE, Fused F>
void launch_typed(const detail::Problem& p, cudaStream_t stream, bool stream_k, bool pdl, const char* step_id) {
  constexpr int kClusterSize = Cfg::CLUSTER_M;
  const auto kernel = cooperative_kernel<Cfg, T, TMA_STORE, F>;
  detail::allow_dynamic_smem(reinterpret_cast<const void*>(kernel), Cfg::kSmemBytes, step_id);
  const CUtensorMapL2promotion promo = tile_operand_promotion();
  const CUtensorMap ta = make_tensor_map_2d(p.A, p.M, p.K, p.lda, Cfg::a_box_rows(static_cast<int>(p.M)), BLK_K,
                                            CU_TENSOR_MAP_SWIZZLE_128B, promo);
  const CUtensorMap tb = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, Cfg::B_SLICE, BLK_K, CU_TENSOR_MAP_SWIZZLE_128B, promo);
  const CUtensorMap td = TMA_STORE ? make_tensor_map_2d(p.D, p.M, p.out_cols(), p.ldd, 64, 64) : ta;  // unused if not
  const CUtensorMap tc = TMA_STORE ? c_map(p, td) : ta;
  // Every cluster that fits is a stream-K worker, even with fewer tiles than clusters (1536²×16384: 36 tiles,
  // 66 workers), up to 8 a tile where a tile is cut into many pieces; without a split the grid shrinks to one
  // cluster per tile.
  const int resident = detail::persistent_grid(reinterpret_cast<const void*>(kernel), kClusterSize, Cfg::kThreads,
                                               Cfg::kSmemBytes, INT32_MAX) / kClusterSize;
  const int tiles = static_cast<int>(cluster_tiles<Cfg>(p)), k_tiles = static_cast<int>((p.K + BLK_K - 1) / BLK_K);
  static_assert(Cfg::CLUSTER_M * Cfg::TILE_M == 256 || Cfg::CLUSTER_M == 1, "stream_k_many_pieces counts 256-row cluster tiles");
  // One CTA a cluster: many pieces wherever there are fewer tiles than SMs (each CTA reads its own B).
  const bool many = Cfg::CLUSTER_M == 1 || stream_k_many_pieces(p);
  // The 1-CTA tile with a few tile rows: a row-synchronous schedule over the columns (StreamKArgs::rows).
  const int tile_rows = static_cast<int>((p.M + Cfg::TILE_M - 1) / Cfg::TILE_M);
  const int rows = Cfg::CLUSTER_M == 1 && stream_k && tile_rows <= kRowSyncMaxRows ? tile_rows : 0;
  const int fixup = detail::tuning().fixup >= 0 ? detail::tuning().fixup
                    : rows > 1                  ? kRowSyncFixupUnits
                                                : kStreamKFixupUnits;
  const int units = rows > 0 ? tiles / rows : tiles, unit_workers = rows > 0 ? resident / rows : resident;
  StreamKArgs sk{StreamKScheduler::make(units, k_tiles, unit_workers, fixup, many), nullptr, nullptr, rows};
  if (!stream_k || sk.sched.sk_tiles == 0) sk.sched = {units, k_tiles, std::min(unit_workers, units), 0, 0};
  const int workers = sk.sched.clusters * std::max(rows, 1), grid = workers * kClusterSize;
  const int slots = workers * kClusterSize * Cfg::kConsumers;
  const size_t partial_bytes = static_cast<size_t>(slots) * Cfg::kPartialFloat4s * kWarpgroupThreads * sizeof(float4);
  std::optional<detail::Workspace> workspace;  // freed (stream-ordered) after the kernel
  if (sk.sched.sk_tiles > 0) {
    workspace.emplace(partial_bytes + slots * sizeof(int), stream, std::string(step_id) + " (stream-K)");
    sk.partials = static_cast<float4*>(workspace->get());
    sk.flags = reinterpret_cast<int*>(static_cast<char*>(workspace->get()) + partial_bytes);
    detail::cuda_check(cudaMemsetAsync(sk.flags, 0, slots * sizeof(int), stream), "stream-K flags");
  }
  const Output out{p.D, p.ldd, static_cast<int>(p.out_cols()), detail::tuning().wb != 0};
  detail::launch_kernel_ex(kernel, grid, Cfg::kThreads, Cfg::kSmemBytes, stream, /*cluster_x=*/0, pdl, step_id, ta, tb, td,
                           tc, static_cast<int>(p.M), static_cast<int>(p.K), sk, out, epilogue_of(p));
  detail::trace_launch(step_id, grid, Cfg::kThreads, Cfg::kSmemBytes, [&] {
    return "cooperative 128x" + std::to_string(Cfg::TILE_N) + " cluster " + std::to_string(Cfg::CLUSTER_M) + " stages " +
           std::to_string(Cfg::STAGES) +
           (TMA_STORE ? " tma-store" : " register-store") + (Cfg::DEFER ? F == Fused::act_none ? " deferred-residual" : " deferred-activation" : "") + " stream-K tiles " +
           std::to_string(sk.sched.sk_tiles * std::max(rows, 1)) + " of " + std::to_string(tiles) +
           (rows > 0 ? " rows " + std::to_string(rows) : "") + (pdl ? " pdl" : "");
  });
  detail::check_launch(step_id);
}

// The TMA-store writeback: the kernel copy with just this problem's epilogue compiled in.
template <class Cfg, class T>
void launch_tma_store(const detail::Problem& p, cudaStream_t stream, bool stream_k, bool pdl, const char* step_id) {
  with_fused<Cfg::kTakesSwiglu>(fused_kind(p.ep), [&](auto kind) {
    launch_typed<Cfg, T, true, decltype(kind)::value>(p, stream, stream_k, pdl, step_id);
  });
}
// The deferred copies (Config::DEFER), with the TMA-store writeback: an activation without beta·C (LADDER_TUNE defer=1
// or 2, the default), and beta·C without an activation (defer=2). Measured 2026-12-05 (docs/results/dev/2026-12-05-s27/
// call4/summary.txt, H200, rounds 2 1 1 2): the residual over the plain GEMM +4.4-4.6 % → +1.5-1.8 % at
// 2048×16384×4096 and +1.4-1.5 % → +1.1-1.4 % at 2048×4096×14336, fp16 and bf16.
inline bool deferrable(const detail::Problem& p, bool tma_store) {
  const Fused kind = fused_kind(p.ep);
  if (!tma_store || !defers(kind)) return false;
  return kind == Fused::act_none ? detail::tuning().defer == 2 && p.ep.beta != 0.0f
                                 : detail::tuning().defer != 0 && p.ep.beta == 0.0f;
}
template <class Cfg, class T>
void launch_deferred(const detail::Problem& p, cudaStream_t stream, bool stream_k, bool pdl, const char* step_id) {
  switch (fused_kind(p.ep)) {
    case Fused::gelu_tanh: return launch_typed<Cfg, T, true, Fused::gelu_tanh>(p, stream, stream_k, pdl, step_id);
    case Fused::gelu_erf: return launch_typed<Cfg, T, true, Fused::gelu_erf>(p, stream, stream_k, pdl, step_id);
    case Fused::silu: return launch_typed<Cfg, T, true, Fused::silu>(p, stream, stream_k, pdl, step_id);
    case Fused::swiglu: return launch_typed<Cfg, T, true, Fused::swiglu>(p, stream, stream_k, pdl, step_id);
    case Fused::act_none: return launch_typed<Cfg, T, true, Fused::act_none>(p, stream, stream_k, pdl, step_id);
    default: throw Error(LADDER_ERROR_INVALID_ARGUMENT, std::string(step_id) + ": internal: no deferred copy of this epilogue");
  }
}

// By operand type. `tma_store` false: the register writeback (fp32 D, or D that TMA cannot store): one copy.
template <class Cfg>
void launch_cfg(const detail::Problem& p, cudaStream_t stream, bool stream_k, bool tma_store, bool pdl,
                const char* step_id) {
  if (p.ab == DType::bf16) {
    if (tma_store) return launch_tma_store<Cfg, __nv_bfloat16>(p, stream, stream_k, pdl, step_id);
    return launch_typed<Cfg, __nv_bfloat16, false, Fused::any>(p, stream, stream_k, pdl, step_id);
  }
  if (tma_store) return launch_tma_store<Cfg, __half>(p, stream, stream_k, pdl, step_id);
  launch_typed<Cfg, __half, false, Fused::any>(p, stream, stream_k, pdl, step_id);
}

}  // namespace
}  // namespace ladder::hopper::cooperative
