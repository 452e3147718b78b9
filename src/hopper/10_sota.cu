// Hopper ladder · step 10 — sota.
// Extends h09 by changing nothing in the kernel and everything in how it is chosen: a small table of
// configurations (cluster size, ring depth, consumer tile width) picked per problem shape. Large problems
// keep h09's 2×1 cluster with 128×128 consumer tiles; problems with too few 128×128 tiles to fill 132 SMs
// twice over use 128×64 tiles (twice the tiles, deeper ring), without a cluster.
// Gains: wave quantization and under-filled SMs on small and skinny shapes; nothing at 8192³.
#include <cstdlib>

#include "hopper/09_pingpong.cuh"

namespace ladder::hopper {
namespace {

//                                   CLUSTER_M  STAGES  TILE_M  TILE_N
using Square = pingpong::Config<      2,      5,     128,    128>;  // h09's
using Narrow = pingpong::Config<      1,      8,     128,     64>;
using NarrowPair = pingpong::Config<  2,      8,     128,     64>;
using Wide = pingpong::Config<        2,      4,      64,    256>;  // m64n256: 20 % less SMEM read per FLOP

// The configuration table. LADDER_H10_CONFIG=<index> forces one (for tuning runs).
enum class Pick { square = 0, narrow = 1, narrow_pair = 2, wide = 3 };

Pick choose(const detail::Problem& p) {
  if (const char* forced = std::getenv("LADDER_H10_CONFIG"); forced && *forced)
    return static_cast<Pick>(std::atoi(forced) % 4);
  const int64_t tiles_128 = ((p.M + 127) / 128) * ((p.N + 127) / 128);
  // Fewer 128×128 tiles than SMs: halve the tile width so every SM gets work (1024³: 64 → 128 tiles).
  if (tiles_128 < detail::sm_count()) return Pick::narrow_pair;
  return Pick::square;
}

void launch(const detail::Problem& p, cudaStream_t stream) {
  switch (choose(p)) {
    case Pick::square: return pingpong::launch<Square>(p, stream, "h10");
    case Pick::narrow: return pingpong::launch<Narrow>(p, stream, "h10");
    case Pick::narrow_pair: return pingpong::launch<NarrowPair>(p, stream, "h10");
    case Pick::wide: return pingpong::launch<Wide>(p, stream, "h10");
  }
}

}  // namespace
}  // namespace ladder::hopper

extern const ladder::detail::Step step_h10 = {
    "h10", ladder::detail::Arch::hopper, "sota",
    "h09's kernel with a configuration chosen per shape: 2x1 cluster + 128x128 tiles when there are enough tiles, "
    "128x64 tiles without a cluster when SMs would idle",
    "any M, N >= 1; K % 8 == 0; lda, ldb, ldd % 8 == 0 (TMA loads and stores)", ladder::hopper::pingpong::check,
    ladder::hopper::launch};
