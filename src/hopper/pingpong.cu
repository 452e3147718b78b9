// The ping-pong family's entry points (src/hopper/families.hpp), compiled once for h10 and best.
#include "hopper/pingpong.cuh"

namespace ladder::hopper::pingpong {
namespace {
//                                   CLUSTER_M  STAGES  TILE_M  TILE_N
using Square = Config<                2,      5,     128,    128>;  // h10's
using NarrowPair = Config<            2,      8,     128,     64>;  // fewer 128×128 tiles than SMs (best)
}  // namespace

void launch(const detail::Problem& p, cudaStream_t stream, Tile tile, const char* step_id) {
  if (tile == Tile::square) return launch_cfg<Square>(p, stream, step_id);
  launch_cfg<NarrowPair>(p, stream, step_id);
}

// SwiGLU: a 2×1 cluster (one slice of gate rows, one of up rows) and an output tile of whole 64-column boxes.
bool takes(Tile tile, const detail::Problem& p) {
  if (!p.ep.swiglu) return true;
  return tile == Tile::square ? (Square::TILE_N / 2) % 64 == 0 : (NarrowPair::TILE_N / 2) % 64 == 0;
}

std::string check(const detail::Problem& p) {
  if (auto e = detail::require_tma_rows(p); !e.empty()) return e;
  if (p.ldd % 8 != 0) return "ldd (N when dense) must be a multiple of 8: D is written by TMA stores";
  if (p.d == DType::f32) return "D must be fp16 or bf16: it is written by TMA stores (step 'best' takes an fp32 D)";
  if (p.ep.swiglu && p.N % 2 != 0) return "SwiGLU needs an even N (B = [gate; up])";
  return {};
}

}  // namespace ladder::hopper::pingpong
