// Hopper · the small-M kernel family (decode: M ≤ ~64 tokens). Used by h12, h13 and `best`.
//
// At small M the GEMM is a stream of B (the weights, N×K): its floor is 2·N·K bytes over the read bandwidth,
// and the tensor core idles whatever the tile. So the kernel is built around the stream:
//   • operands swapped: Dᵀ = B·Aᵀ. 64 weight rows fill wgmma's M side, the few tokens its N side
//     (m64nN_TOKk16, N_TOK = 8…128): no MMA row is padding, only token columns are;
//   • the K range is split over the CTAs of a cluster, so every SM streams a share of B whatever N is;
//   • a deep TMA ring per CTA, several CTAs per SM: the whole problem's loads are in flight at once;
//   • the partial tiles are summed across the cluster through distributed shared memory, in rank order
//     (the same bits on every run), and the sum goes through the fused epilogue to D in one store.
//     No workspace, no second kernel (cuBLAS's split-K adds a 3.4 µs reduce kernel at these shapes).
// Programmatic dependent launch (h13): the kernel waits for the previous grid (griddepcontrol.wait) before
// its first global read, and lets the next one start once its loads are all issued.
#pragma once
#include <cooperative_groups.h>
#include <cuda/ptx>

#include <algorithm>
#include <cstdint>
#include <string>

#include "device/epilogue_op.hpp"
#include "device/mbarrier.cuh"
#include "device/pipeline.hpp"
#include "device/smem.cuh"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "hopper/tile.cuh"
#include "step.hpp"
#include "launch.hpp"
#include "tuning.hpp"

namespace ladder::hopper::small_m {
// NOTE: internal linkage, as for the ping-pong family: h12, h13 and best instantiate the same kernels in
// different translation units, and each must register (and raise the SMEM limit of) its own copy.
namespace {

namespace cg = cooperative_groups;

// T: __half or __nv_bfloat16. N_TOK: tokens per tile (wgmma's N). STAGES: ring depth.
template <class T, int N_TOK_, int STAGES_>
struct Config {
  using Elem = T;
  static constexpr int N_TOK = N_TOK_, STAGES = STAGES_;
  static constexpr int W_ROWS = WGMMA_M;      // weight rows per CTA: wgmma's M side
  static constexpr int HALF_ROWS = W_ROWS / 2;  // B arrives in two 32-row boxes (SwiGLU: gate rows, up rows)
  static constexpr int kThreads = kWarpgroupThreads + 32;  // one consumer warpgroup + one producer warp
  static constexpr uint32_t kStageBytes = (W_ROWS + N_TOK) * BLK_K * sizeof(T);
  static constexpr int kPartialStride = W_ROWS + 4;  // floats per token row of a partial tile: +4 spreads banks
  struct SharedStorage {
    alignas(1024) T W[STAGES][W_ROWS * BLK_K];  // STAGES × (W_ROWS, BLK_K) weights, SW128
    alignas(1024) T X[STAGES][N_TOK * BLK_K];   // STAGES × (N_TOK, BLK_K) tokens, SW128
    uint64_t full_bar[STAGES];
    uint64_t empty_bar[STAGES];
  };
  // After the mainloop the weight ring holds this CTA's fp32 partial tile, (N_TOK, W_ROWS) token-major.
  static_assert(N_TOK * kPartialStride * sizeof(float) <= sizeof(SharedStorage::W), "partials reuse the ring");
  static constexpr size_t kSmemBytes = sizeof(SharedStorage) + 1024;
  static_assert(kSmemBytes <= 227 * 1024, "SMEM budget");
};

struct Args {
  int M, K;
  int out_cols;  // D's columns: N, or I with SwiGLU
  int half;      // SwiGLU: I (B's first up row); 0 otherwise
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
    T h[4];
    for (int e = 0; e < 4; ++e) h[e] = static_cast<T>(v[e]);
    if (vector) *reinterpret_cast<uint2*>(p) = *reinterpret_cast<const uint2*>(h);
    else for (int e = 0; e < valid; ++e) p[e] = h[e];
  }
}

template <class Cfg>
__global__ void __launch_bounds__(Cfg::kThreads)
    small_m_kernel(const __grid_constant__ CUtensorMap tmap_w, const __grid_constant__ CUtensorMap tmap_x,
                   const Args args) {
  using T = typename Cfg::Elem;
  constexpr int STAGES = Cfg::STAGES, N_TOK = Cfg::N_TOK, W_ROWS = Cfg::W_ROWS, HALF_ROWS = Cfg::HALF_ROWS;
  constexpr int S = Cfg::kPartialStride;
  extern __shared__ uint8_t smem_raw[];
  auto& s = align_smem<typename Cfg::SharedStorage>(smem_raw);
  const cg::cluster_group cluster = cg::this_cluster();
  const int split = static_cast<int>(cluster.num_blocks()), rank = static_cast<int>(cluster.block_rank());

  // This cluster's tile: tokens [token0, +N_TOK) × output columns [out0, +out_tile); this CTA's K range.
  const int token0 = static_cast<int>(blockIdx.x / split) * N_TOK;
  const int out_tile = args.half ? HALF_ROWS : W_ROWS;
  const int out0 = static_cast<int>(blockIdx.y) * out_tile;
  const int w_row0 = out0, w_row1 = args.half ? args.half + out0 : out0 + HALF_ROWS;
  const int k_tiles = (args.K + BLK_K - 1) / BLK_K;
  const int kb = rank * k_tiles / split, ke = (rank + 1) * k_tiles / split;

  if (threadIdx.x == 0) {
    for (int st = 0; st < STAGES; ++st) {
      mbarrier_init(&s.full_bar[st], 1);
      mbarrier_init(&s.empty_bar[st], kWarpgroupThreads / 32);  // the consumer's four warps
    }
    fence_barrier_init();
  }
  __syncthreads();

  if (threadIdx.x / 32 == 4) {  // the producer warp: one elected lane issues every TMA
    if (threadIdx.x % 32 == 0) {
      auto load_w = [&](int kt, int stage) {
        tma_load_2d(s.W[stage], &tmap_w, kt * BLK_K, w_row0, &s.full_bar[stage]);
        tma_load_2d(s.W[stage] + HALF_ROWS * BLK_K, &tmap_w, kt * BLK_K, w_row1, &s.full_bar[stage]);
      };
      auto load_x = [&](int kt, int stage) { tma_load_2d(s.X[stage], &tmap_x, kt * BLK_K, token0, &s.full_bar[stage]); };
      PipelineState<STAGES> load;
      int kt = kb;
      if (args.b_prefetch) {
        // The caller promised that B is not written by the work before us: fill the ring's weights while the
        // previous kernel finishes, then wait for it before touching the tokens it may have produced.
        const int pre = std::min(STAGES, ke - kb);
        for (int j = 0; j < pre; ++j) {
          mbarrier_arrive_expect_tx(&s.full_bar[j], Cfg::kStageBytes);
          load_w(kb + j, j);
        }
        cudaGridDependencySynchronize();
        for (int j = 0; j < pre; ++j) load_x(kb + j, j);
        load.advance(pre);
        kt += pre;
      } else {
        cudaGridDependencySynchronize();  // no global read before the previous grid is done (a no-op without PDL)
      }
      for (; kt < ke; ++kt) {
        mbarrier_wait(&s.empty_bar[load.stage], load.producer_phase(), "empty_bar");
        mbarrier_arrive_expect_tx(&s.full_bar[load.stage], Cfg::kStageBytes);
        load_w(kt, load.stage);
        load_x(kt, load.stage);
        load.advance();
      }
    }
  } else {  // the consumer warpgroup
    // Zeroed, and every wgmma accumulates: a CTA whose K range is empty (K < split·64) contributes 0.
    float acc[N_TOK / 2];
#pragma unroll
    for (int i = 0; i < N_TOK / 2; ++i) acc[i] = 0.0f;
    PipelineState<STAGES> read;
    uint32_t prev_stage = 0;
    for (int i = kb; i < ke; ++i) {
      mbarrier_wait(&s.full_bar[read.stage], read.phase, "full_bar");
      sm90::wgmma_fence();
      const uint32_t w = sm90::smem_addr(s.W[read.stage]), x = sm90::smem_addr(s.X[read.stage]);
#pragma unroll
      for (int k = 0; k < BLK_K / WGMMA_K; ++k)
        sm90::wgmma_m64k16<N_TOK, T>(acc, sm90::kmajor_sw128_descriptor(w + k * WGMMA_K * 2),
                                     sm90::kmajor_sw128_descriptor(x + k * WGMMA_K * 2), 1);
      sm90::wgmma_commit_group();
      sm90::wgmma_wait_group<1>();
      if (i > kb && threadIdx.x % 32 == 0) mbarrier_arrive(&s.empty_bar[prev_stage]);
      prev_stage = read.stage;
      read.advance();
    }
    sm90::wgmma_wait_group<0>();
    sm90::fence_operand(acc);
    // The fragment (PTX ISA 9.7.15.5.1, m64nN D): register i = v0 + 2·v1 + 4·j of thread 32w + l holds weight
    // row 16w + l/4 + 8·v1, token 8j + 2(l%4) + v0. Written token-major into the (now idle) weight ring.
    float* P = reinterpret_cast<float*>(s.W);
    const int w = threadIdx.x / 32, l = threadIdx.x % 32;
#pragma unroll
    for (int j = 0; j < N_TOK / 8; ++j)
#pragma unroll
      for (int v = 0; v < 4; ++v) P[(8 * j + 2 * (l % 4) + v % 2) * S + 16 * w + l / 4 + 8 * (v / 2)] = acc[4 * j + v];
  }
  // Every load of this CTA has been issued and consumed: the next kernel may start its prologue.
  cudaTriggerProgrammaticLaunchCompletion();
  cluster.sync();  // every CTA's partial tile is in its SMEM (release/acquire at cluster scope)

  // C, the bias and D may belong to the previous kernel: every thread waits for it before the epilogue (it is
  // long done by now; a no-op without PDL).
  cudaGridDependencySynchronize();
  // Reduce-scatter: this CTA sums its share of the tile's (token, 4 columns) groups over all CTAs of the
  // cluster, in rank order, and writes them through the epilogue.
  const float* P = reinterpret_cast<const float*>(s.W);
  const int groups = out_tile / 4;
  const int rows = std::min(N_TOK, args.M - token0);
  const int items = rows * groups;
  const int lo = rank * items / split, hi = (rank + 1) * items / split;
  for (int it = lo + static_cast<int>(threadIdx.x); it < hi; it += Cfg::kThreads) {
    const int m = it / groups, c = 4 * (it % groups);
    float a[4] = {0, 0, 0, 0}, u[4] = {0, 0, 0, 0};
    for (int q = 0; q < split; ++q) {
      const float* Pq = cluster.map_shared_rank(P, q) + m * S + c;
      const float4 v = *reinterpret_cast<const float4*>(Pq);
      a[0] += v.x, a[1] += v.y, a[2] += v.z, a[3] += v.w;
      if (args.half) {
        const float4 g = *reinterpret_cast<const float4*>(Pq + HALF_ROWS);
        u[0] += g.x, u[1] += g.y, u[2] += g.z, u[3] += g.w;
      }
    }
    const int64_t row = token0 + m;
    const int col = out0 + c;
    const int valid = std::min(4, args.out_cols - col);
    if (valid <= 0) continue;
    float out[4];
    for (int e = 0; e < 4; ++e)
      out[e] = args.half ? epilogue_swiglu(args.ep, args.d, a[e], u[e], row, col + e, args.half)
                         : epilogue(args.ep, args.d, a[e], row, col + e);
    const int64_t idx = row * args.ldd + col;
    const int bytes = dtype_bytes(args.d);
    const bool vector = valid == 4 && (reinterpret_cast<uintptr_t>(static_cast<char*>(args.D) + idx * bytes) % (4 * bytes)) == 0;
    store4<T>(args.D, args.d, idx, out, valid, vector);
  }
  cluster.sync();  // no CTA leaves while another may still read its SMEM
}

// ── host side ────────────────────────────────────────────────────────────────────────────────────────
// The tile for M tokens: the narrowest N_TOK ≥ M (up to 128: more tokens take several token tiles).
inline int tokens_per_tile(int64_t M) {
  for (int n : {8, 16, 32, 64}) if (M <= n) return n;
  return 128;
}

// Ring depth per token tile: about 72–96 KB per CTA, so two or three CTAs share an SM.
template <class T, int N_TOK>
using ConfigFor = Config<T, N_TOK, N_TOK <= 32 ? 8 : N_TOK == 64 ? 6 : 5>;

struct Plan {
  int n_tok = 8, split = 1;
  int64_t tiles = 0, ctas = 0;  // clusters' tiles (token tiles × row blocks) and CTAs
};

inline std::string check(const detail::Problem& p) {
  if (auto e = detail::require_tma_rows(p); !e.empty()) return e;
  if (p.ep.swiglu && p.N % 2 != 0) return "SwiGLU needs an even N (B = [gate; up])";
  const int64_t out_tile = p.ep.swiglu ? 32 : 64;
  if ((p.out_cols() + out_tile - 1) / out_tile > 65535) return "N must be at most 4194240 (65535 row blocks)";
  return {};
}

// Row blocks × token tiles, and the K split: the largest power of two (≤ 16) that keeps every CTA resident at
// once (`resident` CTAs fit on the GPU) and leaves each CTA at least 4 K-tiles of stream... unless forced.
inline Plan make_plan(const detail::Problem& p, int resident) {
  Plan pl;
  pl.n_tok = tokens_per_tile(p.M);
  const int64_t out_tile = p.ep.swiglu ? 32 : 64;
  pl.tiles = ((p.out_cols() + out_tile - 1) / out_tile) * ((p.M + pl.n_tok - 1) / pl.n_tok);
  const int64_t k_tiles = (p.K + BLK_K - 1) / BLK_K;
  if (const int forced = detail::tuning().split; forced > 0) {
    pl.split = forced;
  } else {
    while (pl.split < 16 && pl.tiles * pl.split * 2 <= resident && k_tiles >= 4 * pl.split * 2) pl.split *= 2;
  }
  pl.ctas = pl.tiles * pl.split;
  return pl;
}

template <class Cfg>
void launch_cfg(const detail::Problem& p, cudaStream_t stream, const Plan& pl, bool pdl, const char* step_id) {
  using T = typename Cfg::Elem;
  const auto kernel = small_m_kernel<Cfg>;
  const CUtensorMap tw = make_tensor_map_2d(p.B, p.N, p.K, p.ldb, Cfg::HALF_ROWS, BLK_K);
  const CUtensorMap tx = make_tensor_map_2d(p.A, p.M, p.K, p.lda, Cfg::N_TOK, BLK_K);
  const Args args{static_cast<int>(p.M), static_cast<int>(p.K), static_cast<int>(p.out_cols()),
                  p.ep.swiglu ? static_cast<int>(p.N / 2) : 0, p.D, p.ldd, p.d, p.ep, pdl && p.b_static ? 1 : 0};
  const int out_tile = p.ep.swiglu ? Cfg::HALF_ROWS : Cfg::W_ROWS;
  const dim3 grid(static_cast<unsigned>(((p.M + Cfg::N_TOK - 1) / Cfg::N_TOK) * pl.split),
                  static_cast<unsigned>((p.out_cols() + out_tile - 1) / out_tile));
  detail::launch_kernel_ex(kernel, grid, Cfg::kThreads, Cfg::kSmemBytes, stream, pl.split, pdl, step_id, tw, tx, args);
  detail::trace_launch(step_id, static_cast<int>(grid.x * grid.y), Cfg::kThreads, Cfg::kSmemBytes, [&] {
    return "small-M n" + std::to_string(Cfg::N_TOK) + " split " + std::to_string(pl.split) + " stages " +
           std::to_string(Cfg::STAGES) + (pdl ? " pdl" : "") + (args.b_prefetch ? " b-prefetch" : "") +
           (std::is_same_v<T, __half> ? " f16" : " bf16");
  });
}

template <class Cfg>
const void* kernel_ptr() {
  return reinterpret_cast<const void*>(small_m_kernel<Cfg>);
}

// Calls f.template operator()<Cfg>() for the configuration that serves this problem's dtype and M.
template <class F>
void dispatch(const detail::Problem& p, F&& f) {
  auto by_tokens = [&]<class T>() {
    switch (tokens_per_tile(p.M)) {
      case 8: return f.template operator()<ConfigFor<T, 8>>();
      case 16: return f.template operator()<ConfigFor<T, 16>>();
      case 32: return f.template operator()<ConfigFor<T, 32>>();
      case 64: return f.template operator()<ConfigFor<T, 64>>();
      default: return f.template operator()<ConfigFor<T, 128>>();
    }
  };
  if (p.ab == DType::bf16) return by_tokens.template operator()<__nv_bfloat16>();
  return by_tokens.template operator()<__half>();
}

// Raises the kernel's limits (once) and returns how many of its CTAs fit on the GPU at once.
template <class Cfg>
int prepare(const char* step_id) {
  const void* kernel = kernel_ptr<Cfg>();
  detail::allow_dynamic_smem(kernel, Cfg::kSmemBytes, step_id);
  detail::allow_nonportable_cluster(kernel, step_id);  // splits of 16 CTAs
  return detail::resident_ctas(kernel, Cfg::kThreads, Cfg::kSmemBytes);
}

inline Plan plan(const detail::Problem& p, const char* step_id) {
  Plan pl;
  dispatch(p, [&]<class Cfg>() { pl = make_plan(p, prepare<Cfg>(step_id)); });
  return pl;
}

inline void launch(const detail::Problem& p, cudaStream_t stream, bool pdl, const char* step_id) {
  dispatch(p, [&]<class Cfg>() { launch_cfg<Cfg>(p, stream, make_plan(p, prepare<Cfg>(step_id)), pdl, step_id); });
}

inline std::string describe(const detail::Problem& p, bool pdl) {
  const Plan pl = plan(p, "small-M");
  return "small-M: swapped operands, 64 weight rows x " + std::to_string(pl.n_tok) + " tokens per tile, K split " +
         std::to_string(pl.split) + " (cluster, DSMEM reduction), " + std::to_string(pl.ctas) + " CTAs" +
         (pdl ? ", programmatic dependent launch" : "");
}

}  // namespace
}  // namespace ladder::hopper::small_m
