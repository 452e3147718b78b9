// The ping-pong family's entry points (src/hopper/families.hpp), compiled once for h10 and best.
#include "hopper/pingpong.cuh"

namespace ladder::hopper::pingpong {
namespace {
//                                   CLUSTER_M  STAGES  TILE_M  TILE_N
using Square = Config<                2,      5,     128,    128>;  // h10's
using NarrowPair = Config<            2,      8,     128,     64>;  // fewer 128×128 tiles than SMs (best)
using Deep = Config<                  2,      6,     128,    128, 8, 1>;  // one shared writeback tile (best, plain)
using Deep64 = Config<               2,     13,      64,     64, 8, 1>;  // 64×64 tiles, 13 stages (best, plain; tuning)
}  // namespace

void launch(const detail::Problem& p, cudaStream_t stream, Tile tile, bool pdl, const char* step_id) {
  if (tile == Tile::square) return launch_cfg<Square>(p, stream, pdl, step_id);
  if (tile == Tile::deep) return launch_cfg<Deep>(p, stream, pdl, step_id);
  if (tile == Tile::deep64) return launch_cfg<Deep64>(p, stream, pdl, step_id);
  launch_cfg<NarrowPair>(p, stream, pdl, step_id);
}

// SwiGLU: a 2×1 cluster (one slice of gate rows, one of up rows) and an output tile of whole 64-column boxes.
bool takes(Tile tile, const detail::Problem& p) {
  if (!p.ep.swiglu) return true;
  if (tile == Tile::deep || tile == Tile::deep64) return false;
  return tile == Tile::square ? Square::kTakesSwiglu : NarrowPair::kTakesSwiglu;
}

std::string check(const detail::Problem& p) { return require_tma_store(p); }

}  // namespace ladder::hopper::pingpong
