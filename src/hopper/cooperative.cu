// The cooperative family's entry points (src/hopper/families.hpp), compiled once for h09, h11 and best:
// 128×256 and 128×192 tiles (and for best 128×256 with a deferred activation), fp16 and bf16, TMA-store or register
// writeback; best's tiles fitted to the waves (launch_fit: 64-224 wide, one or two CTAs a cluster, register writeback).
#include <iterator>

#include "hopper/cooperative.cuh"

namespace ladder::hopper::cooperative {

void launch(const detail::Problem& p, cudaStream_t stream, Tile tile, bool stream_k, bool tma_store, bool pdl,
            const char* step_id) {
  if (tile == Tile::w256_defer && deferrable(p, tma_store)) {
    if (p.ab == DType::bf16) return launch_deferred<CoopDefer, __nv_bfloat16>(p, stream, stream_k, pdl, step_id);
    return launch_deferred<CoopDefer, __half>(p, stream, stream_k, pdl, step_id);
  }
  if (tile == Tile::w256_defer && tma_store && detail::tuning().resc == 1 && p.ep.beta != 0.0f &&
      fused_kind(p.ep) == Fused::act_none) {  // best's residual GEMM: its whole C before the mainloop
    if (p.ab == DType::bf16) return launch_typed<CoopRes, __nv_bfloat16, true, Fused::act_none>(p, stream, stream_k, pdl, step_id);
    return launch_typed<CoopRes, __half, true, Fused::act_none>(p, stream, stream_k, pdl, step_id);
  }
  if (tile == Tile::w256 || tile == Tile::w256_defer) return launch_cfg<Coop4>(p, stream, stream_k, tma_store, pdl, step_id);
  if (tile == Tile::w256x1) {  // best takes it for a plain GEMM with a TMA-storable D: that copy only is compiled
    if (!tma_store || !p.ep.plain())
      throw Error(LADDER_ERROR_INVALID_ARGUMENT,
                  std::string(step_id) + ": the 1-CTA 128x256 tile takes a plain GEMM with a TMA-storable D");
    if (p.ab == DType::bf16) return launch_typed<Coop4x1, __nv_bfloat16, true, Fused::none>(p, stream, stream_k, pdl, step_id);
    return launch_typed<Coop4x1, __half, true, Fused::none>(p, stream, stream_k, pdl, step_id);
  }
  // The 192-wide tile runs only where D is TMA-storable (best's choice): no register-writeback copy of it.
  if (!tma_store)
    throw Error(LADDER_ERROR_INVALID_ARGUMENT, std::string(step_id) + ": the 128x192 tile needs a TMA-storable D");
  if (p.ab == DType::bf16) return launch_tma_store<Coop192, __nv_bfloat16>(p, stream, stream_k, pdl, step_id);
  launch_tma_store<Coop192, __half>(p, stream, stream_k, pdl, step_id);
}

// The fitted tiles: the register writeback (any D) and whole tiles. Ring depths fill the SMEM.
//                        STAGES  GROUP_M  EPI_COLS  TILE_N  CLUSTER_M
using Fit64x1 = Config<        9,       8,        0,     64,         1>;
using Fit112x1 = Config<       7,       8,        0,    112,         1>;
using Fit224x1 = Config<       5,       8,        0,    224,         1>;
using Fit64x2 = Config<        9,       8,        0,     64,         2>;
using Fit144x2 = Config<       6,       8,        0,    144,         2>;
using Fit208x2 = Config<       5,       8,        0,    208,         2>;
using Fit224x2 = Config<       5,       8,        0,    224,         2>;

// A plain problem takes the copy without the run-time epilogue (Fused::none), unless LADDER_TUNE post=0 asks for
// the fused copy (the A/B of what the `any` copy costs a plain GEMM).
template <class Cfg, class T>
void launch_fit_typed(const detail::Problem& p, cudaStream_t stream, bool pdl, const char* step_id) {
  if (p.ep.plain() && detail::tuning().post != 0)
    return launch_typed<Cfg, T, false, Fused::none>(p, stream, false, pdl, step_id);
  launch_typed<Cfg, T, false, Fused::any>(p, stream, false, pdl, step_id);
}
template <class Cfg>
void launch_fit_cfg(const detail::Problem& p, cudaStream_t stream, bool pdl, const char* step_id) {
  if (p.ab == DType::bf16) return launch_fit_typed<Cfg, __nv_bfloat16>(p, stream, pdl, step_id);
  launch_fit_typed<Cfg, __half>(p, stream, pdl, step_id);
}

// The compiled fitted configurations, in kFitTiles' order (families.hpp): the two lists agree or this fails to compile.
template <class... Cfgs>
struct FitConfigs {
  static constexpr bool matches() {
    constexpr FitTile tiles[] = {{Cfgs::TILE_N, Cfgs::CLUSTER_M}...};
    if (sizeof...(Cfgs) != std::size(kFitTiles)) return false;
    for (size_t i = 0; i < sizeof...(Cfgs); ++i)
      if (tiles[i].width != kFitTiles[i].width || tiles[i].cluster != kFitTiles[i].cluster) return false;
    return true;
  }
  static bool launch(const detail::Problem& p, cudaStream_t stream, FitTile tile, bool pdl, const char* step_id) {
    return ((tile.width == Cfgs::TILE_N && tile.cluster == Cfgs::CLUSTER_M &&
             (launch_fit_cfg<Cfgs>(p, stream, pdl, step_id), true)) || ...);
  }
};
using Fitted = FitConfigs<Fit64x1, Fit112x1, Fit224x1, Fit64x2, Fit144x2, Fit208x2, Fit224x2>;
static_assert(Fitted::matches(), "kFitTiles lists the fitted configurations compiled here");

void launch_fit(const detail::Problem& p, cudaStream_t stream, FitTile tile, bool pdl, const char* step_id) {
  if (!Fitted::launch(p, stream, tile, pdl, step_id))
    throw Error(LADDER_ERROR_INVALID_ARGUMENT, std::string(step_id) + ": no fitted 128x" + std::to_string(tile.width) +
                                                   " tile with a cluster of " + std::to_string(tile.cluster) + " compiled");
}

bool tma_storable(const detail::Problem& p) {
  return p.d != DType::f32 && p.ldd % 8 == 0 && reinterpret_cast<uintptr_t>(p.D) % 16 == 0 && c_tma_loadable(p);
}

// SwiGLU halves the output tile: the TMA-store writeback needs whole EPI_COLS chunks of it.
bool takes(Tile tile, bool tma_store, const detail::Problem& p) {
  if (!p.ep.swiglu || !tma_store) return true;
  return tile == Tile::w192 ? Coop192::kTakesSwiglu : Coop4::kTakesSwiglu;
}

bool defers_epilogue(const detail::Problem& p) { return deferrable(p, tma_storable(p)); }

std::string check(const detail::Problem& p) { return require_tma_store(p); }

}  // namespace ladder::hopper::cooperative
