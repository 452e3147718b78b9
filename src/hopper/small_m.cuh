// Hopper · the small-M kernel family (decode, M ≤ ~64 tokens, and few-tile shapes up to M ≈ 512).
// Used by h12, h13 and `best`.
//
// At small M the GEMM is a stream of B (the weights, N×K): its floor is 2·N·K bytes over the read bandwidth,
// and the tensor core idles whatever the tile. So the kernel is built around the stream:
//   • operands swapped: Dᵀ = B·Aᵀ. 64 weight rows per consumer warpgroup fill wgmma's M side, the few
//     tokens its N side (m64nN_TOKk16, N_TOK = 8…128): no MMA row is padding, only token columns are;
//   • the K range is split over the CTAs of a cluster, so every SM streams a share of B whatever N is;
//   • the TMA ring fills the SMEM a CTA can have (its depth is a launch parameter), so each SM keeps
//     as many bytes in flight as it can hold; the weights, read once, come with 128-B L2 promotion and, for
//     large matrices, an evict-first hint (launch_cfg: measured, docs/notes.md "Eighth session");
//   • the partial tiles are summed across the cluster through distributed shared memory, in rank order
//     (the same bits on every run), and the sum goes through the fused epilogue to D in one store.
//     No workspace, no second kernel (cuBLAS's split-K adds a 3.4 µs reduce kernel at these shapes).
// With two consumers (128 weight rows × 128 tokens, several token tiles above 128 tokens) the same kernel is a
// 128×128-tile GEMM with a cluster split-K, for shapes with too few tiles to fill the GPU. There L2's output, not
// HBM, sets the time, so two token tiles share a cluster and each weight stage arrives by TMA multicast (MCAST = 2,
// where every cluster fits at once: make_plan).
// Programmatic dependent launch (h13): the kernel waits for the previous grid (griddepcontrol.wait) before
// its first global read, and lets the next one start once its mainloop is done.
#pragma once
#include <cooperative_groups.h>
#include <cuda/ptx>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>

#include "device/elect.cuh"
#include "device/epilogue_op.hpp"
#include "device/mbarrier.cuh"
#include "device/named_barrier.cuh"
#include "device/pipeline.hpp"
#include "device/split_reduce.hpp"
#include "device/smem.cuh"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "hopper/families.hpp"
#include "hopper/tile.cuh"
#include "runtime/launch.cuh"
#include "step.hpp"
#include "runtime/tuning.hpp"

namespace ladder::hopper::small_m {
// NOTE: internal linkage, as for the ping-pong family; only src/hopper/small_m.cu includes this header.
namespace {

namespace cg = cooperative_groups;

// T: __half or __nv_bfloat16. CONSUMERS: warpgroups of 64 weight rows each. N_TOK: tokens per tile (wgmma's N).
// NACC: independent accumulator sets the k16 slices alternate between (two dependency chains instead of one).
// MCAST: token tiles a cluster holds, each weight stage multicast to them (2: the two-consumer tiles and the 64×64
// tile only; a compile-time choice, so that the other kernels are the code they were: a run-time switch slowed the
// 1-16-token streams by 1-4 %, H100, dev/2026-12-05-s29/call12-h100/).
template <class T, int CONSUMERS_, int N_TOK_, int NACC_ = 1, int MCAST_ = 1>
struct Config {
  using Elem = T;
  static constexpr int CONSUMERS = CONSUMERS_, N_TOK = N_TOK_, NACC = NACC_, MCAST = MCAST_;
  // The tiles compiled with a multicast copy: each CTA of the pair loads one of a stage's two weight boxes (the
  // consumers' 64-row halves, or the 64-row tile's two 32-row halves) into both rings.
  static constexpr bool kCanMulticast = CONSUMERS == 2 || N_TOK == 64;
  static_assert(MCAST == 1 || (MCAST == 2 && kCanMulticast), "a multicast copy only of the tiles compiled with one");
  using Multicast = Config<T, CONSUMERS_, N_TOK_, NACC_, 2>;
  static constexpr int W_ROWS = CONSUMERS * WGMMA_M;  // weight rows per CTA: wgmma's M side
  static constexpr int HALF_ROWS = W_ROWS / 2;        // B arrives in two boxes (SwiGLU: gate rows, up rows)
  static constexpr int kThreads = CONSUMERS * kWarpgroupThreads + 32;  // + one producer warp
  static constexpr uint32_t kWBytes = W_ROWS * BLK_K * sizeof(T), kXBytes = N_TOK * BLK_K * sizeof(T);
  static constexpr uint32_t kStageBytes = kWBytes + kXBytes;
  static constexpr int kPartialStride = W_ROWS + 4;  // floats per token row of a partial tile: +4 spreads banks
  static constexpr uint32_t kPartialBytes = N_TOK * kPartialStride * sizeof(float);
  // Dynamic SMEM of a launch with `stages` stages: [W ring | X ring | full_bar | empty_bar | recv_bar], 1024-B
  // aligned rings (SW128). After the mainloop the rings hold this CTA's fp32 partial tile, (N_TOK, W_ROWS)
  // token-major, and with post=3 or 4 the slots its peers push after it (launch_cfg checks they fit). What follows
  // the stages' barriers (kTailBytes: recv_bar) lies in the alignment's slack: the base is 16-B aligned, so aligning
  // it to 1024 B uses at most 1008 of kSlackBytes.
  static constexpr size_t kStageBarrierBytes = 2 * sizeof(uint64_t);  // full_bar, empty_bar
  static constexpr size_t kTailBytes = sizeof(uint64_t);              // recv_bar
  static constexpr size_t kSlackBytes = 1024;
  static_assert(kSlackBytes >= 1008 + kTailBytes, "the barriers after the stages' fit the alignment's slack");
  static constexpr size_t smem_bytes(int stages) {
    return static_cast<size_t>(stages) * (kStageBytes + kStageBarrierBytes) + kSlackBytes;
  }
  static constexpr int min_stages() { return std::max<int>(2, (kPartialBytes + kStageBytes - 1) / kStageBytes); }
};

// NOTE: a field added at the end of Args (a measurement knob's int, thirtieth session) changed the code of every small-M
// kernel, none of which read it: their reduce unrolled less, 0.3 µs slower on the split rows (H100, a b b a). After any
// change here, compare the kernels' SASS with the build before (scripts/sass_compare.py).
struct Args {
  int M, K;
  int out_cols;  // D's columns: N, or I with SwiGLU
  int half;      // SwiGLU: I (B's first up row); 0 otherwise
  int stages;    // ring depth
  void* D;
  int64_t ldd;
  DType d;
  EpilogueParams ep;
  int b_prefetch;  // PDL: the first stages' weights load before the previous kernel has finished
  int l2evict;     // the weights' loads carry an L2 evict-first hint
  uint32_t stage_bytes;       // a stage's TMA bytes: the weights' boxes and the token box (N_TOK × BLK_K)
  uint32_t stage_bytes_tail;  // the same for the last token tile, whose box is its rows only (tmap_x_tail)
  int lone_sync;              // split 1: CTA barriers instead of cluster barriers around the reduce (LADDER_TUNE post=0 or 2: off)
  int one_w_box;              // the weights of a stage arrive in one W_ROWS-row box (tmap_w's box), not two halves
  int relax_exit;             // the cluster barrier before exit arrives relaxed (LADDER_TUNE relax=1)
  int push;                   // split > 1: the partials pushed to their owners by bulk copy (LADDER_TUNE post=3 or 4)
};

template <class T>
__device__ __forceinline__ void store4(void* D, DType d, int64_t idx, const float (&v)[4], int valid, bool vector) {
  if (d == DType::f32) {
    float* p = static_cast<float*>(D) + idx;
    if (vector) *reinterpret_cast<float4*>(p) = make_float4(v[0], v[1], v[2], v[3]);
    else for (int e = 0; e < valid; ++e) p[e] = v[e];
  } else {
    T* p = static_cast<T*>(D) + idx;
    if (vector) {
      T h[4] = {static_cast<T>(v[0]), static_cast<T>(v[1]), static_cast<T>(v[2]), static_cast<T>(v[3])};
      *reinterpret_cast<uint2*>(p) = *reinterpret_cast<const uint2*>(h);
    } else {
      for (int e = 0; e < valid; ++e) p[e] = static_cast<T>(v[e]);
    }
  }
}

// F: what is compiled in after the mainloop: Fused::none, the plain GEMM (D = the sum of the partials), or
// Fused::any, the fused epilogue chosen at run time. The plain copy's reduce has no per-element switch: with it, the
// reduce-scatter was ~25 % of the kernel's stall samples at 64×14336×4096 (docs/notes.md, fourteenth session).
template <class Cfg, Fused F>
__global__ void __launch_bounds__(Cfg::kThreads)
    small_m_kernel(const __grid_constant__ CUtensorMap tmap_w, const __grid_constant__ CUtensorMap tmap_x,
                   const __grid_constant__ CUtensorMap tmap_x_tail,
                   const Args args) {
  using T = typename Cfg::Elem;
  constexpr int N_TOK = Cfg::N_TOK, W_ROWS = Cfg::W_ROWS, HALF_ROWS = Cfg::HALF_ROWS, S = Cfg::kPartialStride;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* const smem = align_smem_bytes(smem_raw);
  const int stages = args.stages;
  T* const W = reinterpret_cast<T*>(smem);                                   // stages × (W_ROWS, BLK_K)
  T* const X = reinterpret_cast<T*>(smem + static_cast<size_t>(stages) * Cfg::kWBytes);  // stages × (N_TOK, BLK_K)
  uint64_t* const full_bar = reinterpret_cast<uint64_t*>(smem + static_cast<size_t>(stages) * Cfg::kStageBytes);
  uint64_t* const empty_bar = full_bar + stages;
  uint64_t* const recv_bar = empty_bar + stages;  // push: the peers' copies into this CTA's receive slots
  const cg::cluster_group cluster = cg::this_cluster();
  // The cluster: MCAST token tiles (1 or 2) of `split` CTAs each. `rank` is this CTA's K share; `base` is the
  // cluster rank of its token tile's first share, `peer` that of the same share of the other token tile.
  constexpr int MCAST = Cfg::MCAST;
  const int split = static_cast<int>(cluster.num_blocks()) / MCAST, crank = static_cast<int>(cluster.block_rank());
  const int rank = MCAST > 1 ? crank % split : crank, pair = MCAST > 1 ? crank / split : 0, base = pair * split;
  const uint32_t peer = static_cast<uint32_t>((1 - pair) * split + rank);

  // This cluster's tile: tokens [token0, +N_TOK) × output columns [out0, +out_tile); this CTA's K range.
  const int token0 = static_cast<int>(blockIdx.x / split) * N_TOK;
  const int out_tile = args.half ? HALF_ROWS : W_ROWS;
  const int out0 = static_cast<int>(blockIdx.y) * out_tile;
  const int w_row0 = out0, w_row1 = args.half ? args.half + out0 : out0 + HALF_ROWS;
  const int k_tiles = (args.K + BLK_K - 1) / BLK_K;
  const int kb = rank * k_tiles / split, ke = (rank + 1) * k_tiles / split;
  // The last token tile loads only its rows (tmap_x_tail's box), and its stages expect that many bytes.
  const bool tail = token0 + N_TOK >= args.M;
  const uint32_t stage_bytes = tail ? args.stage_bytes_tail : args.stage_bytes;

  if (threadIdx.x == 0) {
    // The maps' descriptors, fetched while the barriers are set up (and, with PDL, while the previous kernel ends):
    // here, not in the producer, whose lane-0 loop's code the compiler rearranges around any addition.
    tma_prefetch_map(&tmap_w);
    tma_prefetch_map(tail ? &tmap_x_tail : &tmap_x);
    for (int st = 0; st < stages; ++st) {
      mbarrier_init(&full_bar[st], 1);
      mbarrier_init(&empty_bar[st], MCAST * Cfg::CONSUMERS * kWarpgroupThreads / 32);  // every consumer warp
    }
    if (args.push) mbarrier_init(recv_bar, 1);  // here, off the tail, where nothing else is in flight
    fence_barrier_init();
  }
  // With multicast the peer's loads and arrivals reach this CTA's barriers: they must be initialized first.
  if constexpr (MCAST > 1) cluster.sync();
  else __syncthreads();

  // Warp-uniform by construction (a warp never straddles warpgroups); the shuffle lets the compiler see it, so the
  // role branch and the descriptors below stay in uniform registers.
  const int wg = __shfl_sync(0xffffffffu, static_cast<int>(threadIdx.x) / kWarpgroupThreads, 0);
  if (wg == Cfg::CONSUMERS) {  // the producer warp: one lane issues every TMA
    // Who runs the loop. With lane 0 alone the compiler cannot prove the TMAs' operands uniform and wraps each TMA in
    // an ELECT/R2UR loop (~59 instructions a K-tile); with the whole warp in the loop and an elected lane issuing,
    // those loops are gone. The tiles of 64 tokens and more (8-16 times the MMA work a streamed byte of the 8-token
    // tile has) are paced by their producer (twentieth and twenty-second sessions' ncu): the whole warp. The tiles of
    // up to 32 tokens are pure streams, where the whole warp measured no faster, and slower back to back with PDL on
    // the long-K down projection (4096×14336 at 1-16 tokens, H200: 31.3 against 30.0 µs): lane 0 alone. Measured
    // 2026-12-05, interleaved (docs/notes.md, twenty-third session); why the issue path matters there is not known.
    constexpr bool kWholeWarp = N_TOK >= 64;
    const bool issuer = kWholeWarp ? elect_one_sync() : threadIdx.x % 32 == 0;
    if (kWholeWarp || issuer) {
      const uint64_t evict_first = args.l2evict ? l2_evict_first_policy() : 0;
      // Multicast: this CTA loads its half of the weight rows (box `pair`) into both token tiles' rings.
      const uint16_t both = static_cast<uint16_t>((1u << (base + rank)) | (1u << peer));
      auto load_w = [&](int kt, int st) {
        T* w = W + static_cast<size_t>(st) * W_ROWS * BLK_K;
        if constexpr (MCAST > 1) {
          tma_load_2d_multicast(w + pair * HALF_ROWS * BLK_K, &tmap_w, kt * BLK_K, pair ? w_row1 : w_row0, &full_bar[st],
                                both);
        } else if (args.l2evict) {  // (the multicast weight load carries no L2 cache hint)
          tma_load_2d_hint(w, &tmap_w, kt * BLK_K, w_row0, &full_bar[st], evict_first);
          if (!args.one_w_box)
            tma_load_2d_hint(w + HALF_ROWS * BLK_K, &tmap_w, kt * BLK_K, w_row1, &full_bar[st], evict_first);
        } else {
          tma_load_2d(w, &tmap_w, kt * BLK_K, w_row0, &full_bar[st]);
          if (!args.one_w_box) tma_load_2d(w + HALF_ROWS * BLK_K, &tmap_w, kt * BLK_K, w_row1, &full_bar[st]);
        }
      };
      auto load_x = [&](int kt, int st) {
        tma_load_2d(X + static_cast<size_t>(st) * N_TOK * BLK_K, tail ? &tmap_x_tail : &tmap_x, kt * BLK_K, token0,
                    &full_bar[st]);
      };
      RingState load{static_cast<uint32_t>(stages)};
      int kt = kb;
      if (args.b_prefetch) {
        // The caller promised that B is not written by the work before us: fill the ring's weights while the
        // previous kernel finishes, then wait for it before touching the tokens it may have produced.
        const int pre = std::min(stages, ke - kb);
        if (issuer)
          for (int j = 0; j < pre; ++j) {
            mbarrier_arrive_expect_tx(&full_bar[j], stage_bytes);
            load_w(kb + j, j);
          }
        cudaGridDependencySynchronize();
        if (issuer)
          for (int j = 0; j < pre; ++j) load_x(kb + j, j);
        if (kWholeWarp) __syncwarp();
        load.advance(pre);
        kt += pre;
      } else {
        cudaGridDependencySynchronize();  // no global read before the previous grid is done (a no-op without PDL)
      }
      for (; kt < ke; ++kt) {
        mbarrier_wait(&empty_bar[load.stage], load.producer_phase(), "empty_bar");
        // The byte count's arrive before or after the loads: measured the same (twenty-third session, call 3).
        if (issuer) {
          mbarrier_arrive_expect_tx(&full_bar[load.stage], stage_bytes);
          load_w(kt, static_cast<int>(load.stage));
          load_x(kt, static_cast<int>(load.stage));
        }
        if (kWholeWarp) __syncwarp();
        load.advance();
      }
    }
  } else {  // consumer warpgroup `wg`: weight rows [64·wg, +64) of the tile
    // The first k16 slice of the range overwrites each accumulator set (scale-d 0: they hold garbage until then).
    constexpr int NACC = Cfg::NACC;
    float accs[NACC][N_TOK / 2];
    // The rings' descriptors, built once; a stage and a k16 slice are byte offsets added to them.
    const RingDescriptor ring_w(W + wg * WGMMA_M * BLK_K, Cfg::kWBytes), ring_x(X, Cfg::kXBytes);
    RingState read{static_cast<uint32_t>(stages)};
    uint32_t prev_stage = 0;
    for (int i = kb; i < ke; ++i) {
      mbarrier_wait(&full_bar[read.stage], read.phase, "full_bar");
      sm90::wgmma_fence();
      const uint32_t w = ring_w.at(read.stage), x = ring_x.at(read.stage);
#pragma unroll
      for (int k = 0; k < BLK_K / WGMMA_K; ++k)
        sm90::wgmma_m64k16<N_TOK, T>(accs[k % NACC], sm90::kmajor_sw128_from_lo(sm90::desc_lo_advance(w, k * WGMMA_K * 2)),
                                     sm90::kmajor_sw128_from_lo(sm90::desc_lo_advance(x, k * WGMMA_K * 2)),
                                     (i > kb || k >= NACC) ? 1 : 0);
      sm90::wgmma_commit_group();
      sm90::wgmma_wait_group<1>();
      if (i > kb && threadIdx.x % 32 == 0) {
        mbarrier_arrive(&empty_bar[prev_stage]);
        if constexpr (MCAST > 1) mbarrier_arrive_cluster(&empty_bar[prev_stage], peer);  // the peer writes into it too
      }
      prev_stage = read.stage;
      read.advance();
    }
    sm90::wgmma_wait_group<0>();
#pragma unroll
    for (int a = 0; a < NACC; ++a) sm90::fence_operand(accs[a]);
    float (&acc)[N_TOK / 2] = accs[0];
#pragma unroll
    for (int a = 1; a < NACC; ++a)
#pragma unroll
      for (int i = 0; i < N_TOK / 2; ++i) acc[i] += accs[a][i];
    if (kb == ke)  // an empty K range (K < split·64) contributes zeros
#pragma unroll
      for (int i = 0; i < N_TOK / 2; ++i) acc[i] = 0.0f;
    // Both consumers' wgmmas have read the ring before either overwrites it with partials.
    named_barrier_sync(1, Cfg::CONSUMERS * kWarpgroupThreads);
    // The fragment (PTX ISA 9.7.15.5.1, m64nN D): register i = v0 + 2·v1 + 4·j of thread 32w + l holds weight
    // row 16w + l/4 + 8·v1, token 8j + 2(l%4) + v0. Written token-major into the (now idle) ring.
    float* P = reinterpret_cast<float*>(smem);
    const int w = threadIdx.x / 32 % 4, l = threadIdx.x % 32, row0 = wg * WGMMA_M;
#pragma unroll
    for (int j = 0; j < N_TOK / 8; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v)
        P[(8 * j + 2 * (l % 4) + v % 2) * S + row0 + 16 * w + l / 4 + 8 * (v / 2)] = acc[4 * j + v];
    if (args.push) cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // the bulk copies below read P
  }
  // Every load of this CTA has been issued and consumed: the next kernel may start its prologue.
  cudaTriggerProgrammaticLaunchCompletion();
  // Every CTA's partial tile is in its SMEM (release/acquire at cluster scope). One CTA a cluster (split 1): its
  // partial is the whole tile, in its own SMEM, and a CTA barrier is enough (no cluster-scope fence).
  // NOTE: the producer warp of the tiles of up to 32 tokens arrives diverged (its lane 0 alone ran the loads): the
  // CTA barrier is the non-aligned form. racecheck reports the partials' reads against the consumers' writes past
  // this barrier, with __syncthreads() (even after a __syncwarp()), with this form, and with the producer warp
  // converged (twenty-second session), and nothing with the cluster barriers (post=0); every check and rerun is
  // right. Not resolved (docs/notes.md, fifteenth and twenty-second sessions).
  const bool lone = split == 1 && MCAST == 1 && args.lone_sync;
  const bool push = !lone && args.push;
  // The tile's (token, 4 columns) groups: this CTA owns [lo, hi) of them, which it sums over all CTAs of the cluster
  // in rank order and writes through the epilogue.
  const float* P = reinterpret_cast<const float*>(smem);
  const int groups = F == Fused::none ? W_ROWS / 4 : out_tile / 4;  // the plain copy has no SwiGLU: a constant
  const int rows = std::min(N_TOK, args.M - token0);
  const int items = rows * groups;
  const int lo = rank * items / split, hi = (rank + 1) * items / split;
  const bool up = F != Fused::none && args.half;  // SwiGLU: each group's up columns, HALF_ROWS further on
  // push: every CTA copies each owner's groups of its partial into the owner's receive area (past its own partial
  // in the idle ring; one slot a sender, the groups packed, the up columns after the gate's), and the owner adds
  // its slots from its own SMEM. No cluster barrier with a release fence (the first one only says the rings are
  // idle, the second only keeps each partial alive until its copies have landed) and no remote loads.
  // NOTE: compute-sanitizer memcheck's bulk-copy check reports the copies below as "not located in remote CTA" (and
  // stops the kernel), to this CTA and to its peers alike, naming the sender's own rank and slot whatever the
  // destination (dev/2026-12-05-s26/verify2/); it does the same to ladder_cluster_probe's minimal push, where one CTA
  // copies into its own SMEM, whose results are right plain and under memcheck with --check-bulk-copy no, as ours
  // are: the tool's (docs/notes.md, twenty-sixth session). Run memcheck on the push with --check-bulk-copy no, and on
  // the pull (post=1) in full.
  const PushSlots slots{items, groups, split, up};
  const int slot_floats = slots.slot_floats();
  float* const recv = reinterpret_cast<float*>(smem + Cfg::kPartialBytes);
  if (lone) {
    cta_barrier_sync();
  } else if (push) {
    // The partial is written (and fenced for the copies' async proxy): the consumers alone meet, as the senders
    // (threads < split) are theirs; the producer warp, diverged for the tiles of up to 32 tokens, is not needed.
    if (wg < Cfg::CONSUMERS) named_barrier_sync(1, Cfg::CONSUMERS * kWarpgroupThreads);
    // Every CTA's mainloop is done (its ring idle; its receive barrier was initialized and fenced at the start): any
    // CTA's receive area may now be written. Relaxed: the barrier passes no data.
    cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);
    cuda::ptx::barrier_cluster_wait();
    if (threadIdx.x == 0) mbarrier_arrive_expect_tx(recv_bar, slots.bytes_to(rank));
    if (static_cast<int>(threadIdx.x) < split) {  // thread q sends owner q its groups, a run of whole groups a token
      const int q = static_cast<int>(threadIdx.x);
      // shared::cluster addresses (bytes) of owner q's slot for this CTA and of its receive barrier
      const uint32_t dst = shared_cluster_addr(recv + rank * slot_floats, static_cast<uint32_t>(base + q));
      const uint32_t bar = shared_cluster_addr(recv_bar, static_cast<uint32_t>(base + q));
      for (int it = slots.lo(q), m, g, n; it < slots.hi(q); it += n) {
        slots.run(q, it, m, g, n);
        const float* src = P + m * S + 4 * g;
        bulk_copy_to_cluster(dst + 4 * slots.at(q, it), src, static_cast<uint32_t>(n * 16), bar);
        if (up) bulk_copy_to_cluster(dst + 4 * slots.up_at(q, it), src + HALF_ROWS, static_cast<uint32_t>(n * 16), bar);
      }
    }
  } else {
    cluster.sync();
  }
  // C, the bias and D may belong to the previous kernel: every thread waits for it before the epilogue (it is
  // long done by now; a no-op without PDL).
  cudaGridDependencySynchronize();
  if (push) {
    mbarrier_wait(recv_bar, 0, "recv_bar");
    // Every copy into this CTA has landed, so every source it read is free: say so now, wait before exit.
    cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);
  }

  const int bytes = dtype_bytes(args.d);
  for (int it = lo + static_cast<int>(threadIdx.x); it < hi; it += Cfg::kThreads) {
    const int m = it / groups, c = 4 * (it % groups);
    const int col = out0 + c;
    const int valid = std::min(4, args.out_cols - col);
    if (valid <= 0) continue;
    float a[4] = {0, 0, 0, 0}, u[4] = {0, 0, 0, 0};
    auto add = [&](const float* Pq, int up_offset) {  // one rank's partial of this group
      const float4 v = *reinterpret_cast<const float4*>(Pq);
      a[0] += v.x, a[1] += v.y, a[2] += v.z, a[3] += v.w;
      if (up) {
        const float4 g = *reinterpret_cast<const float4*>(Pq + up_offset);
        u[0] += g.x, u[1] += g.y, u[2] += g.z, u[3] += g.w;
      }
    };
    if (push) {
      for (int q = 0; q < split; ++q) add(recv + q * slot_floats + slots.at(rank, it), 4 * slots.slot_items());
    } else {
      for (int q = 0; q < split; ++q) add((lone ? P : cluster.map_shared_rank(P, base + q)) + m * S + c, HALF_ROWS);
    }
    const int64_t row = token0 + m;
    float out[4] = {a[0], a[1], a[2], a[3]};
    if constexpr (F != Fused::none)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        out[e] = args.half ? epilogue_swiglu(args.ep, args.d, a[e], u[e], row, col + e, args.half)
                           : epilogue(args.ep, args.d, a[e], row, col + e);
    const int64_t idx = row * args.ldd + col;
    const bool vector =
        valid == 4 && reinterpret_cast<uintptr_t>(static_cast<char*>(args.D) + idx * bytes) % (4 * bytes) == 0;
    store4<T>(args.D, args.d, idx, out, valid, vector);
  }
  // No CTA leaves while another may still read its SMEM. cluster.sync() arrives with release semantics: each thread
  // first waits for its stores of D to reach the GPU (MEMBAR.ALL.GPU in the SASS), which this barrier does not need:
  // it passes no data, and every remote read above has returned (its value is stored). LADDER_TUNE relax=1 arrives
  // relaxed (the stores drain while the cluster meets); the empty asm keeps the compiler from sinking the reduce's
  // loads and stores below it. Measured 0.3-0.6 µs faster on the split rows (H100, dev/2026-12-05-s25/knobs/): the
  // default; relax=0 restores the fence. (push: arrived above, once this CTA's receive area was full.)
  // NOTE: the relaxed arrive orders no memory access: it is safe only because every remote load above feeds a store
  // issued before it (in-order issue waits for the load's data). A remote load whose value is unused, or used after
  // the arrive, would let a peer exit while this thread still reads its SMEM.
  if (push) {
    cuda::ptx::barrier_cluster_wait();
  } else if (!lone) {
    if (args.relax_exit) {
      asm volatile("" ::: "memory");
      cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_relaxed);
      cuda::ptx::barrier_cluster_wait();
    } else {
      cluster.sync();
    }
  }
}

// ── host side ────────────────────────────────────────────────────────────────────────────────────────
inline constexpr size_t kSmemPerSm = 228 * 1024;  // H100/H200: 228 KB per SM, 1 KB of it reserved per CTA

struct Plan {
  int consumers = 1, n_tok = 8, split = 1, stages = 2, ctas_per_sm = 1;
  int64_t tiles = 0, ctas = 0;  // the clusters' tiles (token tiles × row blocks), and CTAs
  int64_t resident = 0;         // CTAs the GPU holds at once at this split and SMEM (cluster occupancy)
  size_t smem = 0;
  bool push = false;            // split > 1: the partials pushed to their owners by bulk copy (else the owners pull)
  int mcast = 1;                // token tiles a cluster holds, each weight stage multicast to them (1 or 2)
};

// The weights of a stage in one W_ROWS-row box (not two halves): the 64-row tiles, unless LADDER_TUNE wbox says
// otherwise (launch_cfg, where it was measured).
// The multicast copies always load two halves (each CTA of the pair one of them).
template <class Cfg>
bool one_w_box(const detail::Problem& p) {
  if constexpr (Cfg::MCAST > 1) return false;
  return detail::tuning().wbox > 0 ? detail::tuning().wbox == 1 : !p.ep.swiglu && Cfg::CONSUMERS == 1;
}

// The plain copy (D = A·Bᵀ) for a plain problem, unless LADDER_TUNE post=0 asks for the fused one (the A/B of the
// reduce's cost); the copies differ only after the mainloop, so either serves the occupancy queries.
inline bool plain_copy(const detail::Problem& p) { return p.ep.plain() && detail::tuning().post != 0; }

// The copy to launch (both copies have one function type: F is only a template parameter).
template <class Cfg>
auto kernel_for(bool plain) {
  return plain ? small_m_kernel<Cfg, Fused::none> : small_m_kernel<Cfg, Fused::any>;
}

// Calls f.template operator()<Cfg>() with the configuration that serves this problem's dtype and M.
template <class F>
void dispatch(const detail::Problem& p, F&& f) {
  int consumers = 1, n_tok = 8;
  tile_for(p, consumers, n_tok);
  auto by_tokens = [&]<class T>() {
    switch (n_tok) {
      case 8: return f.template operator()<Config<T, 1, 8>>();
      case 16: return f.template operator()<Config<T, 1, 16>>();
      case 32: return f.template operator()<Config<T, 1, 32>>();
      case 64:
        if (consumers == 2) return f.template operator()<Config<T, 2, 64>>();
        return f.template operator()<Config<T, 1, 64>>();
      case 96: return f.template operator()<Config<T, 2, 96>>();
      default: return f.template operator()<Config<T, 2, 128>>();
    }
  };
  if (p.ab == DType::bf16) return by_tokens.template operator()<__nv_bfloat16>();
  return by_tokens.template operator()<__half>();
}

// The ring depth that fills SMEM for the CTAs an SM is to hold, the K split, and what that launches. Split: the
// largest power of two ≤ 16 with every CTA of every cluster resident at once (cudaOccupancyMaxActiveClusters at
// this SMEM) and at least 4 K-tiles per CTA, 1 when even the unsplit tiles take more than one wave; then any split
// up to 8 that leaves the busiest SM less to read (`rebalance`, below).
template <class Cfg>
Plan make_plan(const detail::Problem& p, const char* step_id) {
  const detail::Tuning& tune = detail::tuning();
  Plan pl;
  pl.consumers = Cfg::CONSUMERS;
  pl.n_tok = Cfg::N_TOK;
  const int64_t out_tile = p.ep.swiglu ? Cfg::HALF_ROWS : Cfg::W_ROWS;
  pl.tiles = ((p.out_cols() + out_tile - 1) / out_tile) * ((p.M + Cfg::N_TOK - 1) / Cfg::N_TOK);
  const int sms = detail::sm_count();
  const int64_t k_tiles = (p.K + BLK_K - 1) / BLK_K;
  const void* kernel = reinterpret_cast<const void*>(kernel_for<Cfg>(plain_copy(p)));
  detail::allow_dynamic_smem(kernel, kSmemPerSm - 1024, step_id);  // once, for any ring depth
  // The ring depth, SMEM and split at `ctas_per_sm` CTAs an SM; the split is `split` if given, else the largest
  // power of two whose clusters are all resident at once.
  auto ring_for = [&](int ctas_per_sm) {  // the stages that fill an SM's SMEM shared by this many CTAs
    return static_cast<int>((kSmemPerSm / ctas_per_sm - 2048) / (Cfg::kStageBytes + 16));
  };
  auto size_for = [&](int ctas_per_sm, int split = 0) {
    pl.ctas_per_sm = ctas_per_sm;
    pl.stages = std::clamp(ring_for(ctas_per_sm), Cfg::min_stages(), 32);
    if (tune.stages > 0) pl.stages = std::max(tune.stages, Cfg::min_stages());
    pl.smem = Cfg::smem_bytes(pl.stages);
    if (pl.smem > kSmemPerSm - 1024)  // only a tuned depth can get here: refuse it before anything launches
      throw Error(LADDER_ERROR_INVALID_ARGUMENT,
                  std::string(step_id) + ": LADDER_TUNE stages=" + std::to_string(tune.stages) + " needs " +
                      std::to_string(pl.smem / 1024) + " KB of SMEM for the " + std::to_string(Cfg::W_ROWS) + "x" +
                      std::to_string(Cfg::N_TOK) + " tile; at most " + std::to_string(ring_for(1)) + " stages fit");
    pl.split = 1;
    if (tune.split > 0 || split > 0) {
      pl.split = tune.split > 0 ? tune.split : split;
    } else {
      for (int s = 2; s <= 16 && k_tiles >= 4 * s; s *= 2) {
        if (s > 8) detail::allow_nonportable_cluster(kernel, step_id);
        if (pl.tiles > detail::max_active_clusters(kernel, Cfg::kThreads, pl.smem, s)) break;
        pl.split = s;
      }
    }
  };
  // The stream's time is set by its busiest SM: measured 2026-12-01 (dev/2026-12-01-s5-split-any/), an SM
  // streams ~35 GB/s whether it holds one CTA or several, so t ≈ 4 µs + (CTAs on the busiest SM) × (bytes per
  // CTA) / 35 GB/s (1×4096×4096: 128 CTAs, 256 KB each: 11.8 µs; 1×8192×8192: 2 × 512 KB: 35.5 µs). In units of
  // one tile's bytes, that load is ceil(tiles·split / SMs) / split.
  auto busiest = [&](int split) {
    return static_cast<double>((pl.tiles * split + sms - 1) / sms) / split;
  };
  // CTAs per SM the ring is sized for (measured 2026-12-01: dev/2026-12-01-s4-tune-cps/, dev/2026-12-01-s5-grid/).
  //   • two by default: two CTAs an SM stream better than one with a ring twice as deep (16×4096×4096: 12.2
  //     against 13.2 µs at the same 128 CTAs; 16×128256×4096: 255 against 309 µs), and a split's clusters fit;
  //   • three, more and shallower rings, once the tiles alone fill the GPU four times over (1×128256×4096 265 → 254
  //     µs); between two and four times, two with no split (below);
  //   • then, where another split (any 1…8, all of its clusters resident, the ring sized for exactly the CTAs
  //     each SM gets) leaves the busiest SM at least 5 % less to read, that split: 1×5120×5120, 80 tiles:
  //     split 2, 2 CTAs on the busiest SM of 320 KB each: 21.6 µs; split 7, 5 of 91 KB: 17.6 µs. 16×28672×8192,
  //     448 tiles: 131 → 116 µs (split 2 at seven an SM); 1×10240×8192: 57 → 45 µs (split 3);
  //   • one, the deepest ring, for the few tiles of a narrow layer (N ≤ 1024 at 64 rows a tile: ≤ sms/8 tiles):
  //     fewer CTAs, each with its whole K range in flight, and fewer partials to sum (16×1024×4096: 7.9 → 6.9 µs,
  //     32×1024×8192: 11.0 → 10.0 µs);
  //   • for the wide tiles (128×128, 128×64), one (their ring is large), except 128×128 tiles that
  //     fill 3/4 of the SMs on their own: two, as at 64 rows (128×28672×8192: 156 → 148 µs, 128×14336×4096:
  //     47.6 → 45.2 µs; with fewer tiles a split at one an SM is faster: 128×8192×8192 46 against 59 µs).
  // Another split (any 1…8, every cluster resident, the ring sized for exactly the CTAs each SM gets and at least
  // `min_cps`, at least `min_ring` stages deep, every CTA at least `min_k` K-tiles) where it leaves the busiest SM
  // at least 5 % less to read.
  auto rebalance = [&](int min_cps, int min_ring, int min_k) {
    if (tune.split != 0 || tune.stages != 0) return;
    int best_split = 0, best_cps = 0;
    double best = 0.95 * busiest(pl.split);
    for (int s = 1; s <= 8 && (s == 1 || k_tiles >= min_k * s); ++s) {
      const int64_t per_sm = (pl.tiles * s + sms - 1) / sms;
      if (per_sm > 8 || busiest(s) >= best) continue;
      const int cps = static_cast<int>(std::max<int64_t>(min_cps, per_sm)), stages = ring_for(cps);
      if (stages < std::max(min_ring, Cfg::min_stages())) continue;
      if (detail::max_active_clusters(kernel, Cfg::kThreads, Cfg::smem_bytes(stages), s) < pl.tiles) continue;
      best = busiest(s), best_split = s, best_cps = cps;
    }
    if (best_split > 0) size_for(best_cps, best_split);
  };
  if (tune.ctas_per_sm > 0) {
    size_for(tune.ctas_per_sm);
  } else if (Cfg::N_TOK >= 96) {  // the 96-token tile (fitted_tokens) as the 128-token tile it replaces
    size_for(4 * pl.tiles >= 3 * sms ? 2 : 1);
    // The 128-token tile, when SMs are left idle: a split at one CTA an SM (its 3-stage ring at two is too
    // shallow: 128×4096×4096 split 4 at two an SM 22.5 µs; split 4 at one does not fit at once: 28 µs;
    // dev/2026-12-01-s5-grid/). Measured (dev/2026-12-01-s6-rebalance/): 128×4096×4096 split 2, 64 CTAs 21.6 µs
    // → split 3, 96 CTAs 19.3 µs; 128×2560×8192 22.9 → 20.2 µs (split 4 → 5).
    rebalance(1, 4, 4);
  } else if (Cfg::N_TOK == 64) {
    size_for(pl.tiles >= 2 * sms ? 2 : 1);
    // The 64-token tile too, with 16 K-tiles a CTA at least: 64×5120×13824 55.8 → 45.3 µs (split 2 → 5, two CTAs an
    // SM), 64×2048×8192 18.7 → 15.8 (split 4 → 6); but 64×4096×4096 at split 7 (9 K-tiles a CTA), 16.4 → 17.5.
    rebalance(1, 4, 16);
  } else if (8 * pl.tiles <= sms) {
    size_for(1);
    // A narrow layer with a long K (≥ 128 K-tiles) at ≤ 16 tokens: split 16 with the ring sized for three CTAs an SM
    // (8 stages at 8 tokens, 7 at 16), where every cluster of 16 is resident and there are more CTAs than SMs (with
    // fewer, each SM holds one CTA with a third of its SMEM); else the plan above. Measured 2026-12-01 and 2026-12-02, two
    // interleaved rounds against `cps=1` (the plan before) in each of two sessions (dev/2026-12-01-s11-device/narrow/,
    // dev/2026-12-02-s12-fit/call3/): 1024×8192 9.1-9.5 µs against 9.5-10.1 at M = 1-16, 1024×14336 12.5-12.9 against
    // 14.1-15.3; 512×8192 (128 CTAs) 6.7-7.4 against 6.9-7.2, so not there. No other depth: split 16 at 6 stages ran
    // 10.8-11.0 at M ≤ 8 (dev/2026-12-01-s10-pipeline/narrow/).
    // NOTE: compute-sanitizer synccheck reports "Missing wait" on clusters of more than 8 CTAs and the kernel then
    // computes wrong sums under it; ladder_cluster_probe's plain CTA-local mbarrier ring (no TMA, nothing across
    // CTAs) gets the same report and faults under synccheck at 12 CTAs, and is right in plain runs at every size
    // 1-16 and under memcheck at 8-16: the tool's, not ours
    // (dev/2026-12-02-s12-fit/call2/cluster-*.log). Run synccheck at split <= 8.
    if (tune.split == 0 && tune.stages == 0 && Cfg::N_TOK <= 16 && k_tiles >= 128 && pl.split < 16 &&
        pl.tiles * 16 > sms) {
      detail::allow_nonportable_cluster(kernel, step_id);
      const int stages = ring_for(3);
      if (stages >= std::max(4, Cfg::min_stages()) &&
          detail::max_active_clusters(kernel, Cfg::kThreads, Cfg::smem_bytes(stages), 16) >= pl.tiles)
        size_for(3, 16);
    }
  } else if (pl.tiles >= 2 * sms && pl.tiles < 4 * sms) {
    // Two to four waves of tiles: no split, where the rebalance below would take a split at seven CTAs an SM with
    // 2-3-stage rings. Three CTAs an SM (8-stage rings at 8 tokens) where that holds every tile at once, else two
    // (12 stages): three with a second round of tiles was the slowest plan. Measured 2026-12-03, interleaved, 1-32
    // tokens (dev/2026-12-03-s15/call1/ and call2/, µs): 18432×4096 (288 tiles) 43.9-45.1 at three against 45.6-49.0
    // at two and 45.9-60.9 split; 22528×8192 (352) 92.5-96.1 against 97.2-99.9 and 101-124; 28672×8192 (448) at two
    // 109.9-116.3 against 111.9-120.9 for the split (seven an SM) and 121-131 at three; 32768×4096 / ×8192 (512) at two
    // 64.0-67.6 / 125.3-129.3 against 69.6-94.5 / 134-183.
    size_for(pl.tiles <= 3 * int64_t{sms} ? 3 : 2, 1);
  } else {
    size_for(pl.tiles >= 2 * sms ? 3 : 2);
    rebalance(2, 0, 4);
  }
  pl.ctas = pl.tiles * pl.split;
  // The partials pushed to their owners (the kernel's push path) where the receive slots of a full token tile fit in
  // the ring past the partial tile, under post=4 (the default: token tiles of <= 16) or post=3 (any tile); elsewhere,
  // and under post=1, the owners pull them. Measured 2026-12-05 on an H100 (dev/2026-12-05-s25/knobs/, one process,
  // two rounds): the push 0.5-1.3 µs faster at 1-16 tokens on the split layers (1x1024x8192 10.4 -> 9.1 µs,
  // 1x1024x4096 7.0 -> 6.2), 1-4 µs slower with the 64- and 128-token tiles (256x4096x4096 22.3 -> 25.8,
  // 128x1024x8192 13.7 -> 15.6); as the default against relax=0,post=1 (dev/2026-12-05-s26/h100-call/) 1x1024x8192
  // 10.4 -> 8.9-9.0 µs.
  const PushSlots largest{Cfg::N_TOK * static_cast<int>(out_tile / 4), static_cast<int>(out_tile / 4), pl.split,
                          p.ep.swiglu};
  pl.push = (tune.post == 3 || (tune.post == 4 && Cfg::N_TOK <= 16)) && pl.split > 1 &&
            Cfg::kPartialBytes + int64_t{pl.split} * largest.slot_floats() * 4 <= int64_t{pl.stages} * Cfg::kStageBytes;
  if (pl.split > 8) detail::allow_nonportable_cluster(kernel, step_id);
  // Two token tiles a cluster, each CTA loading half of a stage's weight rows into both (TMA multicast): the weights
  // leave L2 once for two tiles. At 512×1024×4096 the split 128×64 tiles read 88 MB out of L2 (ncu, H100, in the
  // model's context: 18.4 µs at ~55 % of L2's throughput) where cuBLAS's 64×64 tiles with a 2-CTA multicast read 52
  // MB (11.7 µs): L2's output sets the time there (docs/notes.md, twenty-ninth session; the thirtieth's ncu: the reads
  // differ because L2's request coalescer serves more of cuBLAS's identical token reads with one). By default wherever every
  // cluster of 2·split is resident at once; where not, the second wave of clusters cost more than the multicast saves
  // (H100, forced: 512×1024×4096 at 128×64 split 2, 14.6 → 22.2 µs; 512×2048×4096 at 128×128, 21.2 → 32.8). Measured
  // on an H100 (dev/2026-12-05-s29/, interleaved, two rounds, µs): best's pick at 512×1024×8192 (128×128 split 3)
  // 26.0 / 25.9 → 22.1 / 22.0 against the binary before (call 13; cuBLAS 20.6-21.7), every other row of the decode
  // suite at 128-512 tokens the same as mc=1 (call 9); the 128-token tiles forced against mc=1 (call 8): 500×1000×4000
  // 16.5 → 15.1, 512×1024×4096 15.7 → 15.0, 384×1024×4096 and 256×1024×8192 the same. Needs an even number of token
  // tiles, the two-box weight stage and no push. LADDER_TUNE mc=1 turns it off, mc=2 on wherever it can be.
  const int64_t token_tiles = (p.M + Cfg::N_TOK - 1) / Cfg::N_TOK;
  // The 64×64 tile (one consumer: its weights in two 32-row boxes) only when asked for (mc=2): on an H100 it ran slower
  // than unicast at the 1024-row layers and at K = 2048 (512×1024×4096 16.4 against 15.4 µs, 256×2048×2048 10.2 against
  // 9.6) and faster at 256×1536-2048×4096 (14.2 against 15.7, 15.5 against 16.0; dev/2026-12-05-s30/call4-h100/
  // sweep64-summary.txt): too few shapes, on one H100, for a rule.
  const bool can_mcast = Cfg::kCanMulticast && token_tiles % 2 == 0 && tune.wbox != 1 && !pl.push && pl.split <= 4;
  auto all_resident = [&] {
    return 2 * int64_t{detail::max_active_clusters(kernel, Cfg::kThreads, pl.smem, 2 * pl.split)} >= pl.tiles;
  };
  if (can_mcast && (tune.mcast == 2 || (tune.mcast == 0 && Cfg::CONSUMERS == 2 && all_resident()))) pl.mcast = 2;
  pl.resident = int64_t{detail::max_active_clusters(kernel, Cfg::kThreads, pl.smem, pl.split * pl.mcast)} * pl.split *
                pl.mcast;
  if (pl.resident == 0)  // a tuned split × depth whose cluster fits no GPC (the model's choices always fit)
    throw Error(LADDER_ERROR_INVALID_ARGUMENT, std::string(step_id) + ": LADDER_TUNE split=" + std::to_string(pl.split) +
                                                   " with " + std::to_string(pl.stages) + " stages: no cluster fits");
  return pl;
}

// The weights' loads hint L2 evict-first (they are read once) where B is at least 24 MiB, for the tiles of up to 64
// tokens: measured 2026-12-01 (docs/results/dev/2026-12-01-s8-decode/evict-bench-debc81a.csv, 36 decode layers at
// M = 1-64 with the 128-B promotion, interleaved), 0.982x the time over the 28 layers of >= 24 MiB (1x8192x28672
// 111.8 -> 111.2 us, 16x128256x4096 255.2 -> 249.4, 64x4096x14336 38.3 -> 36.8; worst 64x128256x4096 +1.5 %), and
// mixed on the 1024-row layers of 8-16 MiB (0.94-1.03x). LADDER_TUNE l2evict=0|1 overrides.
template <class Cfg>
bool l2_evict_first(const detail::Problem& p) {
  if (detail::tuning().l2evict >= 0) return detail::tuning().l2evict == 1;
  return Cfg::N_TOK <= 64 && p.N * p.K * int64_t{sizeof(typename Cfg::Elem)} >= (int64_t{24} << 20);
}

template <class Cfg>
void launch_cfg(const detail::Problem& p, cudaStream_t stream, const Plan& pl, bool pdl, const char* step_id) {
  using T = typename Cfg::Elem;
  const bool plain = plain_copy(p);
  const auto kernel = kernel_for<Cfg>(plain);
  if (pl.split > 8) detail::allow_nonportable_cluster(reinterpret_cast<const void*>(kernel), step_id);
  // The weights' L2 promotion: 128 B, one box row, for the tiles of up to 64 tokens. With 256 B (as the other
  // families' maps) every 128-B row read also fills the row's next K-tile into L2: measured 2026-12-01
  // (docs/results/dev/2026-12-01-s8-decode/promo-bench-e255492.csv, 36 decode layers at M = 1-64, interleaved), 128 B
  // ran 2.0 % faster (geometric mean; 1x8192x28672 112.4 -> 108.4 us, 1x128256x4096 249 -> 242; worst
  // 32x28672x8192 +2.8 %), 64 B and none the same as 128 B. ncu at 1x14336x4096: 27 % L2 hits at 69 % of DRAM
  // peak with 256 B, where cuBLAS's kernel has 1.5 % at 77 %. The 128-token tile keeps 256 B (128 B was mixed there:
  // promo-tiles-d8124a7.csv).
  const int promo = detail::tuning().l2promo >= 0 ? detail::tuning().l2promo : Cfg::N_TOK <= 64 ? 128 : 256;
  const CUtensorMapL2promotion promotion = l2_promotion(promo);
  // The 64-row tiles' weights in one box a stage (not SwiGLU's gate and up halves): a TMA fewer for the producer
  // to issue, which paces these tiles. Measured 2026-12-05 (dev/2026-12-05-s22/call2/, interleaved): the 64×64 tile
  // 128×4096×4096 17.8 → 15.5 µs, 512×1024×4096 17.1 → 15.3, 128×4096×14336 63.5 → 52.8; the 128-row tiles within
  // ±0.3 µs, 512×1024×8192 21.8 → 22.0, so they keep two. LADDER_TUNE wbox=1|2 forces one or two.
  const bool one_w_box = small_m::one_w_box<Cfg>(p);
  if (one_w_box && p.ep.swiglu)
    throw Error(LADDER_ERROR_INVALID_ARGUMENT, std::string(step_id) + ": LADDER_TUNE wbox=1 cannot load SwiGLU's gate and up rows");
  const CUtensorMap tw = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, one_w_box ? Cfg::W_ROWS : Cfg::HALF_ROWS, BLK_K,
                                            CU_TENSOR_MAP_SWIZZLE_128B, promotion);
  // The last token tile's box is its own rows (M mod N_TOK, or M where M < N_TOK), not N_TOK. Rows of a box outside
  // the tensor are not free for TMA. Measured 2026-12-02 (dev/2026-12-02-s12-fit/call11/, against xbox=1, the
  // N_TOK-row box): 65×8192×8192 41.5-41.7 against 50.9-52.9 µs, 65×4096×14336 39.6 against 49.3-50.4,
  // 65×4096×4096 16.6 against 19.0, 96-100 tokens 3-8 %, 120 none; 0-2 % at 1-12 tokens (call6/); the last of
  // several tiles (call12/): 300×1024×8192 19.4-19.5 against 22.8, 450×1024×8192 23.4-23.5 against 26.4-26.6,
  // 200×1024×4096 12.6 against 13.1. The ring's rows
  // past M then keep stale bytes: their token columns of the product are never stored (nor summed: the reduce stops
  // at M).
  const int64_t tail_rows = p.M % Cfg::N_TOK == 0 ? Cfg::N_TOK : p.M % Cfg::N_TOK;
  const int x_tail = detail::tuning().xbox == 1 ? Cfg::N_TOK : static_cast<int>(tail_rows);
  const CUtensorMap tx_tail = make_tensor_map_2d(p.A, p.M, p.K, p.lda, x_tail, BLK_K);
  // One token tile (decode): no full-tile map to encode (the host's cost per call, where A's address changes).
  const CUtensorMap tx = p.M <= Cfg::N_TOK ? tx_tail : make_tensor_map_2d(p.A, p.M, p.K, p.lda, Cfg::N_TOK, BLK_K);
  auto stage_bytes = [&](int x_rows) { return Cfg::kWBytes + static_cast<uint32_t>(x_rows * BLK_K * sizeof(T)); };
  const int out_tile = p.ep.swiglu ? Cfg::HALF_ROWS : Cfg::W_ROWS;
  const detail::Tuning& tune = detail::tuning();
  const bool lone_sync = tune.post == 1 || tune.post == 3 || tune.post == 4;
  const Args args{static_cast<int>(p.M), static_cast<int>(p.K), static_cast<int>(p.out_cols()),
                  p.ep.swiglu ? static_cast<int>(p.N / 2) : 0, pl.stages, p.D, p.ldd, p.d, p.ep,
                  pdl && p.b_static ? 1 : 0, Cfg::MCAST == 1 && l2_evict_first<Cfg>(p) ? 1 : 0, stage_bytes(Cfg::N_TOK),
                  stage_bytes(x_tail), lone_sync ? 1 : 0, one_w_box ? 1 : 0, tune.relax, pl.push ? 1 : 0};
  const dim3 grid(static_cast<unsigned>(((p.M + Cfg::N_TOK - 1) / Cfg::N_TOK) * pl.split),
                  static_cast<unsigned>((p.out_cols() + out_tile - 1) / out_tile));
  if constexpr (Cfg::MCAST > 1) detail::allow_dynamic_smem(reinterpret_cast<const void*>(kernel), kSmemPerSm - 1024, step_id);
  detail::launch_kernel_ex(kernel, grid, Cfg::kThreads, pl.smem, stream, pl.split * Cfg::MCAST, pdl, step_id, tw, tx,
                           tx_tail, args);
  detail::trace_launch(step_id, static_cast<int>(grid.x * grid.y), Cfg::kThreads, pl.smem, [&] {
    return "small-M " + std::to_string(Cfg::W_ROWS) + "x" + std::to_string(Cfg::N_TOK) + " split " +
           std::to_string(pl.split) + (Cfg::MCAST > 1 ? " mcast 2" : "") + " stages " + std::to_string(pl.stages) + (pdl ? " pdl" : "") +
           (args.b_prefetch ? " b-prefetch" : "") + (args.push ? " push" : "") + (std::is_same_v<T, __half> ? " f16" : " bf16") +
           (plain ? " plain" : " fused");
  });
}

inline Plan plan(const detail::Problem& p, const char* step_id) {
  Plan pl;
  dispatch(p, [&]<class Cfg>() { pl = make_plan<Cfg>(p, step_id); });
  return pl;
}

}  // namespace
}  // namespace ladder::hopper::small_m
