// The cooperative family's entry points (src/hopper/families.hpp), compiled once for h09, h11 and best:
// 128×256 and 128×192 tiles, fp16 and bf16, TMA-store or register writeback.
#include "hopper/cooperative.cuh"

namespace ladder::hopper::cooperative {

void launch(const detail::Problem& p, cudaStream_t stream, Tile tile, bool stream_k, bool tma_store,
            const char* step_id) {
  if (tile == Tile::w256) return launch_cfg<Coop4>(p, stream, stream_k, tma_store, step_id);
  // The 192-wide tile runs only where D is TMA-storable (best's choice): no register-writeback copy of it.
  if (!tma_store)
    throw Error(LADDER_ERROR_INVALID_ARGUMENT, std::string(step_id) + ": the 128x192 tile needs a TMA-storable D");
  if (p.ab == DType::bf16) return launch_tma_store<Coop192, __nv_bfloat16>(p, stream, stream_k, step_id);
  launch_tma_store<Coop192, __half>(p, stream, stream_k, step_id);
}

bool tma_storable(const detail::Problem& p) {
  return p.d != DType::f32 && p.ldd % 8 == 0 && reinterpret_cast<uintptr_t>(p.D) % 16 == 0 && c_tma_loadable(p);
}

// SwiGLU halves the output tile: the TMA-store writeback needs whole EPI_COLS chunks of it.
bool takes(Tile tile, bool tma_store, const detail::Problem& p) {
  if (!p.ep.swiglu || !tma_store) return true;
  return tile == Tile::w256 ? Coop4::kTakesSwiglu : Coop192::kTakesSwiglu;
}

std::string check(const detail::Problem& p) { return require_tma_store(p); }

}  // namespace ladder::hopper::cooperative
