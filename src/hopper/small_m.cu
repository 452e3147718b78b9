// The small-M family's entry points (src/hopper/families.hpp), compiled once for h12, h13 and best.
#include "hopper/small_m.cuh"

namespace ladder::hopper::small_m {

void launch(const detail::Problem& p, cudaStream_t stream, bool pdl, const char* step_id) {
  dispatch(p, [&]<class Cfg>() {
    const Plan pl = make_plan<Cfg>(p, step_id);
    if constexpr (Cfg::kCanMulticast)
      if (pl.mcast == 2) return launch_cfg<typename Cfg::Multicast>(p, stream, pl, pdl, step_id);
    launch_cfg<Cfg>(p, stream, pl, pdl, step_id);
  });
}

namespace {
// One row of the grid a block of D's columns: the tile's weight rows, half of them with SwiGLU (gate and up). 64 rows
// (the narrowest tile): which tile runs depends on the device's SMs, and a step's check needs no device.
int64_t out_block(const detail::Problem& p) { return p.ep.swiglu ? 32 : 64; }
}  // namespace

bool grid_fits(const detail::Problem& p) { return (p.out_cols() + out_block(p) - 1) / out_block(p) <= 65535; }

std::string check(const detail::Problem& p) {
  if (auto e = detail::require_tma_rows(p); !e.empty()) return e;
  if (p.ep.swiglu && p.N % 2 != 0) return "SwiGLU needs an even N (B = [gate; up])";
  if (!grid_fits(p))
    return "D's columns must fit 65535 blocks of " + std::to_string(out_block(p)) + " (the grid's y limit): N at most " +
           std::to_string(65535 * out_block(p) * (p.ep.swiglu ? 2 : 1));
  return {};
}

std::string describe(const detail::Problem& p, bool pdl) {
  const Plan pl = plan(p, "small-M");
  return "small-M: swapped operands, " + std::to_string(64 * pl.consumers) + " weight rows x " +
         std::to_string(pl.n_tok) + " tokens per tile, K split " + std::to_string(pl.split) +
         (pl.push ? " (cluster, partials pushed to their owners by bulk copy), " : " (cluster, DSMEM reduction), ") +
         (pl.mcast > 1 ? "each weight stage multicast to 2 token tiles, " : "") +
         std::to_string(pl.stages) + "-stage ring, " + std::to_string(pl.ctas) +
         " CTAs (" + std::to_string(pl.resident) + " resident)" + (pdl ? ", programmatic dependent launch" : "") +
         (pdl && p.b_static ? ", first weight stages loaded before the wait (B static)" : "");
}

}  // namespace ladder::hopper::small_m
