// Hopper · the small-M kernel family (decode, M ≤ ~64 tokens, and few-tile shapes up to M ≈ 512).
// Used by h12, h13 and `best`.
//
// At small M the GEMM is a stream of B (the weights, N×K): its floor is 2·N·K bytes over the read bandwidth,
// and the tensor core idles whatever the tile. So the kernel is built around the stream:
//   • operands swapped: Dᵀ = B·Aᵀ. 64 weight rows per consumer warpgroup fill wgmma's M side, the few
//     tokens its N side (m64nN_TOKk16, N_TOK = 8…128): no MMA row is padding, only token columns are;
//   • the K range is split over the CTAs of a cluster, so every SM streams a share of B whatever N is;
//   • the TMA ring fills the SMEM a CTA can have (its depth is a launch parameter), so each SM keeps
//     as many bytes in flight as it can hold;
//   • the partial tiles are summed across the cluster through distributed shared memory, in rank order
//     (the same bits on every run), and the sum goes through the fused epilogue to D in one store.
//     No workspace, no second kernel (cuBLAS's split-K adds a 3.4 µs reduce kernel at these shapes).
// With two consumers (128 weight rows × 128 tokens, several token tiles above 128 tokens) the same kernel is a
// 128×128-tile GEMM with a cluster split-K, for shapes with too few tiles to fill the GPU.
// Programmatic dependent launch (h13): the kernel waits for the previous grid (griddepcontrol.wait) before
// its first global read, and lets the next one start once its mainloop is done.
#pragma once
#include <cooperative_groups.h>
#include <cuda/ptx>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <cstdint>
#include <string>
#include <type_traits>

#include "device/epilogue_op.hpp"
#include "device/mbarrier.cuh"
#include "device/named_barrier.cuh"
#include "device/pipeline.hpp"
#include "device/scheduler.hpp"
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
template <class T, int CONSUMERS_, int N_TOK_, int NACC_ = 1>
struct Config {
  using Elem = T;
  static constexpr int CONSUMERS = CONSUMERS_, N_TOK = N_TOK_, NACC = NACC_;
  static constexpr int W_ROWS = CONSUMERS * WGMMA_M;  // weight rows per CTA: wgmma's M side
  static constexpr int HALF_ROWS = W_ROWS / 2;        // B arrives in two boxes (SwiGLU: gate rows, up rows)
  static constexpr int kThreads = CONSUMERS * kWarpgroupThreads + 32;  // + one producer warp
  static constexpr uint32_t kWBytes = W_ROWS * BLK_K * sizeof(T), kXBytes = N_TOK * BLK_K * sizeof(T);
  static constexpr uint32_t kStageBytes = kWBytes + kXBytes;
  static constexpr int kPartialStride = W_ROWS + 4;  // floats per token row of a partial tile: +4 spreads banks
  static constexpr uint32_t kPartialBytes = N_TOK * kPartialStride * sizeof(float);
  // Dynamic SMEM of a launch with `stages` stages: [W ring | X ring | full_bar | empty_bar], 1024-B aligned
  // rings (SW128). After the mainloop the rings hold this CTA's fp32 partial tile, (N_TOK, W_ROWS) token-major.
  static constexpr size_t smem_bytes(int stages) { return static_cast<size_t>(stages) * (kStageBytes + 16) + 1024; }
  // h14's launch keeps one partial tile beside the ring: [W ring | X ring | P | full_bar | empty_bar | owned tile].
  static constexpr size_t sk_smem_bytes(int stages) { return smem_bytes(stages) + kPartialBytes + 16; }
  static constexpr int min_stages() { return std::max<int>(2, (kPartialBytes + kStageBytes - 1) / kStageBytes); }
};

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

// The epilogue and the store of one (token, 4 columns) group of the tile at (token0, out0): a holds the sums of
// the group's columns (with SwiGLU the gate rows), u those of its up rows. Not inlined: one copy per dtype serves
// every configuration and both kernels (the run-time epilogue switch inlined in each made cicc run for ~18 min on
// this file; a call per 4 outputs costs nothing at decode sizes).
template <class T>
__device__ __noinline__ void write_group(const Args& args, int token0, int out0, int m, int c, const float (&a)[4],
                                         const float (&u)[4]) {
  const int col = out0 + c;
  const int valid = std::min(4, args.out_cols - col);
  if (valid <= 0) return;
  const int64_t row = token0 + m;
  float out[4];
#pragma unroll
  for (int e = 0; e < 4; ++e)
    out[e] = args.half ? epilogue_swiglu(args.ep, args.d, a[e], u[e], row, col + e, args.half)
                       : epilogue(args.ep, args.d, a[e], row, col + e);
  const int64_t idx = row * args.ldd + col;
  const int bytes = dtype_bytes(args.d);
  const bool vector =
      valid == 4 && reinterpret_cast<uintptr_t>(static_cast<char*>(args.D) + idx * bytes) % (4 * bytes) == 0;
  store4<T>(args.D, args.d, idx, out, valid, vector);
}

__device__ __forceinline__ void add4(float (&a)[4], const float* p) {
  const float4 v = *reinterpret_cast<const float4*>(p);
  a[0] += v.x, a[1] += v.y, a[2] += v.z, a[3] += v.w;
}

// The producer's loads of K-tiles [kb, ke) of the tile at (token0, w_row0 / w_row1), into the ring at `load`.
// With `prefetch` (PDL, B static) the first stages' weights are loaded before the previous grid has finished.
template <class Cfg>
__device__ __forceinline__ void produce(const CUtensorMap* tmap_w, const CUtensorMap* tmap_x, typename Cfg::Elem* W,
                                        typename Cfg::Elem* X, uint64_t* full_bar, uint64_t* empty_bar,
                                        RingState& load, int token0, int w_row0, int w_row1, int kb, int ke,
                                        bool prefetch) {
  using T = typename Cfg::Elem;
  constexpr int W_ROWS = Cfg::W_ROWS, HALF_ROWS = Cfg::HALF_ROWS, N_TOK = Cfg::N_TOK;
  auto load_w = [&](int kt, int st) {
    T* w = W + static_cast<size_t>(st) * W_ROWS * BLK_K;
    tma_load_2d(w, tmap_w, kt * BLK_K, w_row0, &full_bar[st]);
    tma_load_2d(w + HALF_ROWS * BLK_K, tmap_w, kt * BLK_K, w_row1, &full_bar[st]);
  };
  auto load_x = [&](int kt, int st) {
    tma_load_2d(X + static_cast<size_t>(st) * N_TOK * BLK_K, tmap_x, kt * BLK_K, token0, &full_bar[st]);
  };
  int kt = kb;
  if (prefetch) {
    // The caller promised that B is not written by the work before us: fill the ring's weights while the
    // previous kernel finishes, then wait for it before touching the tokens it may have produced.
    const int pre = std::min(static_cast<int>(load.depth()), ke - kb);
    for (int j = 0; j < pre; ++j) {
      const int st = static_cast<int>((load.stage + j) % load.depth());
      mbarrier_arrive_expect_tx(&full_bar[st], Cfg::kStageBytes);
      load_w(kb + j, st);
    }
    cudaGridDependencySynchronize();
    for (int j = 0; j < pre; ++j) load_x(kb + j, static_cast<int>((load.stage + j) % load.depth()));
    load.advance(pre);
    kt += pre;
  }
  for (; kt < ke; ++kt) {
    mbarrier_wait(&empty_bar[load.stage], load.producer_phase(), "empty_bar");
    mbarrier_arrive_expect_tx(&full_bar[load.stage], Cfg::kStageBytes);
    load_w(kt, static_cast<int>(load.stage));
    load_x(kt, static_cast<int>(load.stage));
    load.advance();
  }
}

// Consumer warpgroup `wg` (weight rows [64·wg, +64) of the tile): acc = the sum over the ring's K-tiles [kb, ke)
// (zeros for an empty range), each stage released once the wgmmas that read it are done.
template <class Cfg>
__device__ __forceinline__ void accumulate(float (&acc)[Cfg::N_TOK / 2], const typename Cfg::Elem* W,
                                           const typename Cfg::Elem* X, uint64_t* full_bar, uint64_t* empty_bar,
                                           RingState& read, int kb, int ke, int wg) {
  using T = typename Cfg::Elem;
  constexpr int N_TOK = Cfg::N_TOK, W_ROWS = Cfg::W_ROWS, NACC = Cfg::NACC;
  // The first k16 slice of the range overwrites each accumulator set (scale-d 0: they hold garbage until then).
  float accs[NACC][N_TOK / 2];
  uint32_t prev_stage = 0;
  for (int i = kb; i < ke; ++i) {
    mbarrier_wait(&full_bar[read.stage], read.phase, "full_bar");
    sm90::wgmma_fence();
    const uint32_t w = sm90::smem_addr(W + (static_cast<size_t>(read.stage) * W_ROWS + wg * WGMMA_M) * BLK_K);
    const uint32_t x = sm90::smem_addr(X + static_cast<size_t>(read.stage) * N_TOK * BLK_K);
#pragma unroll
    for (int k = 0; k < BLK_K / WGMMA_K; ++k)
      sm90::wgmma_m64k16<N_TOK, T>(accs[k % NACC], sm90::kmajor_sw128_descriptor(w + k * WGMMA_K * 2),
                                   sm90::kmajor_sw128_descriptor(x + k * WGMMA_K * 2), (i > kb || k >= NACC) ? 1 : 0);
    sm90::wgmma_commit_group();
    sm90::wgmma_wait_group<1>();
    if (i > kb && threadIdx.x % 32 == 0) mbarrier_arrive(&empty_bar[prev_stage]);
    prev_stage = read.stage;
    read.advance();
  }
  sm90::wgmma_wait_group<0>();
  if (ke > kb && threadIdx.x % 32 == 0) mbarrier_arrive(&empty_bar[prev_stage]);
#pragma unroll
  for (int a = 0; a < NACC; ++a) sm90::fence_operand(accs[a]);
#pragma unroll
  for (int i = 0; i < N_TOK / 2; ++i) acc[i] = accs[0][i];
#pragma unroll
  for (int a = 1; a < NACC; ++a)
#pragma unroll
    for (int i = 0; i < N_TOK / 2; ++i) acc[i] += accs[a][i];
  if (kb == ke)  // an empty K range (K < split·64) contributes zeros
#pragma unroll
    for (int i = 0; i < N_TOK / 2; ++i) acc[i] = 0.0f;
}

// The fragment (PTX ISA 9.7.15.5.1, m64nN D): register i = v0 + 2·v1 + 4·j of thread 32w + l holds weight row
// 16w + l/4 + 8·v1, token 8j + 2(l%4) + v0. Written token-major into P (rows of kPartialStride floats).
template <class Cfg>
__device__ __forceinline__ void write_fragment(float* P, const float (&acc)[Cfg::N_TOK / 2], int wg) {
  constexpr int S = Cfg::kPartialStride;
  const int w = threadIdx.x / 32 % 4, l = threadIdx.x % 32, row0 = wg * WGMMA_M;
#pragma unroll
  for (int j = 0; j < Cfg::N_TOK / 8; ++j)
#pragma unroll
    for (int v = 0; v < 4; ++v)
      P[(8 * j + 2 * (l % 4) + v % 2) * S + row0 + 16 * w + l / 4 + 8 * (v / 2)] = acc[4 * j + v];
}

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads)
    small_m_kernel(const __grid_constant__ CUtensorMap tmap_w, const __grid_constant__ CUtensorMap tmap_x,
                   const Args args) {
  using T = typename Cfg::Elem;
  constexpr int N_TOK = Cfg::N_TOK, W_ROWS = Cfg::W_ROWS, HALF_ROWS = Cfg::HALF_ROWS, S = Cfg::kPartialStride;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = &align_smem<uint8_t>(smem_raw);
  const int stages = args.stages;
  T* const W = reinterpret_cast<T*>(smem);                                   // stages × (W_ROWS, BLK_K)
  T* const X = reinterpret_cast<T*>(smem + static_cast<size_t>(stages) * Cfg::kWBytes);  // stages × (N_TOK, BLK_K)
  uint64_t* const full_bar = reinterpret_cast<uint64_t*>(smem + static_cast<size_t>(stages) * Cfg::kStageBytes);
  uint64_t* const empty_bar = full_bar + stages;
  const cg::cluster_group cluster = cg::this_cluster();
  const int split = static_cast<int>(cluster.num_blocks()), rank = static_cast<int>(cluster.block_rank());

  // This cluster's tile: tokens [token0, +N_TOK) × output columns [out0, +out_tile); this CTA's K range.
  const int token0 = static_cast<int>(blockIdx.x / split) * N_TOK;
  const int out_tile = args.half ? HALF_ROWS : W_ROWS;
  const int out0 = static_cast<int>(blockIdx.y) * out_tile;
  const int k_tiles = (args.K + BLK_K - 1) / BLK_K;
  const int kb = rank * k_tiles / split, ke = (rank + 1) * k_tiles / split;

  if (threadIdx.x == 0) {
    for (int st = 0; st < stages; ++st) {
      mbarrier_init(&full_bar[st], 1);
      mbarrier_init(&empty_bar[st], Cfg::CONSUMERS * kWarpgroupThreads / 32);  // every consumer warp
    }
    fence_barrier_init();
  }
  __syncthreads();

  const int wg = static_cast<int>(threadIdx.x) / kWarpgroupThreads;
  if (wg == Cfg::CONSUMERS) {  // the producer warp: one elected lane issues every TMA
    if (threadIdx.x % 32 == 0) {
      RingState load{static_cast<uint32_t>(stages)};
      if (!args.b_prefetch) cudaGridDependencySynchronize();  // no global read before the previous grid is done
      produce<Cfg>(&tmap_w, &tmap_x, W, X, full_bar, empty_bar, load, token0, out0,
                   args.half ? args.half + out0 : out0 + HALF_ROWS, kb, ke, args.b_prefetch != 0);
    }
  } else {  // consumer warpgroup `wg`: weight rows [64·wg, +64) of the tile
    float acc[N_TOK / 2];
    RingState read{static_cast<uint32_t>(stages)};
    accumulate<Cfg>(acc, W, X, full_bar, empty_bar, read, kb, ke, wg);
    // Both consumers' wgmmas have read the ring before either overwrites it with partials.
    named_barrier_sync(1, Cfg::CONSUMERS * kWarpgroupThreads);
    write_fragment<Cfg>(reinterpret_cast<float*>(smem), acc, wg);  // into the (now idle) ring
  }
  // Every load of this CTA has been issued and consumed: the next kernel may start its prologue.
  cudaTriggerProgrammaticLaunchCompletion();
  cluster.sync();  // every CTA's partial tile is in its SMEM (release/acquire at cluster scope)
  // C, the bias and D may belong to the previous kernel: every thread waits for it before the epilogue (it is
  // long done by now; a no-op without PDL).
  cudaGridDependencySynchronize();

  // Reduce-scatter: this CTA sums its share of the tile's (token, 4 columns) groups over all CTAs of the
  // cluster, in rank order, and writes them through the epilogue.
  const float* P = reinterpret_cast<const float*>(smem);
  const int groups = out_tile / 4;
  const int items = std::min(N_TOK, args.M - token0) * groups;
  const int lo = rank * items / split, hi = (rank + 1) * items / split;
  for (int it = lo + static_cast<int>(threadIdx.x); it < hi; it += Cfg::kThreads) {
    const int m = it / groups, c = 4 * (it % groups);
    float a[4] = {0, 0, 0, 0}, u[4] = {0, 0, 0, 0};
    for (int q = 0; q < split; ++q) {
      const float* Pq = cluster.map_shared_rank(P, q) + m * S + c;
      add4(a, Pq);
      if (args.half) add4(u, Pq + HALF_ROWS);
    }
    write_group<T>(args, token0, out0, m, c, a, u);
  }
  cluster.sync();  // no CTA leaves while another may still read its SMEM
}

// h14: the same tile and mainloop over a persistent grid whose CTAs (workers) take equal shares of all the
// tiles' K-tiles (stream-K units, src/device/scheduler.hpp: StreamKScheduler with every tile split), so that
// no SM streams more of B than another whatever the tile count. A worker walks its units in order, cut at tile
// boundaries into pieces: a whole tile is written through the epilogue at once; a piece that starts mid-tile
// (only a worker's first) is a partial, written to the workspace slot of its worker; the piece that holds a
// tile's K-tile 0 (only a worker's last) owns the tile and keeps its sum in SMEM. After one grid barrier
// (a cooperative launch), each owner adds its tile's partials in worker order (the same bits on every run) and
// writes D. The partials are N_TOK × W_ROWS floats: a few KB at decode sizes.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads)
    small_m_sk_kernel(const __grid_constant__ CUtensorMap tmap_w, const __grid_constant__ CUtensorMap tmap_x,
                      const Args args, const StreamKScheduler sched, float* __restrict__ partials, int diag_sync) {
  using T = typename Cfg::Elem;
  constexpr int N_TOK = Cfg::N_TOK, W_ROWS = Cfg::W_ROWS, HALF_ROWS = Cfg::HALF_ROWS, S = Cfg::kPartialStride;
  constexpr int kConsumerThreads = Cfg::CONSUMERS * kWarpgroupThreads;
  extern __shared__ uint8_t smem_raw[];
  uint8_t* smem = &align_smem<uint8_t>(smem_raw);
  const int stages = args.stages;
  T* const W = reinterpret_cast<T*>(smem);                                   // stages × (W_ROWS, BLK_K)
  T* const X = reinterpret_cast<T*>(smem + static_cast<size_t>(stages) * Cfg::kWBytes);  // stages × (N_TOK, BLK_K)
  float* const P = reinterpret_cast<float*>(smem + static_cast<size_t>(stages) * Cfg::kStageBytes);  // one tile
  uint64_t* const full_bar =
      reinterpret_cast<uint64_t*>(smem + static_cast<size_t>(stages) * Cfg::kStageBytes + Cfg::kPartialBytes);
  uint64_t* const empty_bar = full_bar + stages;
  const int worker = static_cast<int>(blockIdx.x);
  const int token_tiles = (args.M + N_TOK - 1) / N_TOK;
  const int out_tile = args.half ? HALF_ROWS : W_ROWS;
  const int groups = out_tile / 4;
  auto origin = [&](int tile, int& token0, int& out0) {  // tiles in order of their weight rows
    token0 = tile % token_tiles * N_TOK;
    out0 = tile / token_tiles * out_tile;
  };
  constexpr int kSlot = N_TOK * W_ROWS;  // floats of one partial in the workspace, token-major

  int& owned_tile = *reinterpret_cast<int*>(empty_bar + stages);  // the tile whose sum stays in P, or -1
  if (threadIdx.x == 0) {
    for (int st = 0; st < stages; ++st) {
      mbarrier_init(&full_bar[st], 1);
      mbarrier_init(&empty_bar[st], Cfg::CONSUMERS * kWarpgroupThreads / 32);  // every consumer warp
    }
    fence_barrier_init();
    owned_tile = -1;
  }
  __syncthreads();

  const int wg = static_cast<int>(threadIdx.x) / kWarpgroupThreads;
  if (wg == Cfg::CONSUMERS) {  // the producer warp: one elected lane issues every TMA, piece after piece
    if (threadIdx.x % 32 == 0) {
      RingState load{static_cast<uint32_t>(stages)};
      if (!args.b_prefetch) cudaGridDependencySynchronize();
      StreamKScheduler::Cursor cur = sched.start(worker);
      StreamKScheduler::Piece pc{};
      bool first = true;
      while (sched.next(cur, pc)) {
        int token0 = 0, out0 = 0;
        origin(pc.tile, token0, out0);
        produce<Cfg>(&tmap_w, &tmap_x, W, X, full_bar, empty_bar, load, token0, out0,
                     args.half ? args.half + out0 : out0 + HALF_ROWS, pc.k_begin, pc.k_end,
                     first && args.b_prefetch != 0);
        first = false;
      }
    }
  } else {  // consumer warpgroup `wg`
    cudaGridDependencySynchronize();  // C, the bias and D may belong to the previous kernel (a no-op without PDL)
    RingState read{static_cast<uint32_t>(stages)};
    StreamKScheduler::Cursor cur = sched.start(worker);
    StreamKScheduler::Piece pc{};
    while (sched.next(cur, pc)) {
      float acc[N_TOK / 2];
      accumulate<Cfg>(acc, W, X, full_bar, empty_bar, read, pc.k_begin, pc.k_end, wg);
      int token0 = 0, out0 = 0;
      origin(pc.tile, token0, out0);
      named_barrier_sync(1, kConsumerThreads);  // the last piece's readers of P are done
      write_fragment<Cfg>(P, acc, wg);
      named_barrier_sync(1, kConsumerThreads);
      const int rows = std::min(N_TOK, args.M - token0);
      if (pc.whole(sched.k_tiles)) {
        for (int it = static_cast<int>(threadIdx.x); it < rows * groups; it += kConsumerThreads) {
          const int m = it / groups, c = 4 * (it % groups);
          float a[4] = {0, 0, 0, 0}, u[4] = {0, 0, 0, 0};
          add4(a, P + m * S + c);
          if (args.half) add4(u, P + m * S + c + HALF_ROWS);
          write_group<T>(args, token0, out0, m, c, a, u);
        }
      } else if (pc.k_begin == 0) {
        if (threadIdx.x == 0) owned_tile = pc.tile;  // a worker's last piece: P holds it until after the barrier
      } else {  // a worker's first piece: its partial goes to the worker's slot
        float* slot = partials + static_cast<size_t>(worker) * kSlot;
        for (int it = static_cast<int>(threadIdx.x); it < rows * (W_ROWS / 4); it += kConsumerThreads) {
          const int m = it / (W_ROWS / 4), c = 4 * (it % (W_ROWS / 4));
          *reinterpret_cast<float4*>(slot + m * W_ROWS + c) = *reinterpret_cast<const float4*>(P + m * S + c);
        }
      }
    }
  }
  // Every load of this CTA has been issued and consumed: the next kernel may start its prologue.
  cudaTriggerProgrammaticLaunchCompletion();
  if (diag_sync) cg::this_grid().sync();
  else __syncthreads();
  if (false) cg::this_grid().sync();  // every partial is in the workspace (the barrier orders memory at grid scope)
  cudaGridDependencySynchronize();  // for the producer warp's lanes too (long done: a no-op by now)
  const int tile = owned_tile;
  if (tile < 0) return;
  int token0 = 0, out0 = 0;
  origin(tile, token0, out0);
  const int last = sched.last_contributor(worker, tile), rows = std::min(N_TOK, args.M - token0);
  for (int it = static_cast<int>(threadIdx.x); it < rows * groups; it += Cfg::kThreads) {
    const int m = it / groups, c = 4 * (it % groups);
    float a[4] = {0, 0, 0, 0}, u[4] = {0, 0, 0, 0};
    add4(a, P + m * S + c);
    if (args.half) add4(u, P + m * S + c + HALF_ROWS);
    for (int q = worker + 1; q <= last; ++q) {  // in worker order
      const float* slot = partials + static_cast<size_t>(q) * kSlot + m * W_ROWS + c;
      add4(a, slot);
      if (args.half) add4(u, slot + HALF_ROWS);
    }
    write_group<T>(args, token0, out0, m, c, a, u);
  }
}

// ── host side ────────────────────────────────────────────────────────────────────────────────────────
inline constexpr size_t kSmemPerSm = 228 * 1024;  // H100/H200: 228 KB per SM, 1 KB of it reserved per CTA
// h14's fix-up in the cost model: a partial of a few KB written, one grid barrier, the partials read back.
inline constexpr double kStreamKFixupUs = 1.0;

// How the K range is split: over a cluster (h12, h13), in stream-K units over a persistent grid (h14), or
// whichever the busiest-SM model prefers (best).
enum class Split { cluster, stream_k, any };

struct Plan {
  int consumers = 1, n_tok = 8, split = 1, stages = 2, ctas_per_sm = 1;
  int64_t tiles = 0, ctas = 0;  // the clusters' tiles (token tiles × row blocks), and CTAs
  int64_t resident = 0;         // CTAs the GPU holds at once at this split and SMEM (cluster occupancy)
  size_t smem = 0;
  bool stream_k = false;  // h14's launch: `ctas` workers, each with an equal share of the tiles' K-tiles
  double busiest = 0;     // the busiest SM's load, in tiles' bytes (the model's measure)
};

// The stream-K launch exists for the tiles of up to 64 tokens (decode); the 128-token tile keeps its cluster split.
template <class Cfg>
inline constexpr bool kStreamK = Cfg::N_TOK <= 64;

template <class Cfg>
const void* kernel_ptr() {
  return reinterpret_cast<const void*>(small_m_kernel<Cfg>);
}
template <class Cfg>
const void* sk_kernel_ptr() {
  if constexpr (kStreamK<Cfg>) return reinterpret_cast<const void*>(small_m_sk_kernel<Cfg>);
  return nullptr;
}

// Calls f.template operator()<Cfg>() with the configuration that serves this problem's dtype and M.
template <class F>
void dispatch(const detail::Problem& p, F&& f) {
  int consumers = 1, n_tok = 8;
  tile_for(p.M, consumers, n_tok);
  auto by_tokens = [&]<class T>() {
    switch (n_tok) {
      case 8: return f.template operator()<Config<T, 1, 8>>();
      case 16: return f.template operator()<Config<T, 1, 16>>();
      case 32: return f.template operator()<Config<T, 1, 32>>();
      case 64:
        if (consumers == 2) return f.template operator()<Config<T, 2, 64>>();
        return f.template operator()<Config<T, 1, 64>>();
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
Plan make_plan(const detail::Problem& p, Split mode, const char* step_id) {
  const detail::Tuning& tune = detail::tuning();
  Plan pl;
  pl.consumers = Cfg::CONSUMERS;
  pl.n_tok = Cfg::N_TOK;
  const int64_t out_tile = p.ep.swiglu ? Cfg::HALF_ROWS : Cfg::W_ROWS;
  pl.tiles = ((p.out_cols() + out_tile - 1) / out_tile) * ((p.M + Cfg::N_TOK - 1) / Cfg::N_TOK);
  const int sms = detail::sm_count();
  const int64_t k_tiles = (p.K + BLK_K - 1) / BLK_K;
  const void* kernel = kernel_ptr<Cfg>();
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
  //   • three, more and shallower rings, once the tiles alone fill the GPU twice over (1×14336×4096 35.1 → 34.4 µs,
  //     1×128256×4096 265 → 254 µs);
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
  } else if (Cfg::N_TOK == 128) {
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
  } else {
    size_for(pl.tiles >= 2 * sms ? 3 : 2);
    rebalance(2, 0, 4);
  }
  pl.ctas = pl.tiles * pl.split;
  if (pl.split > 8) detail::allow_nonportable_cluster(kernel, step_id);
  pl.resident = int64_t{detail::max_active_clusters(kernel, Cfg::kThreads, pl.smem, pl.split)} * pl.split;
  pl.busiest = busiest(pl.split);
  if constexpr (kStreamK<Cfg>) {
    if (mode == Split::cluster || tune.stream_k == 0) return pl;
    // h14: sms × cps workers (all resident: a cooperative launch), each with ceil(units / workers) K-tiles,
    // the ring sized for cps CTAs an SM beside the partial tile. Two CTAs an SM by default (two stream better
    // than one with a ring twice as deep: see above), one for the two-consumer tile.
    const void* sk_kernel = sk_kernel_ptr<Cfg>();
    detail::allow_dynamic_smem(sk_kernel, kSmemPerSm - 1024, step_id);
    const int cps = tune.ctas_per_sm > 0 ? tune.ctas_per_sm : Cfg::CONSUMERS == 1 ? 2 : 1;
    int stages = std::clamp(static_cast<int>((kSmemPerSm / cps - 2048 - Cfg::kPartialBytes - 16) / (Cfg::kStageBytes + 16)), 2, 32);
    if (tune.stages > 0) stages = tune.stages;
    const size_t smem = Cfg::sk_smem_bytes(stages);
    const int64_t units = pl.tiles * k_tiles;
    const int64_t resident = detail::max_active_clusters(sk_kernel, Cfg::kThreads, smem, 1);
    const int64_t workers = std::min<int64_t>({int64_t{sms} * cps, resident, units});
    if (workers < 1 || (mode == Split::any && workers < int64_t{sms} * cps)) return pl;
    // Its busiest SM: cps workers of ceil(units / workers) K-tiles, plus the fix-up (a partial written and read
    // back, one grid barrier: ~1 µs, counted here as kStreamKFixupUs of a tile's stream at 35 GB/s an SM).
    const double tile_us = static_cast<double>(Cfg::W_ROWS) * p.K * sizeof(typename Cfg::Elem) / 35e3;
    const double sk_busiest = static_cast<double>(cps * ((units + workers - 1) / workers)) / k_tiles +
                              kStreamKFixupUs / tile_us;
    if (mode == Split::any && tune.stream_k != 1 && sk_busiest >= 0.95 * pl.busiest) return pl;
    pl.stream_k = true;
    pl.split = 1;
    pl.ctas_per_sm = cps;
    pl.stages = stages;
    pl.smem = smem;
    pl.ctas = workers;
    pl.resident = resident;
    pl.busiest = sk_busiest;
  }
  return pl;
}

template <class Cfg>
void launch_cfg(const detail::Problem& p, cudaStream_t stream, const Plan& pl, bool pdl, const char* step_id) {
  using T = typename Cfg::Elem;
  const CUtensorMap tw = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, Cfg::HALF_ROWS, BLK_K);
  const CUtensorMap tx = make_tensor_map_2d(p.A, p.M, p.K, p.lda, Cfg::N_TOK, BLK_K);
  const Args args{static_cast<int>(p.M), static_cast<int>(p.K), static_cast<int>(p.out_cols()),
                  p.ep.swiglu ? static_cast<int>(p.N / 2) : 0, pl.stages, p.D, p.ldd, p.d, p.ep,
                  pdl && p.b_static ? 1 : 0};
  auto trace = [&](int grid) {
    detail::trace_launch(step_id, grid, Cfg::kThreads, pl.smem, [&] {
      return "small-M " + std::to_string(Cfg::W_ROWS) + "x" + std::to_string(Cfg::N_TOK) +
             (pl.stream_k ? " stream-K " + std::to_string(pl.ctas) + " workers" : " split " + std::to_string(pl.split)) +
             " stages " + std::to_string(pl.stages) + (pdl ? " pdl" : "") + (args.b_prefetch ? " b-prefetch" : "") +
             (std::is_same_v<T, __half> ? " f16" : " bf16");
    });
  };
  if constexpr (kStreamK<Cfg>) {
    if (pl.stream_k) {
      const int k_tiles = static_cast<int>((p.K + BLK_K - 1) / BLK_K);
      const auto sched = StreamKScheduler::all_units(static_cast<int>(pl.tiles), k_tiles, static_cast<int>(pl.ctas));
      static const int diag = std::getenv("LADDER_SKDIAG") ? std::atoi(std::getenv("LADDER_SKDIAG")) : 0;
      static float* persistent = nullptr;
      const size_t bytes = static_cast<size_t>(pl.ctas) * Cfg::N_TOK * Cfg::W_ROWS * sizeof(float);
      std::optional<detail::Workspace> ws;
      float* part = nullptr;
      if (diag & 1) {
        if (!persistent) cudaMalloc(&persistent, 64 << 20);
        part = persistent;
      } else {
        ws.emplace(bytes, stream, std::string(step_id) + " (stream-K partials)");
        part = static_cast<float*>(ws->get());
      }
      detail::launch_kernel_ex(small_m_sk_kernel<Cfg>, dim3(static_cast<unsigned>(pl.ctas)), Cfg::kThreads, pl.smem,
                               stream, {.pdl = pdl && !(diag & 8), .cooperative = !(diag & 2)}, step_id, tw, tx, args, sched,
                               part, (diag & 4) ? 0 : 1);
      return trace(static_cast<int>(pl.ctas));
    }
  }
  const auto kernel = small_m_kernel<Cfg>;
  if (pl.split > 8) detail::allow_nonportable_cluster(reinterpret_cast<const void*>(kernel), step_id);
  const int out_tile = p.ep.swiglu ? Cfg::HALF_ROWS : Cfg::W_ROWS;
  const dim3 grid(static_cast<unsigned>(((p.M + Cfg::N_TOK - 1) / Cfg::N_TOK) * pl.split),
                  static_cast<unsigned>((p.out_cols() + out_tile - 1) / out_tile));
  detail::launch_kernel_ex(kernel, grid, Cfg::kThreads, pl.smem, stream, {.cluster_x = pl.split, .pdl = pdl}, step_id,
                           tw, tx, args);
  trace(static_cast<int>(grid.x * grid.y));
}

inline Plan plan(const detail::Problem& p, Split mode, const char* step_id) {
  Plan pl;
  dispatch(p, [&]<class Cfg>() { pl = make_plan<Cfg>(p, mode, step_id); });
  return pl;
}

}  // namespace
}  // namespace ladder::hopper::small_m
