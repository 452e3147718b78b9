// The Hopper ladder's asynchronous writeback: wgmma fragment → (cast) → stmatrix → SW128 SMEM tile →
// one TMA store per 64-column block. Used from h09 on.
#pragma once
#include <cuda/ptx>
#include <cuda_bf16.h>

#include <type_traits>

#include "device/descriptors.hpp"
#include "device/epilogue_op.hpp"
#include "device/mbarrier.cuh"
#include "device/named_barrier.cuh"
#include "device/sm90/stmatrix.cuh"
#include "device/tensor_map.hpp"
#include "device/tma.cuh"
#include "hopper/tile.cuh"
#include "ladder/ladder.hpp"  // Error
#include "step.hpp"

namespace ladder::hopper {

__device__ __forceinline__ uint32_t pack_half2(float x, float y) {
  const __half2 h = __floats2half2_rn(x, y);
  return *reinterpret_cast<const uint32_t*>(&h);
}
__device__ __forceinline__ uint32_t pack_bf162(float x, float y) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(x, y);
  return *reinterpret_cast<const uint32_t*>(&h);
}
// Two fp32 values as one 32-bit pair of T (fp16 or bf16), rounded to nearest: D's one rounding.
template <class T>
__device__ __forceinline__ uint32_t pack2(float x, float y) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return pack_bf162(x, y);
  else return pack_half2(x, y);
}

// What the fused epilogue needs inside a kernel (device/epilogue_op.hpp): the parameters, D's dtype, and for
// SwiGLU the offset I of B's up rows (0 otherwise). `active` is false for the plain GEMM: nothing to do.
struct Epilogue {
  EpilogueParams ep;
  DType d = DType::f16;
  int half = 0;
  bool active = false;
};

// Loads the 2-byte or 4-byte value `idx` of an array of dtype t (one of three loops is taken per fragment: the
// dispatch stays outside the unrolled loops, so the loads issue together).
template <class F>
__device__ __forceinline__ void for_dtype(DType t, F&& f) {
  if (t == DType::f32) f(static_cast<const float*>(nullptr));
  else if (t == DType::bf16) f(static_cast<const __nv_bfloat16*>(nullptr));
  else f(static_cast<const __half*>(nullptr));
}
template <class E>
__device__ __forceinline__ float to_float(E v) {
  if constexpr (std::is_same_v<E, float>) return v;
  else if constexpr (std::is_same_v<E, __nv_bfloat16>) return __bfloat162float(v);
  else return __half2float(v);
}

// The tile's bias, spread over a warp before the mainloop, so that its loads land while the tile is computed:
// lane 4a + b holds, as floats, product columns 8j + 2b and 8j + 2b + 1 of each 8-column block j ≡ a (mod 8) of
// the fragment, the pair that lanes b, b + 4, … need for block j, one shuffle away (apply_epilogue). With SwiGLU,
// blocks j ≥ J/2 are the up columns (I + …) of blocks j − J/2.
// NOTE: measured 2026-12-01 (docs/results/dev/2026-12-01-s7-epilogue/): each thread loading its 64 bias values
// after the mainloop cost the cooperative kernel 7.7 % at 2048×16384×4096 (the ping-pong 3.4 %).
template <int N_FRAG>
struct BiasShare {
  static constexpr int J = N_FRAG / 8, Q = (J + 7) / 8;  // blocks; blocks a lane holds (the last may be partial)
  static_assert(N_FRAG % 16 == 0, "whole 8-column blocks, an even count (SwiGLU's gate and up halves)");
  float2 v[Q];
};

template <int N_FRAG, Fused F>
__device__ __forceinline__ BiasShare<N_FRAG> load_bias_share(const Epilogue& e, int64_t col0, int64_t out_cols) {
  using S = BiasShare<N_FRAG>;
  S s;
#pragma unroll
  for (int q = 0; q < S::Q; ++q) s.v[q] = make_float2(0.0f, 0.0f);
  if (!e.ep.bias) return s;
  const int l = threadIdx.x % 32, a = l / 4, b = l % 4;
  const bool swiglu = F == Fused::swiglu || (F == Fused::any && e.half != 0);
  for_dtype(e.ep.bias_dtype, [&](auto tag) {
    using E = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
    const E* bias = static_cast<const E*>(e.ep.bias);
#pragma unroll
    for (int q = 0; q < S::Q; ++q) {
      const int j = a + 8 * q;
      if (j >= S::J) break;  // a partial last group of blocks (N_FRAG not a multiple of 64)
      const bool up = swiglu && j >= S::J / 2;
      const int64_t c = col0 + 8 * (up ? j - S::J / 2 : j) + 2 * b, idx = up ? e.half + c : c;
      s.v[q].x = c < out_cols ? to_float(bias[idx]) : 0.0f;
      s.v[q].y = c + 1 < out_cols ? to_float(bias[idx + 1]) : 0.0f;
    }
  });
  return s;
}

// Applies the epilogue to FRAGS 64 × N_FRAG wgmma fragments in place (fragment f: rows row0 + 64f, +64), in fp32,
// before the one rounding. Layout as in store_fragment (PTX ISA 9.7.15.5.1): register i of thread 32w + l is row
// 16w + l/4 + 8·((i%4)/2), column col0 + 8·(i/4) + 2(l%4) + i%2. With SwiGLU a fragment holds gate columns
// [0, N_FRAG/2) in registers [0, N_FRAG/4) and the matching up columns in [N_FRAG/4, N_FRAG/2); the result,
// N_FRAG/2 columns wide, is left in registers [0, N_FRAG/4). Elements outside [M, out_cols) are never stored;
// their C is not read. F: what is compiled in (device/epilogue_op.hpp); with F other than `any`, C's type is CT
// (D's: the TMA store's). C_LOADS: beta·C is read here element by element (the register writeback); otherwise
// the TMA-store writeback adds it from the staging tile (CTile), and this leaves it out.
// NOTE: each step (alpha, bias, activation, residual) is one unrolled loop over all fragments with its dtype and
// activation chosen outside it: the loads of a step issue together (a per-element function with its own branches
// serialized them and cost ~7 µs a tile), and a dispatch per fragment let the compiler copy the loops after it
// into every branch (pingpong's two fragments: 3-9 copies).
template <int N_FRAG, int FRAGS, Fused F = Fused::any, class CT = __half, bool C_LOADS = false>
__device__ __forceinline__ void apply_epilogue(float (&acc)[FRAGS][N_FRAG / 2], const Epilogue& e,
                                               const BiasShare<N_FRAG>& bias, int64_t row0, int64_t col0, int64_t M,
                                               int64_t out_cols) {
  static_assert(F != Fused::none, "nothing to apply");
  constexpr int R = N_FRAG / 2, J = N_FRAG / 8;
  const int w = threadIdx.x / 32 % 4, l = threadIdx.x % 32;
  const bool swiglu = F == Fused::swiglu || (F == Fused::any && e.half != 0);
  // 1. alpha, and the bias of each register's product column (gate j, or up I + j with SwiGLU).
  // alpha = 1, the usual case, skips its multiply (x·1 = x exactly): it was 128 of the 290 instructions a warp and
  // tile that the ping-pong's bias copy adds (ncu, 2026-12-03: dev/2026-12-03-s17/call3/).
  const float alpha = e.ep.alpha;
  if (alpha != 1.0f)
#pragma unroll
    for (int f = 0; f < FRAGS; ++f)
#pragma unroll
      for (int i = 0; i < R; ++i) acc[f][i] *= alpha;
  if (e.ep.bias) {
#pragma unroll
    for (int j = 0; j < J; ++j) {  // block j's pair, from lane 4(j % 8) + l % 4 (BiasShare)
      const float2 v = bias.v[j / 8];
      const int src = 4 * (j % 8) + l % 4;
      const float bx = __shfl_sync(0xffffffffu, v.x, src), by = __shfl_sync(0xffffffffu, v.y, src);
#pragma unroll
      for (int f = 0; f < FRAGS; ++f) {
        acc[f][4 * j] += bx, acc[f][4 * j + 1] += by;
        acc[f][4 * j + 2] += bx, acc[f][4 * j + 3] += by;
      }
    }
  }
  // 2. The activation, or SwiGLU's silu(gate) · up.
  if (swiglu) {
#pragma unroll
    for (int f = 0; f < FRAGS; ++f)
#pragma unroll
      for (int i = 0; i < R / 2; ++i) acc[f][i] = silu(acc[f][i]) * acc[f][i + R / 2];
  } else if constexpr (F != Fused::any) {
    if constexpr (F != Fused::act_none && F != Fused::swiglu) {
      constexpr Activation kAct = static_cast<Activation>(static_cast<int32_t>(F));
#pragma unroll
      for (int f = 0; f < FRAGS; ++f)
#pragma unroll
        for (int i = 0; i < R; ++i) acc[f][i] = activate<kAct>(acc[f][i]);
    }
  } else {
    switch (e.ep.act) {
      case Activation::none: break;
#define LADDER_ACTIVATE(kind)                                                                            \
  case Activation::kind:                                                                                 \
    _Pragma("unroll") for (int f = 0; f < FRAGS; ++f) _Pragma("unroll") for (int i = 0; i < R; ++i) acc[f][i] = \
        activate(Activation::kind, acc[f][i]);                                                           \
    break;
      LADDER_ACTIVATE(relu)
      LADDER_ACTIVATE(gelu_tanh)
      LADDER_ACTIVATE(gelu_erf)
      LADDER_ACTIVATE(silu)
#undef LADDER_ACTIVATE
    }
  }
  // 3. beta · C (C has D's dtype and shape), with C_LOADS.
  if constexpr (C_LOADS) {
    if (e.ep.beta != 0.0f) {
      auto col_of = [&](int i) { return col0 + 8 * (i / 4) + 2 * (l % 4) + (i % 2); };
      auto row_of = [&](int f, int i) { return row0 + 64 * f + 16 * w + l / 4 + 8 * ((i % 4) / 2); };
      const int regs = swiglu ? R / 2 : R;
      const float beta = e.ep.beta;
      auto add_c = [&](auto tag) {
        using E = std::remove_const_t<std::remove_pointer_t<decltype(tag)>>;
        const E* C = static_cast<const E*>(e.ep.C);
#pragma unroll
        for (int f = 0; f < FRAGS; ++f)
#pragma unroll
          for (int i = 0; i < R; ++i) {
            const int64_t r = row_of(f, i), c = col_of(i);
            if (i < regs && r < M && c < out_cols) acc[f][i] += beta * to_float(C[r * e.ep.ldc + c]);
          }
      };
      if constexpr (F == Fused::any) for_dtype(e.d, add_c);
      else add_c(static_cast<const CT*>(nullptr));
    }
  }
}

// Host: calls f(std::integral_constant<Fused, k>{}) for the run-time kind k, so a launcher picks the kernel
// copy that compiles in just that epilogue. SWIGLU false: a family configuration that cannot take SwiGLU.
template <bool SWIGLU = true, class Fn>
void with_fused(Fused k, Fn&& f) {
  using enum Fused;
  switch (k) {
    case none: return f(std::integral_constant<Fused, none>{});
    case act_none: return f(std::integral_constant<Fused, act_none>{});
    case relu: return f(std::integral_constant<Fused, relu>{});
    case gelu_tanh: return f(std::integral_constant<Fused, gelu_tanh>{});
    case gelu_erf: return f(std::integral_constant<Fused, gelu_erf>{});
    case silu: return f(std::integral_constant<Fused, silu>{});
    case swiglu:
      if constexpr (SWIGLU) return f(std::integral_constant<Fused, swiglu>{});
      break;
    case any: break;
  }
  throw Error(LADDER_ERROR_INVALID_ARGUMENT, "internal: no kernel copy for this epilogue");
}

// All 128 threads of a warpgroup: cast the fragment and write it into the SMEM image (conflict-free:
// the swizzle spreads each 8-row stmatrix phase over all banks).
template <int N_FRAG, class T = __half>
__device__ __forceinline__ void fragment_to_smem(const float (&acc)[N_FRAG / 2], __half* tile) {
  const int w = threadIdx.x / 32 % 4, l = threadIdx.x % 32;
  const uint32_t base = sm90::smem_addr(tile);
  const int i = l / 8, r = l % 8;  // this lane addresses row r of matrix i
  const int row = 16 * w + r + 8 * (i % 2);
#pragma unroll
  for (int j = 0; j < N_FRAG / 8; j += 2) {
    const int col = 8 * (j + i / 2);  // matrices 0,1: column block j; 2,3: block j+1
    const uint32_t addr = base + (col / 64) * (64 * 128) + sw128_offset(row, (col % 64) * 2);
    sm90::stmatrix_x4(addr, pack2<T>(acc[4 * j + 0], acc[4 * j + 1]), pack2<T>(acc[4 * j + 2], acc[4 * j + 3]),
                      pack2<T>(acc[4 * j + 4], acc[4 * j + 5]), pack2<T>(acc[4 * j + 6], acc[4 * j + 7]));
  }
}

// Named barrier over one warpgroup (ids 1.. : 0 is __syncthreads).
__device__ __forceinline__ void warpgroup_sync(int id) { named_barrier_sync(id, kWarpgroupThreads); }

template <class T>
__device__ __forceinline__ float2 unpack2(uint32_t v) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&v));
  else return __half22float2(*reinterpret_cast<const __half2*>(&v));
}

// beta·C through the writeback's staging tile: the leader loads the tile's box of C (D's dtype and shape) into
// the SW128 image by TMA as soon as the image is free (`load`, before the mainloop where it can), and the
// writeback adds it to the fragment just before overwriting the image with D (add_c_from_smem: ldmatrix at
// stmatrix's addresses, so each thread reads back exactly the elements it then writes).
// NOTE: measured 2026-12-01 (docs/results/dev/2026-12-01-s7-epilogue/): C read element by element after the
// mainloop cost the cooperative kernel 45 % and the ping-pong 13 % at 2048×16384×4096 (with 128 accumulators a
// thread, the loads went out in small batches, each waiting its round trip).
struct CTile {
  const CUtensorMap* map;
  uint64_t* bar;  // one phase per load
  uint32_t phase = 0;

  // Leader only: the box rows [row0, +64·FRAGS) × columns [col0, +N_FRAG), once earlier stores have read the image.
  template <int N_FRAG, int FRAGS>
  __device__ __forceinline__ void load(__half* tile, int row0, int col0) const {
    tma_store_wait_read<0>();
    mbarrier_arrive_expect_tx(bar, FRAGS * 64 * N_FRAG * 2);
#pragma unroll
    for (int f = 0; f < FRAGS; ++f)
#pragma unroll
      for (int b = 0; b < N_FRAG / 64; ++b)
        tma_load_2d(tile + f * 64 * N_FRAG + b * 64 * 64, map, col0 + 64 * b, row0 + 64 * f, bar);
  }
  __device__ __forceinline__ void wait() {
    mbarrier_wait(bar, phase, "c_bar");
    phase ^= 1;
  }
};

// acc += beta·C for one fragment, C read from the SMEM image that fragment_to_smem then overwrites.
template <int N_FRAG, class T>
__device__ __forceinline__ void add_c_from_smem(float (&acc)[N_FRAG / 2], const __half* tile, float beta) {
  const int w = threadIdx.x / 32 % 4, l = threadIdx.x % 32;
  const uint32_t base = sm90::smem_addr(tile);
  const int i = l / 8, r = l % 8;
  const int row = 16 * w + r + 8 * (i % 2);
#pragma unroll
  for (int j = 0; j < N_FRAG / 8; j += 2) {
    const int col = 8 * (j + i / 2);
    const uint32_t addr = base + (col / 64) * (64 * 128) + sw128_offset(row, (col % 64) * 2);
    uint32_t c[4];
    sm90::ldmatrix_x4(addr, c[0], c[1], c[2], c[3]);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const float2 v = unpack2<T>(c[q]);
      acc[4 * j + 2 * q] += beta * v.x;
      acc[4 * j + 2 * q + 1] += beta * v.y;
    }
  }
}

// Writes FRAGS stacked 64 × N_FRAG fragments (rows row0 + 64f) through `tile` in SMEM with TMA stores;
// the stores stay in flight when this returns. The calling warpgroup owns `tile` and named barrier `bar_id`.
// With `add_c`, beta·C (loaded into `tile` by c.load) is added first.
template <int N_FRAG, int FRAGS, class T = __half>
__device__ __forceinline__ void store_tile_tma(float (&acc)[FRAGS][N_FRAG / 2], __half* tile,
                                               const CUtensorMap* tmap_d, int row0, int col0, int bar_id,
                                               CTile& c, bool add_c, float beta) {
  const bool leader = threadIdx.x % kWarpgroupThreads == 0;
  if (leader) tma_store_wait_read<0>();  // the previous tile's stores have finished reading `tile`
  warpgroup_sync(bar_id);
  if (add_c) {
    c.wait();
#pragma unroll
    for (int f = 0; f < FRAGS; ++f) add_c_from_smem<N_FRAG, T>(acc[f], tile + f * 64 * N_FRAG, beta);
  }
#pragma unroll
  for (int f = 0; f < FRAGS; ++f) fragment_to_smem<N_FRAG, T>(acc[f], tile + f * 64 * N_FRAG);
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // stmatrix (generic proxy) → TMA (async proxy)
  warpgroup_sync(bar_id);
  if (leader) {
#pragma unroll
    for (int f = 0; f < FRAGS; ++f)
#pragma unroll
      for (int b = 0; b < N_FRAG / 64; ++b)
        tma_store_2d(tmap_d, col0 + 64 * b, row0 + 64 * f, tile + f * 64 * N_FRAG + b * 64 * 64);
    tma_store_commit();
  }
}

// The register writeback with the epilogue applied (fp32 D, or a D that TMA cannot store): one 64 × N_FRAG
// fragment (after apply_epilogue: N_FRAG/2 columns with SwiGLU) straight from registers to GMEM, 8-byte stores of
// four elements where the fragment is inside D (`quads`; LADDER_TUNE wb=0 turns them off), else element pairs.
template <int N_FRAG, class T>
__device__ __forceinline__ void store_fragment_typed(const float (&acc)[N_FRAG / 2], void* D, DType d, int64_t ldd,
                                                     int64_t row0, int64_t col0, int64_t M, int64_t out_cols,
                                                     bool swiglu, bool quads = true) {
  const int w = threadIdx.x / 32 % 4, l = threadIdx.x % 32;
  const int bytes = dtype_bytes(d);
  const bool pairs = ldd % 2 == 0 && reinterpret_cast<uintptr_t>(D) % (2 * bytes) == 0;
  const int J = swiglu ? N_FRAG / 16 : N_FRAG / 8;
  // A 2-byte D, the fragment inside D, 8-byte aligned rows: no per-element checks, and each warp store writes 32
  // whole bytes of 8 rows. For column blocks j, j + 1 (16 columns) lane q of a quad holds columns 2q, 2q + 1 of
  // each; after four shuffles it holds columns 4q … 4q + 3, one 8-byte store. Measured (docs/notes.md, twentieth
  // session): the element-pair stores with their checks were ~3 µs of the fitted tile's epilogue at 1536²×4096,
  // with twice the L2 sectors a whole-sector store needs.
  int j_first = 0;  // the element-pair loop's first block
  if (quads && d != DType::f32 && row0 + 64 <= M && col0 + 8 * J <= out_cols && ldd % 4 == 0 &&
      reinterpret_cast<uintptr_t>(D) % 8 == 0) {
    const int q = l % 4, quad = l & ~3;
    T* const base = static_cast<T*>(D) + (row0 + 16 * w + l / 4) * ldd + col0 + 4 * q;
#pragma unroll
    for (int j = 0; j + 1 < N_FRAG / 8; j += 2) {
      if (j + 1 >= J) break;
#pragma unroll
      for (int v1 = 0; v1 < 2; ++v1) {
        const uint32_t a = pack2<T>(acc[4 * j + 2 * v1], acc[4 * j + 2 * v1 + 1]);            // block j
        const uint32_t b = pack2<T>(acc[4 * j + 4 + 2 * v1], acc[4 * j + 4 + 2 * v1 + 1]);    // block j + 1
        const int src0 = quad + (2 * q) % 4, src1 = quad + (2 * q + 1) % 4;
        const uint32_t a0 = __shfl_sync(0xffffffffu, a, src0), a1 = __shfl_sync(0xffffffffu, a, src1);
        const uint32_t b0 = __shfl_sync(0xffffffffu, b, src0), b1 = __shfl_sync(0xffffffffu, b, src1);
        *reinterpret_cast<uint2*>(base + 8 * v1 * ldd + 8 * j) = q < 2 ? make_uint2(a0, a1) : make_uint2(b0, b1);
      }
    }
    if (J % 2 == 0) return;
    j_first = J - 1;  // an odd block count (SwiGLU's 72 columns of a 144-wide tile): the last block below
  }
#pragma unroll
  for (int j = 0; j < N_FRAG / 8; ++j) {
    if (j >= J) break;
    if (j < j_first) continue;
#pragma unroll
    for (int v1 = 0; v1 < 2; ++v1) {
      const int64_t row = row0 + 16 * w + l / 4 + 8 * v1, col = col0 + 8 * j + 2 * (l % 4);
      if (row >= M || col >= out_cols) continue;
      const float x = acc[4 * j + 2 * v1], y = acc[4 * j + 2 * v1 + 1];
      const int64_t i = row * ldd + col;
      const bool both = col + 1 < out_cols;
      if (d == DType::f32) {
        float* p = static_cast<float*>(D) + i;
        if (pairs && both) *reinterpret_cast<float2*>(p) = make_float2(x, y);
        else { p[0] = x; if (both) p[1] = y; }
      } else {
        T* p = static_cast<T*>(D) + i;
        if (pairs && both) *reinterpret_cast<uint32_t*>(p) = pack2<T>(x, y);
        else { p[0] = static_cast<T>(x); if (both) p[1] = static_cast<T>(y); }
      }
    }
  }
}

// Vector v of a deferred activation (the cooperative kernel's Config::DEFER): the 16-byte vector v (row-major in
// 64-column blocks) of the 64 × OUT_COLS output in the SW128 image `tile` (blocks of 64 rows × 128 B, as
// fragment_to_smem writes them), where the pre-activation values wait in D's dtype, activated in fp32 and written
// back in place. SwiGLU (F): the gate vector in block b, the up vector in block b + TILE_N/128, silu(gate)·up over
// the gate. Eight consecutive threads take one row's 128 B: no bank conflict.
template <Fused F, class T, int TILE_N>
__device__ __forceinline__ void activate_in_smem(__half* tile, int v) {
  const int block = v / 512, row = v / 8 % 64, chunk = v % 8;  // 512 vectors a 64 × 64 block
  char* const base = reinterpret_cast<char*>(tile);
  uint4* const p = reinterpret_cast<uint4*>(base + block * 8192 + sw128_offset(row, chunk * 16));
  uint4 x = *p;
  uint32_t* const w = reinterpret_cast<uint32_t*>(&x);
  if constexpr (F == Fused::swiglu) {
    const uint4 u = *reinterpret_cast<const uint4*>(base + (block + TILE_N / 128) * 8192 + sw128_offset(row, chunk * 16));
    const uint32_t* const uw = reinterpret_cast<const uint32_t*>(&u);
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const float2 g = unpack2<T>(w[q]), h = unpack2<T>(uw[q]);
      w[q] = pack2<T>(silu(g.x) * h.x, silu(g.y) * h.y);
    }
  } else {
    constexpr Activation kAct = static_cast<Activation>(static_cast<int32_t>(F));
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const float2 a = unpack2<T>(w[q]);
      w[q] = pack2<T>(activate<kAct>(a.x), activate<kAct>(a.y));
    }
  }
  *p = x;
}

// Vector v (16 bytes, 0-511) of a deferred residual (the cooperative kernel's Config::DEFER with act_none): in the
// 64 × 64 SW128 block `d`, where alpha·acc + bias waits in D's dtype, plus beta·C from `c`, C's block as its map loads
// it (SW128 too: the same byte offset holds the same element, so no swizzle arithmetic). Rounded to D's dtype again.
template <class T>
__device__ __forceinline__ void add_c_in_smem(__half* d, const __half* c, int v, float beta) {
  uint4* const p = reinterpret_cast<uint4*>(d) + v;
  uint4 x = *p;
  const uint4 y = reinterpret_cast<const uint4*>(c)[v];
  uint32_t* const xw = reinterpret_cast<uint32_t*>(&x);
  const uint32_t* const yw = reinterpret_cast<const uint32_t*>(&y);
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const float2 a = unpack2<T>(xw[q]), b = unpack2<T>(yw[q]);
    xw[q] = pack2<T>(a.x + beta * b.x, a.y + beta * b.y);
  }
  *p = x;
}

// Host: CTile's map of C (D's dtype and shape, 64×64 boxes), or `d` (D's map, unused) when there is no C.
inline CUtensorMap c_map(const detail::Problem& p, const CUtensorMap& d) {
  if (p.ep.beta == 0.0f) return d;
  return make_tensor_map_2d(p.ep.C, p.M, p.out_cols(), p.ep.ldc, 64, 64);
}

// Before the CTA exits: every store issued by this thread has completed.
__device__ __forceinline__ void tma_store_drain() { cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{}); }

}  // namespace ladder::hopper
